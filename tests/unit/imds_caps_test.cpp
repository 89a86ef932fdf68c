// Caps from what IMDS says: the tier of a size at every boundary, which disk is which LUN (by-lun,
// scsi1, NVMe nsid) on the generated fixture trees, and the precedence config > PerfCounters > IMDS.

#include <catch2/catch.hpp>

#include <filesystem>

#include "collectors/azure_collector.h"
#include "collectors/stable_names.h"
#include "collectors/tier_collector.h"
#include "config/config.h"
#include "config/imds_caps.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {

ImdsDisk data_disk(unsigned lun, std::string type, double gb, std::string caching = "None") {
  ImdsDisk d;
  d.lun = lun;
  d.name = "disk" + std::to_string(lun);
  d.storage_account_type = std::move(type);
  d.disk_size_gb = gb;
  d.caching = std::move(caching);
  return d;
}

ImdsCompute vm(std::vector<ImdsDisk> disks) {
  ImdsCompute c;
  c.vm_size = "Standard_E16ds_v5";
  c.data_disks = std::move(disks);
  ImdsDisk os;
  os.name = "osdisk";
  os.storage_account_type = "Premium_LRS";
  os.disk_size_gb = 30;
  os.caching = "ReadWrite";
  c.os_disk = os;
  return c;
}

Families caps_on(const std::string& scenario, const ImdsCompute* imds, const std::string& yaml = "",
                 std::shared_ptr<const PerfCountersParse> perfcounters = nullptr) {
  auto r = parse_config(yaml);
  REQUIRE(r.config);
  BlockView view(sysfs_fixture(scenario), nullptr, nullptr,
                 std::make_shared<DirectoryDmTableSource>(dm_tables_dir(scenario)));
  GatheredCaps g = gather_caps(view, nullptr, std::move(perfcounters), r.config->tiers, imds);
  REQUIRE_FALSE(g.error);
  Families out;
  emit_caps(out, g.caps);
  return out;
}

std::string tier_of(const std::string& family, double gib) {
  const DiskTier* t = tier_for_size(family, gib);
  return t ? t->name : "none";
}

}  // namespace

TEST_CASE("imds caps: the smallest tier at least as large, at every boundary", "[imds][tiers]") {
  const std::pair<double, const char*> premium[] = {
      {4, "P1"},     {8, "P2"},     {16, "P3"},    {32, "P4"},    {64, "P6"},        {128, "P10"}, {256, "P15"},
      {512, "P20"},  {1024, "P30"}, {2048, "P40"}, {4096, "P50"}, {8192, "P60"},     {16384, "P70"},
      {32767, "P80"}};
  double previous = 0;  // each tier covers sizes above the one before it, up to its own
  for (const auto& [gib, name] : premium) {
    INFO(gib);
    CHECK(tier_of("premium_ssd", gib) == name);
    CHECK(tier_of("premium_ssd", gib - 0.5) == name);
    CHECK(tier_of("premium_ssd", previous + 0.5) == name);
    CHECK(tier_of("premium_ssd", gib + 0.5) != name);
    previous = gib;
  }
  CHECK(tier_of("premium_ssd", 1000) == "P30");
  CHECK(tier_of("premium_ssd", 1025) == "P40");
  CHECK(tier_of("premium_ssd", 129) == "P15");
  CHECK(tier_of("premium_ssd", 1) == "P1");
  CHECK(tier_of("premium_ssd", 32768) == "none");
  CHECK(tier_of("standard_ssd", 4) == "E1");
  CHECK(tier_of("standard_ssd", 1023) == "E30");
  CHECK(tier_of("standard_ssd", 32767) == "E80");
  CHECK(tier_of("standard_hdd", 1) == "S4");
  CHECK(tier_of("standard_hdd", 33) == "S6");
  CHECK(tier_of("standard_hdd", 32768) == "none");
}

TEST_CASE("imds caps: storage account types and their tiers", "[imds][tiers]") {
  CHECK(tier_family_of("Premium_LRS") == "premium_ssd");
  CHECK(tier_family_of("Premium_ZRS") == "premium_ssd");
  CHECK(tier_family_of("StandardSSD_LRS") == "standard_ssd");
  CHECK(tier_family_of("StandardSSD_ZRS") == "standard_ssd");
  CHECK(tier_family_of("Standard_LRS") == "standard_hdd");
  CHECK(tier_family_of("UltraSSD_LRS") == "ultra");
  CHECK(tier_family_of("PremiumV2_LRS") == "premium_ssd_v2");
  CHECK(tier_family_of("premium_lrs") == "");
  CHECK(tier_family_of("") == "");

  ImdsTier p = imds_disk_tier(data_disk(0, "Premium_LRS", 1024));
  REQUIRE(p.tier);
  CHECK(p.tier->name == "P30");
  CHECK(p.builtin);
  ImdsDisk ultra = data_disk(1, "UltraSSD_LRS", 512);
  ultra.ops_per_second_throttle = 20000;
  ultra.bytes_per_second_throttle = 524288000;
  ImdsTier u = imds_disk_tier(ultra);
  REQUIRE(u.tier);
  CHECK(u.tier->name == "ultra");
  CHECK(u.tier->iops == 20000);
  CHECK(u.tier->bytes_per_second == 524288000);
  CHECK_FALSE(u.builtin);
  ultra.bytes_per_second_throttle.reset();
  CHECK_FALSE(imds_disk_tier(ultra).tier);
  ImdsTier v2 = imds_disk_tier(data_disk(2, "PremiumV2_LRS", 512));
  CHECK_FALSE(v2.tier);
  CHECK_THAT(v2.why_none, Catch::Contains("tiers.disks"));
  ImdsDisk no_size = data_disk(3, "Premium_LRS", 0);
  no_size.disk_size_gb.reset();
  CHECK_FALSE(imds_disk_tier(no_size).tier);
  CHECK_FALSE(imds_disk_tier(data_disk(4, "Premium_LRS", 40000)).tier);
  CHECK_FALSE(imds_disk_tier(data_disk(5, "Something_New", 128)).tier);
}

