#include <sys/stat.h>

#include <array>
#include <thread>

#include <catch2/catch.hpp>

#include "collectors/diskstats_collector.h"
#include "daemon/gatherer.h"
#include "test_helpers.h"

using namespace diskperf;
using diskperf::test::fixture;
using diskperf::test::sample;

namespace {
Families collect_from(const std::string& procfs, std::optional<std::string> include = std::string(".")) {
  HostPaths paths;
  paths.procfs = procfs;
  paths.sysfs = "/nonexistent";  // not this host's
  DiskstatsCollector c(paths, std::make_shared<DeviceFilter>(include, std::nullopt));
  Families out;
  REQUIRE_FALSE(c.collect(out));
  return out;
}
}  // namespace

TEST_CASE("diskstats collector converts to base units", "[diskstats]") {
  auto fs = collect_from(fixture("diskstats/linux-5.5"));
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "vda") == 5602);
  CHECK(sample(fs, "diskperf_disk_reads_merged_total", "device", "vda") == 3211);
  CHECK(sample(fs, "diskperf_disk_read_bytes_total", "device", "vda") == 521794.0 * 512);
  CHECK(sample(fs, "diskperf_disk_read_time_seconds_total", "device", "vda") == Approx(43.467));
  CHECK(sample(fs, "diskperf_disk_writes_completed_total", "device", "vda") == 802);
  CHECK(sample(fs, "diskperf_disk_writes_merged_total", "device", "vda") == 1478);
  CHECK(sample(fs, "diskperf_disk_written_bytes_total", "device", "vda") == 243536.0 * 512);
  CHECK(sample(fs, "diskperf_disk_write_time_seconds_total", "device", "vda") == Approx(9.982));
  CHECK(sample(fs, "diskperf_disk_io_now", "device", "dm-0") == 3);
  CHECK(sample(fs, "diskperf_disk_io_time_seconds_total", "device", "vda") == Approx(21.132));
  CHECK(sample(fs, "diskperf_disk_io_time_weighted_seconds_total", "device", "vda") == Approx(53.901));
  CHECK(sample(fs, "diskperf_disk_discards_completed_total", "device", "vda") == 3660);
  CHECK(sample(fs, "diskperf_disk_discards_merged_total", "device", "vda") == 47);
  CHECK(sample(fs, "diskperf_disk_discarded_bytes_total", "device", "vda") == 79776.0 * 512);
  CHECK(sample(fs, "diskperf_disk_discard_time_seconds_total", "device", "vda") == Approx(0.443));
  CHECK(sample(fs, "diskperf_disk_flush_requests_total", "device", "vda") == 102);
  CHECK(sample(fs, "diskperf_disk_flush_requests_time_seconds_total", "device", "vda") == Approx(0.007));
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "md127") == 4294967297.0);
  CHECK(sample(fs, "diskperf_diskstats_rejected_lines") == 0);
}

TEST_CASE("diskstats collector: fields the kernel does not print are absent", "[diskstats]") {
  auto fs = collect_from(fixture("diskstats/linux-4.17"));
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "sda") == 114882);
  CHECK_FALSE(diskperf::test::family(fs, "diskperf_disk_discards_completed_total"));
  CHECK_FALSE(diskperf::test::family(fs, "diskperf_disk_flush_requests_total"));
  auto legacy = collect_from(fixture("diskstats/linux-2.6"));
  CHECK(sample(legacy, "diskperf_disk_partition_reads_issued_total", "device", "hda1") == 35486);
  CHECK(sample(legacy, "diskperf_disk_partition_read_issued_bytes_total", "device", "hda1") == 38030.0 * 512);
  CHECK_FALSE(sample(legacy, "diskperf_disk_reads_completed_total", "device", "hda1"));
  CHECK(sample(legacy, "diskperf_disk_reads_completed_total", "device", "hda") == 446216);
}

