// The probe engine on real files: log-linear histogram accuracy against exact
// order statistics, option parsers, and run_probe on an O_DIRECT temp file.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <catch2/catch.hpp>

#include "probes/io_engine.h"
#include "probes/latency_histogram.h"
#include "probes/probe_job.h"
#include "probes/probe_report.h"
#include "probes/probe_run.h"
#include "probes/probe_target.h"
#include "test_helpers.h"

using namespace diskperf;

TEST_CASE("log-linear histogram percentiles are within 1% of exact ones", "[probe][histogram]") {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(200000.0), 1.5);  // ~200 us median, long tail
  std::vector<std::uint64_t> v;
  LatencyHistogram h;
  for (int i = 0; i < 100000; ++i) {
    auto ns = static_cast<std::uint64_t>(dist(rng)) + 1;
    v.push_back(ns);
    h.add(ns);
  }
  std::sort(v.begin(), v.end());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    // fio's rule: the smallest value with at least p% of samples at or below it.
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * v.size())) - 1;
    const double exact = static_cast<double>(v[rank]);
    INFO("p" << p << " exact " << exact << " hist " << h.percentile(p));
    REQUIRE(std::abs(static_cast<double>(h.percentile(p)) - exact) / exact < 0.01);
  }
  REQUIRE(h.min() == v.front());
  REQUIRE(h.max() == v.back());
  REQUIRE(h.count() == 100000);
}

TEST_CASE("histogram buckets tile the value range", "[probe][histogram]") {
  for (std::uint64_t x : {0ull, 1ull, 127ull, 128ull, 255ull, 256ull, 1000ull, 123456789ull, 10000000000ull}) {
    auto i = LatencyHistogram::index_of(x);
    REQUIRE(LatencyHistogram::lower_bound(i) <= x);
    REQUIRE(x <= LatencyHistogram::upper_bound(i));
    REQUIRE(LatencyHistogram::upper_bound(i) + 1 == LatencyHistogram::lower_bound(i + 1));
  }
  LatencyHistogram h;
  for (int i = 1; i <= 100; ++i) h.add(static_cast<std::uint64_t>(i));  // exact below 128
  REQUIRE(h.percentile(50) == 50);
  REQUIRE(h.percentile(99) == 99);
  REQUIRE(h.mean() == 50.5);
}

TEST_CASE("probe option parsers use fio's units", "[probe][parse]") {
  REQUIRE(parse_size("4096") == 4096u);
  REQUIRE(parse_size("8k") == 8192u);
  REQUIRE(parse_size("8KiB") == 8192u);
  REQUIRE(parse_size("1m") == 1048576u);
  REQUIRE(parse_size("2G") == 2147483648u);
  REQUIRE(!parse_size("8x"));
  REQUIRE(!parse_size("-1"));
  REQUIRE(!parse_size(""));
  REQUIRE(parse_duration("3s") == std::chrono::seconds(3));
  REQUIRE(parse_duration("500ms") == std::chrono::milliseconds(500));
  REQUIRE(parse_duration("2") == std::chrono::seconds(2));
  REQUIRE(parse_duration("100us") == std::chrono::microseconds(100));
  REQUIRE(parse_duration("2m") == std::chrono::minutes(2));
  REQUIRE(!parse_duration("3 parsecs"));
  REQUIRE(parse_rw("randrw") == RwMode::randrw);
  REQUIRE(!parse_rw("randomread"));
}

TEST_CASE("run_probe reads a laid-out file with O_DIRECT: exact counts and fio-shaped JSON", "[probe][run]") {
  test::TempDir dir;
  const std::string file = (dir.path / "data").string();
  REQUIRE(prepare_probe_file(file, 4u << 20).empty());
  ProbeJob job;
  job.name = "t";
  job.target = file;
  job.rw = RwMode::randread;
  job.bs = 8192;
  job.iodepth = 4;
  job.number_ios = 200;
  RunResult r = run_probe(job, file, 0, 4u << 20, 4096);
  REQUIRE(r.fatal.empty());
  REQUIRE(r.errors.empty());
  REQUIRE(r.read.ios == 200);
  REQUIRE(r.read.bytes == 200u * 8192u);
  REQUIRE(r.write.ios == 0);
  REQUIRE(r.read.clat.count() == 200);
  REQUIRE(r.read.lat.min() >= r.read.clat.min());
  REQUIRE(r.runtime_ns > 0);
  auto j = fio_json(job, r)["jobs"][0];
  REQUIRE(j["read"]["total_ios"] == 200);
  REQUIRE(j["read"]["io_bytes"] == 200 * 8192);
  REQUIRE(j["read"]["clat_ns"]["percentile"].contains("99.000000"));
  REQUIRE(j["read"]["clat_ns"]["percentile"].contains("99.900000"));
  REQUIRE(j["write"]["total_ios"] == 0);
}

