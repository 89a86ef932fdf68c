#include <sys/stat.h>

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