TEST_CASE("diskstats bytes are sectors x 512 even on a 4 KiB-logical-block NVMe disk", "[diskstats]") {
  // The fixture's sysfs says logical_block_size 4096; diskstats sectors stay 512 bytes.
  REQUIRE(diskperf::test::slurp(fixture("diskstats/nvme-4k/sys/block/nvme0n1/queue/logical_block_size")) == "4096\n");
  auto fs = collect_from(fixture("diskstats/nvme-4k/proc"));
  CHECK(sample(fs, "diskperf_disk_read_bytes_total", "device", "nvme0n1") == 2048.0 * 512);
  CHECK(sample(fs, "diskperf_disk_written_bytes_total", "device", "nvme0n1") == 1024.0 * 512);
}

TEST_CASE("diskstats default filter drops ram, zram, loop, fd and partitions", "[diskstats]") {
  auto fs = collect_from(fixture("diskstats/linux-5.5"), std::nullopt);
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "vda"));
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "dm-0"));
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "md127"));
  CHECK_FALSE(sample(fs, "diskperf_disk_reads_completed_total", "device", "vda1"));
  CHECK_FALSE(sample(fs, "diskperf_disk_reads_completed_total", "device", "loop0"));
  CHECK_FALSE(sample(fs, "diskperf_disk_reads_completed_total", "device", "zram0"));
  DeviceFilter f(std::nullopt, std::nullopt);
  CHECK_FALSE(f.accepts("nvme0n1p2"));
  CHECK(f.accepts("nvme0n1"));
  CHECK_FALSE(f.accepts("ram0"));
  CHECK_FALSE(f.accepts("fd0"));
  CHECK_FALSE(f.accepts("sdaa3"));
  CHECK(f.accepts("sdaa"));
  DeviceFilter both(std::string("^(loop|vd)"), std::string("^loop7$"));
  CHECK(both.accepts("loop3"));
  CHECK(both.accepts("vda"));
  CHECK_FALSE(both.accepts("loop7"));
  CHECK_FALSE(both.accepts("sda"));
}

TEST_CASE("diskstats collector: a malformed line never hides the others", "[diskstats][bad-input]") {
  diskperf::test::TempDir root;
  root.write("diskstats", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\nbogus line\n8 16 sdb 1 2 3 4 5 6 7 8 9 10 1");
  auto fs = collect_from(root.str());
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "sda") == 1);
  CHECK_FALSE(sample(fs, "diskperf_disk_reads_completed_total", "device", "sdb"));
  CHECK(sample(fs, "diskperf_diskstats_rejected_lines") == 2);
}

TEST_CASE("diskstats collector: missing or empty file", "[diskstats][bad-input]") {
  diskperf::test::TempDir root;
  HostPaths paths;
  paths.procfs = root.str();
  auto filter = std::make_shared<DeviceFilter>(std::nullopt, std::nullopt);
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<DiskstatsCollector>(paths, filter));
  Gatherer g(std::move(cs));

  auto missing = g.Collect();
  CHECK(sample(missing, "diskperf_scrape_collector_success", "collector", "diskstats") == 0);
  CHECK(sample(missing, "diskperf_scrape_collector_duration_seconds", "collector", "diskstats"));
  CHECK(sample(missing, "diskperf_build_info") == 1);
  CHECK_FALSE(diskperf::test::family(missing, "diskperf_disk_reads_completed_total"));

  root.write("diskstats", "");
  auto empty = g.Collect();
  CHECK(sample(empty, "diskperf_scrape_collector_success", "collector", "diskstats") == 1);
  CHECK(sample(empty, "diskperf_diskstats_rejected_lines") == 0);

  root.write("diskstats", "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
  auto ok = g.Collect();
  CHECK(sample(ok, "diskperf_scrape_collector_success", "collector", "diskstats") == 1);
  CHECK(sample(ok, "diskperf_disk_reads_completed_total", "device", "sda") == 1);

  // A device that disappears between two scrapes is gone from the second.
  root.write("diskstats", "8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n");
  auto after = g.Collect();
  CHECK_FALSE(sample(after, "diskperf_disk_reads_completed_total", "device", "sda"));
  CHECK(sample(after, "diskperf_disk_reads_completed_total", "device", "sdb") == 1);
}