TEST_CASE("the engine submits one I/O per io_submit, each with its own start and issue time, as fio does",
          "[probe][run][engine]") {
  // fio 3.33 with its defaults (iodepth_batch_submit=1) calls io_submit once per I/O and stamps
  // issue_time after each call (strace -c: 3200 io_submit calls for 3200 I/Os at iodepth 32).
  // A batch stamped after one io_submit gave a clat p50 0.72x fio's at iodepth 32 (bench/RESULTS.md).
  test::TempDir dir;
  const std::string file = (dir.path / "data").string();
  REQUIRE(prepare_probe_file(file, 1u << 20).empty());
  std::string err;
  auto e = IoEngine::open(file, false, 8, 4096, 4096, err);
  REQUIRE(e);
  std::vector<unsigned> slots = e->free_slots();
  REQUIRE(slots.size() == 8);
  for (unsigned s : slots) e->prepare(s, s * 8192ull, false);
  REQUIRE(e->submit(slots) == 0);
  REQUIRE(e->in_flight() == 8);
  std::vector<IoCompletion> done;
  while (e->in_flight() > 0) REQUIRE(e->reap(1, 5'000'000'000ull, done) >= 0);
  REQUIRE(done.size() == 8);
  std::sort(done.begin(), done.end(), [](const IoCompletion& a, const IoCompletion& b) { return a.slot < b.slot; });
  for (std::size_t k = 0; k < done.size(); ++k) {
    REQUIRE(done[k].result == 4096);
    REQUIRE(done[k].offset == done[k].slot * 8192ull);
    REQUIRE(done[k].start_ns < done[k].issue_ns);
    REQUIRE(done[k].issue_ns <= done[k].done_ns);
    if (k > 0) REQUIRE(done[k].start_ns >= done[k - 1].issue_ns);  // its own io_submit, after the previous one
  }
}

TEST_CASE("reap takes at most max_nr completions, stamped together; the rest stay for the next call",
          "[probe][run][engine]") {
  // fio's defaults reap one completion per io_getevents while running (iodepth_batch_complete_min
  // = max = 1) and all of them when draining; run_probe does the same through max_nr.
  test::TempDir dir;
  const std::string file = (dir.path / "data").string();
  REQUIRE(prepare_probe_file(file, 1u << 20).empty());
  std::string err;
  auto e = IoEngine::open(file, false, 4, 4096, 4096, err);
  REQUIRE(e);
  std::vector<unsigned> slots = e->free_slots();
  for (unsigned s : slots) e->prepare(s, s * 4096ull, false);
  REQUIRE(e->submit(slots) == 0);
  std::vector<IoCompletion> done;
  REQUIRE(e->reap(1, 5'000'000'000ull, done, 1) == 1);
  REQUIRE(e->in_flight() == 3);
  REQUIRE(e->free_slots().size() == 1);
  while (done.size() < 4) REQUIRE(e->reap(e->in_flight(), 5'000'000'000ull, done, 0) >= 0);
  REQUIRE(e->in_flight() == 0);
  REQUIRE(done[1].done_ns >= done[0].done_ns);
  for (const IoCompletion& c : done) REQUIRE(c.result == 4096);
}

TEST_CASE("run_probe sequential reads stay inside the region and wrap", "[probe][run]") {
  test::TempDir dir;
  const std::string file = (dir.path / "data").string();
  REQUIRE(prepare_probe_file(file, 1u << 20).empty());
  ProbeJob job;
  job.rw = RwMode::read;
  job.bs = 4096;
  job.iodepth = 2;
  job.number_ios = 10;
  // A region of 3 blocks at 64 KiB: 10 reads wrap around it.
  RunResult r = run_probe(job, file, 65536, 3 * 4096, 4096);
  REQUIRE(r.fatal.empty());
  REQUIRE(r.read.ios == 10);
}

TEST_CASE("run_probe reports a missing target as fatal", "[probe][run]") {
  ProbeJob job;
  RunResult r = run_probe(job, "/nonexistent/diskperf", 0, 1 << 20, 4096);
  REQUIRE(r.fatal.find("No such file") != std::string::npos);
}

TEST_CASE("a short file read past its end is counted as short_read", "[probe][run]") {
  test::TempDir dir;
  const std::string file = (dir.path / "data").string();
  REQUIRE(prepare_probe_file(file, 8192).empty());
  ProbeJob job;
  job.rw = RwMode::read;
  job.bs = 8192;
  job.number_ios = 1;
  // The region claims 16 KiB, starting at 4 KiB: the read gets 4096 of 8192 bytes.
  RunResult r = run_probe(job, file, 4096, 16384, 4096);
  REQUIRE(r.errors.at("short_read") == 1);
  REQUIRE(r.read.ios == 0);
}

TEST_CASE("a symbolic link planted at the probe file's path is refused, never written through", "[probe][safety]") {
  test::TempDir dir;
  const std::string victim = (dir.path / "database.dat").string();
  {
    std::ofstream f(victim, std::ios::binary);
    f << std::string(1u << 20, 'D');  // the same size as the probe file
  }
  const std::string probe = probe_file_path(dir.str(), "w");
  std::filesystem::create_symlink(victim, probe);
  const std::string err = prepare_probe_file(probe, 1u << 20);
  CHECK(err == probe + " exists and is not a regular file");
  std::string error;
  CHECK_FALSE(IoEngine::open(probe, true, 1, 4096, 4096, error));
  CHECK(error == "open " + probe + ": Too many levels of symbolic links");
  std::ifstream in(victim, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(content == std::string(1u << 20, 'D'));  // untouched
}

TEST_CASE("a probe file never fills its file system: 10% of it stays free", "[probe][safety]") {
  // 100 GB file system, 20 GB free: 9 GB more leaves 11 GB (> 10 GB), 11 GB leaves 9 GB.
  CHECK(probe_file_space_error("/data/p", 9'000'000'000, 20'000'000'000, 100'000'000'000).empty());
  CHECK(probe_file_space_error("/data/p", 11'000'000'000, 20'000'000'000, 100'000'000'000) ==
        "laying out /data/p needs 11000000000 bytes, and its file system has 20000000000 of 100000000000 bytes "
        "free: it would leave less than 10% free (lower file_size)");
  CHECK_FALSE(probe_file_space_error("/data/p", 30'000'000'000, 20'000'000'000, 100'000'000'000).empty());
  CHECK(probe_file_space_error("/data/p", 0, 0, 100).empty());  // shrinking or reusing a file takes nothing
  CHECK_FALSE(probe_file_space_error("/data/p", 1, 10, 100).empty());  // 9 left of 100: under 10%
  // Through prepare_probe_file on this machine's temp file system: nothing is created.
  test::TempDir dir;
  const std::string probe = probe_file_path(dir.str(), "huge");
  const std::string err = prepare_probe_file(probe, 1ull << 60);
  CHECK(err.rfind("laying out " + probe + " needs 1152921504606846976 bytes", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(probe));
}

TEST_CASE("a hard link, a FIFO or another user's file at the probe file's path is refused", "[probe][safety]") {
  test::TempDir dir;
  const std::string victim = (dir.path / "database.dat").string();
  {
    std::ofstream f(victim, std::ios::binary);
    f << std::string(10u << 20, 'D');
  }
  // A hard link (found by a breaker: a read job truncated and rewrote the linked file).
  const std::string probe = probe_file_path(dir.str(), "r");
  std::filesystem::create_hard_link(victim, probe);
  CHECK(prepare_probe_file(probe, 1u << 20) == probe + " has 2 links: not the exporter's own probe file");
  std::string error;
  CHECK_FALSE(IoEngine::open(probe, true, 1, 4096, 4096, error));
  CHECK(error == "open " + probe + ": not a regular file with a single link, refused for writes");
  CHECK(std::filesystem::file_size(victim) == 10u << 20);
  std::ifstream in(victim, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(content == std::string(10u << 20, 'D'));
  // A FIFO: refused at once, never waited on.
  const std::string fifo = probe_file_path(dir.str(), "f");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(prepare_probe_file(fifo, 1u << 20) == fifo + " exists and is not a regular file");
  CHECK_FALSE(IoEngine::open(fifo, true, 1, 4096, 4096, error));
  // Another owner.
  struct stat st {};
  REQUIRE(::stat(victim.c_str(), &st) == 0);
  st.st_uid = ::geteuid() + 1;
  st.st_nlink = 1;
  CHECK(own_probe_file_error("/x", st) == "/x is owned by uid " + std::to_string(::geteuid() + 1) +
                                              ", not by the exporter (uid " + std::to_string(::geteuid()) +
                                              "): not its own probe file");
  // The exporter's own file passes, and is reused.
  const std::string own = probe_file_path(dir.str(), "own");
  REQUIRE(prepare_probe_file(own, 1u << 20).empty());
  REQUIRE(::stat(own.c_str(), &st) == 0);
  CHECK(own_probe_file_error(own, st).empty());
  CHECK(prepare_probe_file(own, 1u << 20).empty());
}
