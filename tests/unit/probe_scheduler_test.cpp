// Scheduler pieces with explicit times: duty-cycle budget, disk exclusion,
// folding runs into snapshots, and the collector's families.

#include <thread>

#include <catch2/catch.hpp>

#include "collectors/probe_collector.h"
#include "probes/scheduler.h"
#include "test_helpers.h"

using namespace diskperf;
using namespace std::chrono_literals;

TEST_CASE("latency buckets run from 25 us to 10 s about x2 apart", "[probe][scheduler]") {
  const auto& b = probe_latency_buckets();
  REQUIRE(b.front() == Approx(25e-6));
  REQUIRE(b[1] == Approx(50e-6));
  REQUIRE(b.back() == 10.0);
  REQUIRE(b.size() == 20);
}

TEST_CASE("duty-cycle budget: 1 s of probing at 2% allows the next run 49 s later", "[probe][scheduler]") {
  DutyBudget budget;
  const DutyBudget::time_point t0{};
  CHECK(budget.next_allowed({"sda"}) == t0);
  budget.record({"sda", "sdb"}, t0 + 10s, t0 + 11s, 0.02);
  CHECK(budget.next_allowed({"sda"}) == t0 + 60s);
  CHECK(budget.next_allowed({"sdc", "sdb"}) == t0 + 60s);  // a volume over sdb shares its budget
  CHECK(budget.next_allowed({"sdc"}) == DutyBudget::time_point{});
  budget.record({"sdc"}, t0, t0 + 1s, 1.0);  // 100%: no idle required
  CHECK(budget.next_allowed({"sdc"}) == t0 + 1s);
}

TEST_CASE("disk locks: never two probes on one disk at once", "[probe][scheduler]") {
  DiskLocks locks;
  std::atomic<bool> stop{false};
  REQUIRE(locks.acquire({"sda", "sdb"}, stop));
  std::atomic<bool> got{false};
  std::thread t([&] {
    if (locks.acquire({"sdb"}, stop)) got = true;
  });
  std::this_thread::sleep_for(150ms);
  CHECK_FALSE(got.load());  // sdb is busy
  REQUIRE(locks.acquire({"sdc"}, stop));  // an unrelated disk is free
  locks.release({"sda", "sdb"});
  t.join();
  CHECK(got.load());
  std::atomic<bool> stopped{true};
  CHECK_FALSE(locks.acquire({"sdb"}, stopped));  // still held, and stop requested
}

TEST_CASE("fold_run accumulates totals and keeps the last run's figures", "[probe][scheduler]") {
  ProbeSnapshot s;
  RunResult r;
  r.runtime_ns = 1'000'000'000;
  for (int i = 0; i < 100; ++i) {
    r.read.clat.add(30'000);  // 30 us -> the 50 us bucket
    ++r.read.ios;
    r.read.bytes += 8192;
  }
  r.read.clat.add(20'000'000'000ull);  // 20 s -> +Inf
  ++r.read.ios;
  r.read.bytes += 8192;
  r.errors["timeout"] = 1;
  ProbeSnapshot a = fold_run(s, r);
  ProbeSnapshot b = fold_run(a, r);
  CHECK(b.runs == 2);
  CHECK(b.errors.at("timeout") == 2);
  CHECK(b.read_totals.ios == 202);
  CHECK(b.read_totals.bytes == 202 * 8192);
  CHECK(b.read_totals.bucket_counts[1] == 200);
  CHECK(b.read_totals.bucket_counts.back() == 2);
  CHECK(b.read_last.iops == Approx(101));
  CHECK(b.read_last.clat_p50 == Approx(30e-6).epsilon(0.005));
}

TEST_CASE("probe collector: families for a configured job before its first run", "[probe][collector]") {
  ProbeJob job;
  job.name = "db";
  job.target = "/dev/sdz";
  job.bs = 8192;
  job.iodepth = 8;
  auto sched = std::make_shared<ProbeScheduler>(std::vector<ProbeJob>{job}, HostPaths{});
  ProbeCollector c(sched);
  Families f;
  REQUIRE_FALSE(c.collect(f));
  REQUIRE(f.size() == 14);  // all families, even with no run yet
  CHECK(test::sample(f, "diskperf_probe_info", "bs", "8192") == 1.0);
  CHECK(test::sample(f, "diskperf_probe_stalled", "probe", "db") == 0.0);
  CHECK(test::sample(f, "diskperf_probe_waiting_for_drain", "probe", "db") == 0.0);
  CHECK(test::sample(f, "diskperf_probe_runs_total", "probe", "db") == 0.0);
  CHECK(test::sample(f, "diskperf_probe_errors_total", "kind", "timeout") == 0.0);
  CHECK_FALSE(test::sample(f, "diskperf_probe_last_iops"));  // no run yet
}
