// One device name in every collector (the kernel's, as /proc/diskstats spells it), partitions told
// by sysfs rather than by name, and label values without control characters; on the `cciss` and
// `xen` fixture trees (tests/fixtures/make_sysfs_fixtures.sh).
#include <catch2/catch.hpp>

#include "collectors/diskstats_collector.h"
#include "collectors/queue_collector.h"
#include "collectors/topology_collector.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {

HostPaths with_proc(const std::string& scenario) {
  HostPaths p = sysfs_fixture(scenario);
  p.procfs = std::string(DISKPERF_SYSFS_FIXTURES) + "/" + scenario + "/proc";
  return p;
}

std::shared_ptr<const DeviceFilter> by_default() {
  return std::make_shared<const DeviceFilter>(std::nullopt, std::nullopt);
}

template <typename C>
Families collect(C&& c) {
  Families out;
  REQUIRE_FALSE(c.collect(out));
  return out;
}

// Every label value of every sample, for checks that no collector shows the sysfs spelling.
std::vector<std::string> label_values(const Families& fs) {
  std::vector<std::string> out;
  for (const MetricFamily& f : fs)
    for (std::size_t i = 0; i < f.size(); ++i)
      for (const Label& l : f.labels(i)) out.push_back(f.name + " " + l.name + "=" + l.value);
  return out;
}

}  // namespace

TEST_CASE("cciss: every collector labels cciss/c0d0 as /proc/diskstats does", "[names]") {
  const HostPaths p = with_proc("cciss");
  Families ds = collect(DiskstatsCollector(p, by_default()));
  CHECK(sample(ds, "diskperf_disk_reads_completed_total", "device", "cciss/c0d0") == 51234);
  CHECK(sample(ds, "diskperf_disk_reads_completed_total", "device", "dm-0") == 50900);
  CHECK_FALSE(sample(ds, "diskperf_disk_reads_completed_total", "device", "cciss/c0d0p1"));  // a partition

  Families q = collect(QueueCollector(p, by_default()));
  CHECK(sample(q, "diskperf_disk_logical_block_size_bytes", "device", "cciss/c0d0") == 512);
  CHECK(sample(q, "diskperf_disk_size_bytes", "device", "cciss/c0d0") == 286677120.0 * 512);
  CHECK(value(q, "diskperf_disk_partition_info",
              {{"device", "cciss/c0d0p1"}, {"disk", "cciss/c0d0"}, {"partition", "1"}}) == 1);
  CHECK(value(q, "diskperf_disk_partition_start_bytes", {{"device", "cciss/c0d0p1"}}) == 2048.0 * 512);
  CHECK(value(q, "diskperf_disk_size_bytes", {{"device", "cciss/c0d0p1"}}) == 286675072.0 * 512);

  Families t = collect(TopologyCollector(p, by_default(), std::make_shared<DirectoryDmTableSource>(dm_tables_dir("cciss"))));
  CHECK(value(t, "diskperf_volume_member_info",
              {{"volume", "dm-0"}, {"member", "cciss/c0d0p1"}, {"member_disk", "cciss/c0d0"}}) == 1);
  CHECK(value(t, "diskperf_volume_leaf_disk_info", {{"volume", "dm-0"}, {"disk", "cciss/c0d0"}}) == 1);

  for (const Families* fs : {&ds, &q, &t})
    for (const std::string& v : label_values(*fs)) {
      INFO(v);
      CHECK(v.find('!') == std::string::npos);
    }
}

TEST_CASE("cciss: a device regex matches the /proc/diskstats spelling in every collector", "[names]") {
  const HostPaths p = with_proc("cciss");
  auto only = std::make_shared<const DeviceFilter>(std::string("^cciss/c0d0$"), std::nullopt);
  Families ds = collect(DiskstatsCollector(p, only));
  Families q = collect(QueueCollector(p, only));
  CHECK(count(ds, "diskperf_disk_reads_completed_total") == 1);
  CHECK(sample(ds, "diskperf_disk_reads_completed_total", "device", "cciss/c0d0") == 51234);
  CHECK(count(q, "diskperf_disk_logical_block_size_bytes") == 1);
  CHECK(sample(q, "diskperf_disk_logical_block_size_bytes", "device", "cciss/c0d0") == 512);
}