TEST_CASE("imds caps: LUNs from the remote NVMe controller's namespace ids", "[imds][block]") {
  CHECK(azure_nvme_role("MSFT NVMe Accelerator v1.0              \n", 1).os_disk);
  CHECK_FALSE(azure_nvme_role("MSFT NVMe Accelerator v1.0", 1).lun);
  CHECK(azure_nvme_role("MSFT NVMe Accelerator v1.0", 2).lun == 0u);
  CHECK(azure_nvme_role("MSFT NVMe Accelerator v1.0", 9).lun == 7u);
  CHECK_FALSE(azure_nvme_role("MSFT NVMe Accelerator v1.0", 0).os_disk);
  CHECK_FALSE(azure_nvme_role("Microsoft NVMe Direct Disk v2", 2).lun);
  CHECK_FALSE(azure_nvme_role("Microsoft NVMe Direct Disk v2", 1).os_disk);

  for (const char* scenario : {"azure-nvme", "azure-nvme-links"}) {
    INFO(scenario);
    const HostPaths p = sysfs_fixture(scenario);
    const StableNames n = read_stable_names(p.devfs, p.sysfs);
    CHECK(n.azure_lun.at("nvme0n2") == std::set<unsigned>{0});
    CHECK(n.azure_lun.at("nvme0n3") == std::set<unsigned>{1});
    CHECK(n.azure_lun.at("nvme0n4") == std::set<unsigned>{2});
    CHECK(n.azure_lun.count("nvme0n1") == 0);
    CHECK(n.azure_lun.count("nvme1n1") == 0);  // the local (temp) disk
    CHECK(n.azure_os_disk == std::set<std::string>{"nvme0n1"});
  }
  const HostPaths scsi = sysfs_fixture("azure");
  const StableNames s = read_stable_names(scsi.devfs, scsi.sysfs);
  CHECK(s.azure_lun.at("sdd") == std::set<unsigned>{1});
  CHECK(s.azure_os_disk == std::set<std::string>{"sda"});  // WALinuxAgent's disk/azure/root
  // A link to a device below a directory of /dev names it by its path there, as the kernel does.
  const HostPaths hp = sysfs_fixture("cciss");
  const StableNames c = read_stable_names(hp.devfs, hp.sysfs);
  CHECK(c.by_id.at("cciss/c0d0") == "cciss-3600508b1001c4d5e6f708192a3b4c5d6");
  CHECK(c.by_id.at("cciss/c0d0p1") == "cciss-3600508b1001c4d5e6f708192a3b4c5d6-part1");
}

