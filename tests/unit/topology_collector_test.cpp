#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <set>

#include "collectors/topology_collector.h"
#include "collectors/volume_topology.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {
using Labels = std::map<std::string, std::string>;

std::shared_ptr<DeviceFilter> all() { return std::make_shared<DeviceFilter>(std::string("."), std::nullopt); }

Families collect(const std::string& scenario, std::shared_ptr<DmTableSource> tables = nullptr) {
  if (!tables) tables = std::make_shared<DirectoryDmTableSource>(dm_tables_dir(scenario));
  TopologyCollector c(sysfs_fixture(scenario), all(), tables);
  Families out;
  REQUIRE_FALSE(c.collect(out));
  return out;
}
}  // namespace

TEST_CASE("topology: LVM volume striped over three Azure data disks, 64 KiB chunk", "[topology]") {
  Families fs = collect("azure");
  const std::string uuid = "LVM-Xk2wQp9Rv3Ls8Tn4Ym5Zb6Cd7Ef8Gh9Ij0Kl1Mn2Op3Qr4St5Uv6Wx7Yz8Ab9Cd0";
  for (const char* m : {"sdc", "sdd", "sde"}) {
    INFO(m);
    CHECK(value(fs, "diskperf_volume_member_info",
                {{"volume", "dm-0"}, {"kind", "dm"}, {"name", "vg_data-lv_data"}, {"uuid", uuid},
                 {"member", m}, {"member_disk", m}}) == 1);
    CHECK(value(fs, "diskperf_volume_leaf_disk_info", {{"volume", "dm-0"}, {"disk", m}}) == 1);
  }
  CHECK(count(fs, "diskperf_volume_member_info") == 3);
  CHECK(count(fs, "diskperf_volume_leaf_disk_info") == 3);
  CHECK(value(fs, "diskperf_volume_dm_table_available", {{"volume", "dm-0"}, {"reason", ""}}) == 1);
  CHECK(value(fs, "diskperf_volume_dm_segment_info", {{"volume", "dm-0"}, {"segment", "0"}, {"target", "striped"}}) == 1);
  CHECK(value(fs, "diskperf_volume_dm_segment_size_bytes", {{"volume", "dm-0"}}) == 12884877312.0 * 512);
  CHECK(value(fs, "diskperf_volume_dm_stripes", {{"volume", "dm-0"}, {"segment", "0"}}) == 3);
  CHECK(value(fs, "diskperf_volume_dm_stripe_chunk_bytes", {{"volume", "dm-0"}, {"segment", "0"}}) == 65536);
  CHECK_FALSE(family(fs, "diskperf_volume_md_info"));
}

TEST_CASE("topology: no device-mapper here: table unavailable, membership still from sysfs", "[topology]") {
  // The fixture's devfs has mapper/ links but no mapper/control, like this host.
  Families fs = collect("azure", std::make_shared<LibDevmapperTableSource>(sysfs_fixture("azure").devfs));
  CHECK(count(fs, "diskperf_volume_member_info", {{"volume", "dm-0"}}) == 3);
  CHECK(value(fs, "diskperf_volume_dm_table_available",
              {{"volume", "dm-0"},
               {"reason", "no device-mapper control node " + sysfs_fixture("azure").devfs + "/mapper/control"}}) == 0);
  CHECK_FALSE(family(fs, "diskperf_volume_dm_segment_info"));
  CHECK_FALSE(family(fs, "diskperf_volume_dm_stripes"));
  // The real /dev of this machine: no control node either.
  LibDevmapperTableSource host("/dev");
  CHECK(host.read_table("dm-0", 254, 0).status == DmTableText::Status::unavailable);
}