TEST_CASE("cciss: a vendor string holding a NUL is written with U+FFFD", "[names][bad-input]") {
  Families q = collect(QueueCollector(with_proc("cciss"), by_default()));
  const MetricFamily* info = family(q, "diskperf_disk_info");
  REQUIRE(info);
  std::optional<std::string> vendor;
  for (std::size_t i = 0; i < info->size(); ++i) {
    const auto labels = info->labels(i);
    if (labels.at(0).value != "cciss/c0d0") continue;
    for (const Label& l : labels)
      if (l.name == "vendor") vendor = l.value;
  }
  CHECK(vendor == std::string("HP\xEF\xBF\xBD" "COMPAQ"));
  for (const std::string& v : label_values(q)) {
    INFO(v);
    CHECK(v.find('\0') == std::string::npos);
  }
}

TEST_CASE("xen: whole disks named like partitions are kept, partitions are not", "[names][diskstats]") {
  const HostPaths p = with_proc("xen");
  Families ds = collect(DiskstatsCollector(p, by_default()));
  CHECK(sample(ds, "diskperf_disk_reads_completed_total", "device", "xvda1") == 9120);
  CHECK(sample(ds, "diskperf_disk_reads_completed_total", "device", "xvdb") == 1200);
  CHECK_FALSE(sample(ds, "diskperf_disk_reads_completed_total", "device", "xvdb1"));
  Families q = collect(QueueCollector(p, by_default()));
  CHECK(sample(q, "diskperf_disk_size_bytes", "device", "xvda1") == 16777216.0 * 512);
  CHECK(value(q, "diskperf_disk_partition_info", {{"device", "xvdb1"}, {"disk", "xvdb"}}) == 1);

  // The same diskstats without sysfs entries: the names decide, as node_exporter's default does.
  HostPaths bare = p;
  bare.sysfs = "/nonexistent";
  Families named = collect(DiskstatsCollector(bare, by_default()));
  CHECK_FALSE(sample(named, "diskperf_disk_reads_completed_total", "device", "xvda1"));
  CHECK(sample(named, "diskperf_disk_reads_completed_total", "device", "xvdb") == 1200);

  // An explicit regex is all that applies: here the partition is exported.
  Families explicit_exclude =
      collect(DiskstatsCollector(p, std::make_shared<const DeviceFilter>(std::nullopt, std::string("^loop"))));
  CHECK(sample(explicit_exclude, "diskperf_disk_reads_completed_total", "device", "xvdb1") == 1100);
}

TEST_CASE("device filter: the default drops partitions by kind, names only without one", "[names]") {
  DeviceFilter f(std::nullopt, std::nullopt);
  CHECK(f.uses_kind());
  CHECK(f.accepts("xvda1", DeviceKind::whole));
  CHECK_FALSE(f.accepts("xvda1", DeviceKind::unknown));
  CHECK_FALSE(f.accepts("xvda1", DeviceKind::partition));
  CHECK_FALSE(f.accepts("mmcblk0p1", DeviceKind::partition));
  CHECK(f.accepts("mmcblk0p1", DeviceKind::unknown));  // node_exporter's names do not cover it
  CHECK_FALSE(f.accepts("loop0", DeviceKind::whole));
  CHECK_FALSE(f.accepts("zram0", DeviceKind::whole));
  CHECK_FALSE(f.accepts("ram1", DeviceKind::whole));
  CHECK_FALSE(f.accepts("fd0", DeviceKind::whole));
  CHECK(f.accepts("nvme0n1", DeviceKind::whole));
  DeviceFilter ex(std::nullopt, std::string("^sdb$"));
  CHECK_FALSE(ex.uses_kind());
  CHECK(ex.accepts("sda1", DeviceKind::partition));
  CHECK(ex.accepts("loop0", DeviceKind::whole));
  CHECK_FALSE(ex.accepts("sdb", DeviceKind::whole));
  DeviceFilter in(std::string("^xvd"), std::nullopt);
  CHECK(in.accepts("xvdb1", DeviceKind::partition));
}