TEST_CASE("diskstats collector: 5,000 devices in one read", "[diskstats]") {
  diskperf::test::TempDir root;
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += "253 " + std::to_string(i) + " dm-" + std::to_string(i) + " 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
  root.write("diskstats", text);
  auto fs = collect_from(root.str());
  CHECK(diskperf::test::family(fs, "diskperf_disk_reads_completed_total")->size() == 5000);
  CHECK(sample(fs, "diskperf_disk_reads_completed_total", "device", "dm-4321") == 7);
}

TEST_CASE("device filter never accepts an over-long name (no regex stack overflow)", "[diskstats][bad-input]") {
  DeviceFilter f(std::nullopt, std::nullopt);
  CHECK_FALSE(f.accepts(std::string(30000, 'a')));
  CHECK(f.accepts(std::string(128, 'a')));
}

TEST_CASE("a FIFO where a file should be is refused at once", "[diskstats][bad-input]") {
  diskperf::test::TempDir root;
  REQUIRE(::mkfifo((root.path / "diskstats").c_str(), 0600) == 0);
  FileContent f = read_file(root.str() + "/diskstats");  // would block forever without O_NONBLOCK
  CHECK(f.status == ReadStatus::other);
  CHECK(f.error == "read " + root.str() + "/diskstats: not a regular file");
  HostDir dir(root.str());
  CHECK(dir.read_file("diskstats").error == "read " + root.str() + "/diskstats: not a regular file");
}

namespace {

// A /proc/diskstats line of the 17-field layout: `times` are read, write, io_ticks, weighted,
// discard and flush time (ms), `ios` the completed reads, writes, discards and flushes.
std::string line17(const std::string& devno_name, std::array<std::uint64_t, 4> ios, std::array<std::uint64_t, 6> t) {
  auto n = [](std::uint64_t v) { return " " + std::to_string(v); };
  return devno_name + n(ios[0]) + " 0 8" + n(t[0]) + n(ios[1]) + " 0 8" + n(t[1]) + " 0" + n(t[2]) + n(t[3]) +
         n(ios[2]) + " 0 8" + n(t[4]) + n(ios[3]) + n(t[5]) + "\n";
}

constexpr std::uint64_t k2e32 = std::uint64_t{1} << 32;

// Two-scrape setups: a procfs and a sysfs with dm-0's uuid, and a collector over both.
struct WrapFixture {
  diskperf::test::TempDir root;
  HostPaths paths;
  DiskstatsCollector collector;
  WrapFixture()
      : paths{(root.path / "proc").string(), (root.path / "sys").string(), "/nonexistent"},
        collector(paths, std::make_shared<DeviceFilter>(std::string("."), std::nullopt)) {
    uuid("LVM-first");
  }
  void uuid(const std::string& u) const { root.write("sys/block/dm-0/dm/uuid", u + "\n"); }
  Families scrape(const std::string& diskstats) {
    root.write("proc/diskstats", diskstats);
    Families out;
    REQUIRE_FALSE(collector.collect(out));
    return out;
  }
};

const char* const kTimeFamilies[] = {
    "diskperf_disk_read_time_seconds_total",    "diskperf_disk_write_time_seconds_total",
    "diskperf_disk_io_time_seconds_total",      "diskperf_disk_io_time_weighted_seconds_total",
    "diskperf_disk_discard_time_seconds_total", "diskperf_disk_flush_requests_time_seconds_total",
};

}  // namespace