TEST_CASE("topology: a table given as text; a malformed one says why", "[topology]") {
  auto good = std::make_shared<TextDmTableSource>(std::map<std::string, std::string>{
      {"dm-0", "0 6442450944 striped 2 128 8:32 2048 8:48 2048\n6442450944 6442426368 linear 8:64 2048\n"}});
  Families fs = collect("azure", good);
  CHECK(value(fs, "diskperf_volume_dm_stripes", {{"volume", "dm-0"}, {"segment", "0"}}) == 2);
  CHECK(value(fs, "diskperf_volume_dm_segment_info", {{"volume", "dm-0"}, {"segment", "1"}, {"target", "linear"}}) == 1);
  CHECK(count(fs, "diskperf_volume_dm_stripes") == 1);
  auto bad = std::make_shared<TextDmTableSource>(
      std::map<std::string, std::string>{{"dm-0", "0 100 striped 3 128 8:32 2048\n"}});
  Families b = collect("azure", bad);
  CHECK(value(b, "diskperf_volume_dm_table_available",
              {{"volume", "dm-0"}, {"reason", "parse: line 1: striped: expected 2 + 2 x 3 arguments, got 4"}}) == 0);
  CHECK(count(b, "diskperf_volume_member_info") == 3);
}

TEST_CASE("topology: mdadm RAID0 over four NVMe namespaces under an LV under dm-crypt", "[topology]") {
  Families fs = collect("nvme-stack");
  const char* nvme[] = {"nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"};
  for (const char* n : nvme) {
    INFO(n);
    CHECK(value(fs, "diskperf_volume_member_info",
                {{"volume", "md127"}, {"kind", "md"}, {"name", "data"},
                 {"uuid", "5e8a3c1f-0b7d-4a2e-9c61-2f4d8e7b1a09"}, {"member", n}, {"member_disk", n}}) == 1);
    // Leaf disks resolved level by level for every volume of the stack.
    for (const char* v : {"md127", "dm-0", "dm-1"}) CHECK(value(fs, "diskperf_volume_leaf_disk_info", {{"volume", v}, {"disk", n}}) == 1);
  }
  CHECK(value(fs, "diskperf_volume_md_info",
              {{"volume", "md127"}, {"name", "data"}, {"level", "raid0"}, {"array_state", "clean"}}) == 1);
  CHECK(value(fs, "diskperf_volume_md_raid_disks", {{"volume", "md127"}}) == 4);
  CHECK(value(fs, "diskperf_volume_md_chunk_bytes", {{"volume", "md127"}}) == 524288);
  // One level at a time in the membership series.
  CHECK(value(fs, "diskperf_volume_member_info",
              {{"volume", "dm-0"}, {"name", "vg_nvme-lv_nvme"}, {"member", "md127"}, {"member_disk", "md127"}}) == 1);
  CHECK(value(fs, "diskperf_volume_member_info",
              {{"volume", "dm-1"}, {"name", "datacrypt"},
               {"uuid", "CRYPT-LUKS2-3f1b9a2c7d4e4f5a8b6c0d1e2f3a4b5c-datacrypt"}, {"member", "dm-0"}}) == 1);
  CHECK(count(fs, "diskperf_volume_member_info") == 6);
  CHECK(count(fs, "diskperf_volume_leaf_disk_info") == 12);
  CHECK(value(fs, "diskperf_volume_dm_segment_info", {{"volume", "dm-0"}, {"target", "linear"}}) == 1);
  CHECK(value(fs, "diskperf_volume_dm_segment_info", {{"volume", "dm-1"}, {"target", "crypt"}}) == 1);
  CHECK_FALSE(family(fs, "diskperf_volume_dm_stripes"));
  // The crypt key field is never exported.
  for (const auto& f : fs)
    for (std::size_t i = 0; i < f.size(); ++i)
      for (const auto& l : f.labels(i)) CHECK(l.value.find("logon") == std::string::npos);
}