TEST_CASE("imds caps: by-lun links win over scsi1 links and namespace ids", "[imds][block]") {
  TempDir tmp;
  std::filesystem::copy(std::string(DISKPERF_SYSFS_FIXTURES) + "/azure-nvme-links", tmp.path,
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  const std::filesystem::path dev = tmp.path / "dev";
  std::filesystem::remove(dev / "disk/azure/data/by-lun/2");
  std::filesystem::create_symlink("../../../../nvme0n4", dev / "disk/azure/data/by-lun/7");
  std::filesystem::create_directories(dev / "disk/azure/scsi1");
  std::filesystem::create_symlink("../../../nvme0n4", dev / "disk/azure/scsi1/lun5");
  std::filesystem::create_symlink("../../../nvme1n1", dev / "disk/azure/scsi1/lun6");
  std::filesystem::create_symlink("../../../../nvme0n3", dev / "disk/azure/data/by-lun/01");  // not a LUN name
  const StableNames n = read_stable_names(dev.string(), (tmp.path / "sys").string());
  CHECK(n.azure_lun.at("nvme0n4") == std::set<unsigned>{7});  // by-lun, not scsi1's 5 nor nsid's 2
  CHECK(n.azure_lun.at("nvme1n1") == std::set<unsigned>{6});  // scsi1 where by-lun says nothing
  CHECK(n.azure_lun.at("nvme0n2") == std::set<unsigned>{0});
}

TEST_CASE("imds caps: an NVMe VM with no config gets every disk, volume and VM cap", "[imds][tiers]") {
  ImdsCompute c = vm({data_disk(0, "Premium_LRS", 1024, "ReadOnly"), data_disk(1, "Premium_LRS", 128),
                      data_disk(2, "StandardSSD_LRS", 256)});
  c.data_disks[1].write_accelerator = true;
  for (const char* scenario : {"azure-nvme", "azure-nvme-links"}) {
    INFO(scenario);
    Families f = caps_on(scenario, &c);
    CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "nvme0n2") ==
          std::map<std::string, std::string>{{"device", "nvme0n2"}, {"tier", "P30"}, {"family", "premium_ssd"},
                                             {"source", "imds"}, {"burst_model", "on_demand"},
                                             {"bursting", "false"}, {"caching", "ReadOnly"}, {"azure_lun", "0"},
                                             {"write_accelerator", "false"}});
    CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", "nvme0n2"}}) == 5000);
    CHECK(value(f, "diskperf_tier_disk_throughput_cap_bytes_per_second", {{"device", "nvme0n2"}}) == 200e6);
    // P10 from IMDS bursts on credits as a configured P10 does.
    CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "nvme0n3").at("tier") == "P10");
    CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "nvme0n3").at("write_accelerator") == "true");
    CHECK(value(f, "diskperf_tier_disk_burst_iops_cap", {{"device", "nvme0n3"}}) == 3500);
    CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "nvme0n4").at("tier") == "E15");
    // The OS disk (nsid 1, or disk/azure/os): 30 GiB Premium_LRS is a P4.
    CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "nvme0n1").at("tier") == "P4");
    CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "nvme0n1").at("caching") == "ReadWrite");
    CHECK(count(f, "diskperf_tier_disk_info", {{"device", "nvme1n1"}}) == 0);
    // dm-0 striped over LUN 0 and 1: 5000 + 500 IOPS, 200 + 100 MB/s.
    CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 5500);
    CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 300e6);
    CHECK(labels_of(f, "diskperf_tier_vm_info", "vm_size", "Standard_E16ds_v5").at("source") == "imds");
  }
}

TEST_CASE("imds caps: a tiers rule, then PerfCounters, then IMDS", "[imds][tiers]") {
  // On the SCSI fixture sdc, sdd, sde are LUN 0-2 and sda is the OS disk.
  ImdsCompute c = vm({data_disk(0, "Premium_LRS", 128), data_disk(1, "Premium_LRS", 128),
                      data_disk(2, "Premium_LRS", 128)});
  AzureCollector azure(fixture("azure/PerfCounters.managed.sample"));
  Families ignored;
  REQUIRE_FALSE(azure.collect(ignored));
  Families f = caps_on("azure", &c, "tiers:\n  disks:\n    - {lun: 1, tier: P40}\n", azure.last_parse());
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdd").at("source") == "builtin");  // the rule
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdd").at("tier") == "P40");
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdc").at("source") == "perfcounters");
  CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", "sdc"}}) == 7500);
  // Without PerfCounters, IMDS decides the disks the rule does not name.
  Families g = caps_on("azure", &c, "tiers:\n  disks:\n    - {lun: 1, tier: P40}\n");
  CHECK(labels_of(g, "diskperf_tier_disk_info", "device", "sdc").at("source") == "imds");
  CHECK(labels_of(g, "diskperf_tier_disk_info", "device", "sdc").at("tier") == "P10");
  CHECK(labels_of(g, "diskperf_tier_disk_info", "device", "sdd").at("tier") == "P40");
  CHECK(labels_of(g, "diskperf_tier_disk_info", "device", "sdd").at("caching") == "None");  // IMDS's caching
}

TEST_CASE("imds caps: Ultra caps from IMDS; Premium SSD v2 has none unless configured", "[imds][tiers]") {
  ImdsDisk ultra = data_disk(0, "UltraSSD_LRS", 1024);
  ultra.ops_per_second_throttle = 20000;
  ultra.bytes_per_second_throttle = 524288000;
  ImdsCompute c = vm({ultra, data_disk(1, "PremiumV2_LRS", 512), data_disk(2, "Standard_LRS", 2048)});
  Families f = caps_on("azure", &c);
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdc").at("tier") == "ultra");
  CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", "sdc"}}) == 20000);
  CHECK(value(f, "diskperf_tier_disk_throughput_cap_bytes_per_second", {{"device", "sdc"}}) == 524288000);
  CHECK(count(f, "diskperf_tier_disk_info", {{"device", "sdd"}}) == 0);
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sde").at("tier") == "S40");
  CHECK(count(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 0);  // a member without caps
  Families g = caps_on("azure", &c,
                       "tiers:\n  disks:\n    - {lun: 1, tier: premium_ssd_v2, size_gib: 512, iops: 6000, mbps: 200}\n");
  CHECK(value(g, "diskperf_tier_disk_iops_cap", {{"device", "sdd"}}) == 6000);
  CHECK(count(g, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 1);
}