TEST_CASE("diskstats: 32-bit time fields that wrap are exported unwrapped, in seconds", "[diskstats][wrap]") {
  WrapFixture f;
  const std::array<std::uint64_t, 6> high{k2e32 - 1000, k2e32 - 2000, k2e32 - 10, k2e32 - 1, k2e32 - 5, k2e32 - 7};
  Families before = f.scrape(line17("253 0 dm-0", {10, 20, 30, 40}, high) + line17("8 0 sda", {1, 1, 1, 1}, high));
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(kTimeFamilies[i]);
    CHECK(sample(before, kTimeFamilies[i], "device", "dm-0") == Approx(high[i] / 1000.0));
  }
  // Every time field wrapped; counts went up (dm-0) or stayed (sda).
  const std::array<std::uint64_t, 6> low{500, 600, 700, 800, 900, 1000};
  Families after = f.scrape(line17("253 0 dm-0", {11, 21, 31, 41}, low) + line17("8 0 sda", {1, 1, 1, 1}, low));
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(kTimeFamilies[i]);
    CHECK(sample(after, kTimeFamilies[i], "device", "dm-0") == (k2e32 + low[i]) / 1000.0);
    CHECK(sample(after, kTimeFamilies[i], "device", "sda") == (k2e32 + low[i]) / 1000.0);
  }
  CHECK(sample(after, "diskperf_disk_io_time_weighted_seconds_total", "device", "dm-0") == 4294968.096);
  CHECK(sample(after, "diskperf_disk_reads_completed_total", "device", "dm-0") == 11);  // counts as they are
  // The offset stays: a later read without a wrap goes on from there.
  Families later = f.scrape(line17("253 0 dm-0", {12, 22, 32, 42}, {501, 601, 701, 801, 901, 1001}));
  CHECK(sample(later, "diskperf_disk_read_time_seconds_total", "device", "dm-0") == (k2e32 + 501) / 1000.0);
  // A device no longer listed is forgotten: back with small values, it shows them.
  Families back = f.scrape(line17("8 0 sda", {2, 2, 2, 2}, {3, 3, 3, 3, 3, 3}));
  CHECK(sample(back, "diskperf_disk_read_time_seconds_total", "device", "sda") == Approx(0.003));
}

TEST_CASE("diskstats: a dm volume created again under the same number starts over", "[diskstats][wrap]") {
  WrapFixture f;
  const std::array<std::uint64_t, 6> high{k2e32 - 100, k2e32 - 100, k2e32 - 100, k2e32 - 100, 0, 0};
  f.scrape(line17("253 0 dm-0", {10, 20, 0, 0}, high));
  Families wrapped = f.scrape(line17("253 0 dm-0", {11, 21, 0, 0}, {500, 500, 500, 500, 0, 0}));
  CHECK(sample(wrapped, "diskperf_disk_read_time_seconds_total", "device", "dm-0") == (k2e32 + 500) / 1000.0);
  f.uuid("LVM-second");  // removed and created again: 253:0 again, another uuid, more I/O already done
  Families after = f.scrape(line17("253 0 dm-0", {50, 60, 0, 0}, {100, 200, 300, 400, 0, 0}));
  CHECK(sample(after, "diskperf_disk_read_time_seconds_total", "device", "dm-0") == Approx(0.1));
  CHECK(sample(after, "diskperf_disk_io_time_weighted_seconds_total", "device", "dm-0") == Approx(0.4));
  // Created again after a wrap, with times above the old ones: the uuid tells it too.
  f.scrape(line17("253 0 dm-0", {51, 61, 0, 0}, high));
  f.scrape(line17("253 0 dm-0", {52, 62, 0, 0}, {10, 10, 10, 10, 0, 0}));
  f.uuid("LVM-third");
  Families third = f.scrape(line17("253 0 dm-0", {900, 900, 0, 0}, {20, 20, 20, 20, 0, 0}));
  CHECK(sample(third, "diskperf_disk_read_time_seconds_total", "device", "dm-0") == Approx(0.02));
  // Another major:minor under the same name starts over too.
  f.scrape(line17("253 0 dm-0", {901, 901, 0, 0}, {k2e32 - 1, k2e32 - 1, k2e32 - 1, k2e32 - 1, 0, 0}));
  Families moved = f.scrape(line17("253 4 dm-0", {902, 902, 0, 0}, {5, 5, 5, 5, 0, 0}));
  CHECK(sample(moved, "diskperf_disk_read_time_seconds_total", "device", "dm-0") == Approx(0.005));
}