TEST_CASE("topology: members that are partitions resolve to their whole disks", "[topology]") {
  Families fs = collect("partitions");
  CHECK(value(fs, "diskperf_volume_member_info",
              {{"volume", "dm-0"}, {"name", "vg_part-lv_part"}, {"member", "sdb1"}, {"member_disk", "sdb"}}) == 1);
  CHECK(value(fs, "diskperf_volume_member_info",
              {{"volume", "dm-0"}, {"member", "sdc1"}, {"member_disk", "sdc"}}) == 1);
  CHECK(value(fs, "diskperf_volume_member_info", {{"volume", "md1"}, {"kind", "md"}, {"member", "sdb2"}, {"member_disk", "sdb"}}) == 1);
  CHECK(value(fs, "diskperf_volume_leaf_disk_info", {{"volume", "dm-0"}, {"disk", "sdb"}}) == 1);
  CHECK(value(fs, "diskperf_volume_leaf_disk_info", {{"volume", "dm-0"}, {"disk", "sdc"}}) == 1);
  CHECK(count(fs, "diskperf_volume_leaf_disk_info", {{"volume", "dm-0"}}) == 2);
  CHECK(count(fs, "diskperf_volume_dm_segment_info", {{"volume", "dm-0"}, {"target", "linear"}}) == 2);
  CHECK(value(fs, "diskperf_volume_dm_segment_size_bytes", {{"volume", "dm-0"}, {"segment", "1"}}) == 1048576.0 * 512);
  CHECK(value(fs, "diskperf_volume_md_info", {{"volume", "md1"}, {"level", "raid1"}, {"array_state", "active"}, {"name", ""}}) == 1);
  CHECK(value(fs, "diskperf_volume_md_chunk_bytes", {{"volume", "md1"}}) == 0);
}

TEST_CASE("topology: vanished members and volumes, filters, unreadable /sys/block", "[topology]") {
  TempDir tmp;
  HostPaths p = copy_fixture("nvme-stack", tmp);
  auto tables = std::make_shared<DirectoryDmTableSource>((tmp.path / "dmtables").string());
  // A member's directory disappears: its slaves/ link dangles, membership by name remains.
  std::filesystem::remove_all(tmp.path / "sys/devices/pci0000:00/0000:00:07.0/nvme/nvme3/nvme3n1");
  // A volume's dm/ and table disappear mid-way.
  std::filesystem::remove_all(tmp.path / "sys/devices/virtual/block/dm-1/dm");
  std::filesystem::remove(tmp.path / "dmtables/dm-0");
  TopologyCollector c(p, all(), tables);
  Families fs;
  REQUIRE_FALSE(c.collect(fs));
  CHECK(value(fs, "diskperf_volume_member_info", {{"volume", "md127"}, {"member", "nvme3n1"}, {"member_disk", "nvme3n1"}}) == 1);
  CHECK(value(fs, "diskperf_volume_member_info", {{"volume", "dm-1"}, {"kind", "other"}, {"member", "dm-0"}}) == 1);
  CHECK(value(fs, "diskperf_volume_dm_table_available",
              {{"volume", "dm-0"}, {"reason", "no table file " + (tmp.path / "dmtables/dm-0").string()}}) == 0);
  CHECK(count(fs, "diskperf_volume_dm_table_available") == 1);

  TopologyCollector only_md(sysfs_fixture("nvme-stack"), std::make_shared<DeviceFilter>(std::string("^md"), std::nullopt),
                            std::make_shared<DirectoryDmTableSource>(dm_tables_dir("nvme-stack")));
  Families md;
  REQUIRE_FALSE(only_md.collect(md));
  CHECK(count(md, "diskperf_volume_member_info") == 4);
  CHECK_FALSE(family(md, "diskperf_volume_dm_table_available"));

  HostPaths none;
  none.sysfs = "/nonexistent/sys";
  TopologyCollector broken(none, all(), tables);
  Families out;
  auto err = broken.collect(out);
  REQUIRE(err);
  CHECK(*err == "list /nonexistent/sys/block: cannot read directory");
}

TEST_CASE("leaf disks of a crafted slaves/ clique stay linear", "[topology][bad-input]") {
  // Five dm devices each listing the other four, plus sdz under dm-0: before,
  // this took minutes (16 levels of 4-way recursion); each volume is now
  // expanded once.
  std::map<std::string, VolumeInfo> volumes;
  for (int i = 0; i < 5; ++i) {
    VolumeInfo v;
    v.device = "dm-" + std::to_string(i);
    for (int j = 0; j < 5; ++j)
      if (j != i) v.members.push_back({"dm-" + std::to_string(j), "dm-" + std::to_string(j)});
    volumes[v.device] = v;
  }
  volumes["dm-0"].members.push_back({"sdz", "sdz"});
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) CHECK(leaf_disks(volumes, "dm-" + std::to_string(i)) == std::set<std::string>{"sdz"});
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
}