TEST_CASE("diskstats: statistics reset (a completed count went down) start over", "[diskstats][wrap]") {
  WrapFixture f;
  const std::array<std::uint64_t, 6> high{k2e32 - 100, k2e32 - 100, k2e32 - 100, k2e32 - 100, 9, 9};
  f.scrape(line17("8 16 sdb", {1000, 2000, 3, 4}, high));
  Families wrapped = f.scrape(line17("8 16 sdb", {1001, 2001, 3, 4}, {400, 400, 400, 400, 9, 9}));
  CHECK(sample(wrapped, "diskperf_disk_write_time_seconds_total", "device", "sdb") == (k2e32 + 400) / 1000.0);
  Families after = f.scrape(line17("8 16 sdb", {1001, 5, 3, 4}, {100, 200, 300, 400, 9, 9}));  // writes down
  CHECK(sample(after, "diskperf_disk_read_time_seconds_total", "device", "sdb") == Approx(0.1));
  CHECK(sample(after, "diskperf_disk_write_time_seconds_total", "device", "sdb") == Approx(0.2));
  CHECK(sample(after, "diskperf_disk_io_time_weighted_seconds_total", "device", "sdb") == Approx(0.4));
  CHECK(sample(after, "diskperf_disk_flush_requests_time_seconds_total", "device", "sdb") == Approx(0.009));
  // A value above 32 bits that goes down is not a wrap either (no such field wraps at 2^32).
  f.scrape(line17("8 16 sdb", {1002, 6, 3, 4}, {k2e32 + 50, 300, 400, 500, 9, 9}));
  Families big = f.scrape(line17("8 16 sdb", {1003, 7, 3, 4}, {60, 301, 401, 501, 9, 9}));
  CHECK(sample(big, "diskperf_disk_read_time_seconds_total", "device", "sdb") == Approx(0.06));
}

TEST_CASE("diskstats: a small drop is a new start, not a wrap; a rejected line forgets nothing",
          "[diskstats][wrap]") {
  WrapFixture f;
  // A disk replaced under the same number with more I/O done and times a little lower: no wrap.
  f.scrape(line17("8 32 sdc", {20, 20, 0, 0}, {40, 40, 40, 40, 0, 0}));
  Families small = f.scrape(line17("8 32 sdc", {21, 21, 0, 0}, {39, 39, 39, 39, 0, 0}));
  CHECK(sample(small, "diskperf_disk_read_time_seconds_total", "device", "sdc") == Approx(0.039));
  // A read with a line that does not parse keeps the state of every device: the next wrap counts.
  const std::array<std::uint64_t, 6> high{k2e32 - 300, k2e32 - 300, k2e32 - 300, k2e32 - 300, 0, 0};
  f.scrape(line17("8 32 sdc", {22, 22, 0, 0}, high));
  f.scrape(" 8 32 sdc 11 0 800 abc 100\n");
  Families wrapped = f.scrape(line17("8 32 sdc", {23, 23, 0, 0}, {100, 100, 100, 100, 0, 0}));
  CHECK(sample(wrapped, "diskperf_disk_read_time_seconds_total", "device", "sdc") == (k2e32 + 100) / 1000.0);
}

TEST_CASE("diskstats unwrap: concurrent scrapes see one running value", "[diskstats][wrap]") {
  WrapFixture f;
  f.scrape(line17("253 0 dm-0", {1, 1, 1, 1}, {k2e32 - 1, 0, 0, 0, 0, 0}));
  f.root.write("proc/diskstats", line17("253 0 dm-0", {2, 2, 2, 2}, {7, 0, 0, 0, 0, 0}));
  std::vector<std::thread> threads;
  std::vector<std::optional<double>> seen(4);
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      Families out;
      if (!f.collector.collect(out)) seen[t] = sample(out, "diskperf_disk_read_time_seconds_total", "device", "dm-0");
    });
  for (auto& th : threads) th.join();
  for (const auto& v : seen) CHECK(v == (k2e32 + 7) / 1000.0);
}
