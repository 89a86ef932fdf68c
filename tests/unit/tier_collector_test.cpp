// Tier caps per disk, VM and volume on the generated sysfs fixture trees (real dirs and symlinks)
// and the PerfCounters samples: exact caps, sources, burst variants, striped/linear/mirror rules.

#include <catch2/catch.hpp>

#include <atomic>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "collectors/azure_collector.h"
#include "collectors/dm_table_source.h"
#include "collectors/tier_collector.h"
#include "config/config.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {

TiersConfig tiers(const std::string& yaml) {
  auto r = parse_config(yaml);
  if (!r.config) {
    for (const auto& e : r.errors) FAIL(e.to_string("test.yml"));
  }
  return r.config->tiers;
}

Families collect_tiers(const std::string& scenario, const TiersConfig& cfg, bool with_azure) {
  std::shared_ptr<AzureCollector> azure;
  if (with_azure) {
    azure = std::make_shared<AzureCollector>(fixture("azure/PerfCounters.managed.sample"));
    Families ignored;
    REQUIRE_FALSE(azure->collect(ignored));
  }
  TierCollector c(sysfs_fixture(scenario), std::make_shared<const DeviceFilter>(std::nullopt, std::nullopt),
                  std::make_shared<DirectoryDmTableSource>(dm_tables_dir(scenario)), azure, cfg);
  Families out;
  REQUIRE_FALSE(c.collect(out));
  return out;
}

}  // namespace

TEST_CASE("tier: caps from PerfCounters SLA alone (no config)", "[tiers][collector]") {
  Families f = collect_tiers("azure", TiersConfig{}, true);
  // sdc-sde: SLA 7500 IOPS, 250 MB/s = P40 or P50; sda (OS disk) 500 / 100 = P10 (credit bursting).
  for (const char* d : {"sdc", "sdd", "sde"}) {
    INFO(d);
    CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", d}}) == 7500);
    CHECK(value(f, "diskperf_tier_disk_throughput_cap_bytes_per_second", {{"device", d}}) == 250e6);
    CHECK(count(f, "diskperf_tier_disk_burst_iops_cap", {{"device", d}}) == 0);  // on-demand, not enabled
  }
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdc") ==
        std::map<std::string, std::string>{{"device", "sdc"}, {"tier", "P40/P50"}, {"family", "premium_ssd"},
                                           {"source", "perfcounters"}, {"burst_model", "on_demand"},
                                           {"bursting", "false"}, {"caching", "None"}, {"azure_lun", "0"},
                                           {"write_accelerator", ""}});
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdd").at("caching") == "ReadOnly");
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sda").at("tier") == "P10");
  CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", "sda"}}) == 500);
  CHECK(value(f, "diskperf_tier_disk_burst_iops_cap", {{"device", "sda"}}) == 3500);
  CHECK(value(f, "diskperf_tier_disk_burst_throughput_cap_bytes_per_second", {{"device", "sda"}}) == 170e6);
  CHECK(count(f, "diskperf_tier_disk_info", {{"device", "sdb"}}) == 0);  // resource disk: no SLA, no caps
  // VM: SLA lines of PerfCounters; burst from the built-in Standard_E32s_v3 row.
  CHECK(labels_of(f, "diskperf_tier_vm_info", "vm_size", "Standard_E32s_v3").at("source") == "perfcounters");
  CHECK(value(f, "diskperf_tier_vm_uncached_iops_cap", {}) == 51200);
  CHECK(value(f, "diskperf_tier_vm_uncached_throughput_cap_bytes_per_second", {}) == 768e6);
  CHECK(value(f, "diskperf_tier_vm_burst_uncached_iops_cap", {}) == 64000);
  CHECK(value(f, "diskperf_tier_vm_burst_uncached_throughput_cap_bytes_per_second", {}) == 1600e6);
  // dm-0 striped over sdc, sdd, sde: 3 x 7500 IOPS, 3 x 250 MB/s (under the VM's 51200 / 768).
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 22500);
  CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 750e6);
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "dm-0") ==
        std::map<std::string, std::string>{
            {"volume", "dm-0"}, {"name", "vg_data-lv_data"}, {"layout", "striped"}, {"vm_bounded", "false"}});
  CHECK(count(f, "diskperf_tier_volume_member_info", {{"volume", "dm-0"}}) == 3);
  CHECK(count(f, "diskperf_tier_volume_burst_iops_cap") == 0);
}

TEST_CASE("tier: config wins over PerfCounters; on-demand bursting; VM bound", "[tiers][collector]") {
  Families f = collect_tiers("azure", tiers(R"(tiers:
  disks:
    - {lun: 0, tier: P30, bursting: true}
    - {by_id: wwn-0x60022480a7f3d2e1c0b9a8f7e6d5c4b3, tier: premium_ssd_v2, size_gib: 100, iops: 10000, mbps: 400}
)"),
                             true);
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdc").at("source") == "builtin");
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdc").at("bursting") == "true");
  CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", "sdc"}}) == 5000);
  CHECK(value(f, "diskperf_tier_disk_throughput_cap_bytes_per_second", {{"device", "sdc"}}) == 200e6);
  CHECK(value(f, "diskperf_tier_disk_burst_iops_cap", {{"device", "sdc"}}) == 30000);
  CHECK(value(f, "diskperf_tier_disk_burst_throughput_cap_bytes_per_second", {{"device", "sdc"}}) == 1000e6);
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdd").at("source") == "config");
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sdd").at("tier") == "premium_ssd_v2");
  CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", "sdd"}}) == 10000);
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sde").at("source") == "perfcounters");
  // Stripe: 5000 + 10000 + 7500 IOPS, 200 + 400 + 250 MB/s = 850 MB/s, bounded by the VM's 768 MB/s.
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 22500);
  CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 768e6);
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "dm-0").at("vm_bounded") == "true");
  // Burst: sdc bursts (30000, 1000), the others add their provisioned caps: 47500 IOPS (VM burst 64000),
  // 1650 MB/s -> the VM's burst 1600 MB/s.
  CHECK(value(f, "diskperf_tier_volume_burst_iops_cap", {{"volume", "dm-0"}}) == 47500);
  CHECK(value(f, "diskperf_tier_volume_burst_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 1600e6);
}

TEST_CASE("tier: configured VM size bounds a stripe", "[tiers][collector]") {
  Families f = collect_tiers("azure", tiers("tiers:\n  vm_size: Standard_D8s_v3\n  disks:\n    - {glob: 'sd[c-e]', tier: P40}\n"),
                             false);
  CHECK(labels_of(f, "diskperf_tier_vm_info", "vm_size", "Standard_D8s_v3").at("source") == "builtin");
  CHECK(value(f, "diskperf_tier_vm_uncached_iops_cap", {}) == 12800);
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 12800);
  CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 192e6);
  CHECK(count(f, "diskperf_tier_disk_info", {{"device", "sda"}}) == 0);  // no rule, no PerfCounters
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "sde").at("caching") == "");
}

TEST_CASE("tier: md RAID0 stack with dm linear and dm-crypt on top, custom tier and VM size",
          "[tiers][collector]") {
  Families f = collect_tiers("nvme-stack", tiers(R"(tiers:
  vm_size: Big_VM
  vm_sizes:
    - {name: Big_VM, uncached_iops: 100000, uncached_mbps: 3000}
  custom:
    - {name: NVME_LOCAL, iops: 20000, mbps: 800}
  disks:
    - {glob: 'nvme*n1', tier: NVME_LOCAL}
)"),
                             false);
  CHECK(labels_of(f, "diskperf_tier_disk_info", "device", "nvme0n1").at("source") == "config");
  CHECK(labels_of(f, "diskperf_tier_vm_info", "vm_size", "Big_VM").at("source") == "config");
  // md127 = 4 x 20000 IOPS = 80000, 4 x 800 MB/s = 3200 -> VM 3000 MB/s.
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "md127"}}) == 80000);
  CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "md127"}}) == 3000e6);
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "md127").at("layout") == "striped");
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "md127").at("name") == "data");
  // dm-0 (linear over md127) and dm-1 (crypt over dm-0): their one member's caps.
  for (const char* v : {"dm-0", "dm-1"}) {
    INFO(v);
    CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", v}}) == 80000);
    CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", v}}) == 3000e6);
    CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", v).at("layout") == "linear");
  }
  CHECK(value(f, "diskperf_tier_volume_member_info", {{"volume", "dm-1"}, {"member", "dm-0"}}) == 1);
}

TEST_CASE("tier: linear over partitions and RAID1 take the smallest member", "[tiers][collector]") {
  Families f = collect_tiers("partitions", tiers("tiers:\n  disks:\n    - {device: sdb, tier: P10}\n"
                                                 "    - {device: sdc, tier: P20}\n"),
                             false);
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 500);
  CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 100e6);
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "dm-0").at("layout") == "linear");
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "md1"}}) == 500);
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "md1").at("layout") == "mirror");
  // Both burst by credit: burst caps 3500 IOPS / 170 MB/s for each member, so the same for the volumes.
  CHECK(value(f, "diskperf_tier_volume_burst_iops_cap", {{"volume", "dm-0"}}) == 3500);
  CHECK(value(f, "diskperf_tier_disk_burst_iops_cap", {{"device", "sdc"}}) == 3500);
}

TEST_CASE("tier: a volume with a member without caps has none; no facts, no families", "[tiers][collector]") {
  Families f = collect_tiers("azure", tiers("tiers:\n  disks:\n    - {lun: 0, tier: P30}\n"), false);
  CHECK(value(f, "diskperf_tier_disk_iops_cap", {{"device", "sdc"}}) == 5000);
  CHECK(count(f, "diskperf_tier_volume_iops_cap") == 0);
  CHECK(count(f, "diskperf_tier_disk_burst_iops_cap") == 0);  // P30 on-demand, not enabled
  Families none = collect_tiers("azure", TiersConfig{}, false);
  CHECK(none.empty());
}

TEST_CASE("tier: without disk rules or PerfCounters disks only the VM's caps, no dm table read", "[tiers][collector]") {
  auto tables = std::make_shared<CountingDmTables>(dm_tables_dir("azure"));
  const auto filter = std::make_shared<const DeviceFilter>(std::nullopt, std::nullopt);
  TierCollector vm_only(sysfs_fixture("azure"), filter, tables, nullptr, tiers("tiers:\n  vm_size: Standard_D8s_v3\n"));
  Families out;
  REQUIRE_FALSE(vm_only.collect(out));
  CHECK(labels_of(out, "diskperf_tier_vm_info", "vm_size", "Standard_D8s_v3").at("source") == "builtin");
  CHECK(count(out, "diskperf_tier_disk_info") == 0);
  CHECK(count(out, "diskperf_tier_volume_info") == 0);
  CHECK(tables->reads == 0);
  // With a disk rule the volumes are gathered: dm-0's table is read and its caps resolved.
  TierCollector rules(sysfs_fixture("azure"), filter, tables,
                      nullptr, tiers("tiers:\n  disks:\n    - {glob: 'sd[c-e]', tier: P40}\n"));
  Families with_rules;
  REQUIRE_FALSE(rules.collect(with_rules));
  CHECK(tables->reads > 0);
  CHECK(count(with_rules, "diskperf_tier_volume_info") == 1);
}

TEST_CASE("tier: unreadable /sys/block fails the collector", "[tiers][collector]") {
  HostPaths p;
  p.sysfs = "/nonexistent";
  p.devfs = "/nonexistent";
  TierCollector c(p, nullptr, std::make_shared<TextDmTableSource>(std::map<std::string, std::string>{}), nullptr,
                  TiersConfig{});
  Families out;
  auto err = c.collect(out);
  REQUIRE(err);
  CHECK(*err == "list /nonexistent/block: cannot read directory");
}

TEST_CASE("tier: layouts from dm targets and md levels", "[tiers]") {
  CHECK(dm_layout({"striped", "striped"}) == VolumeLayout::striped);
  CHECK(dm_layout({"linear", "linear"}) == VolumeLayout::linear);
  CHECK(dm_layout({"crypt"}) == VolumeLayout::linear);
  CHECK(dm_layout({"linear", "striped"}) == VolumeLayout::unsupported);
  CHECK(dm_layout({"thin"}) == VolumeLayout::unsupported);
  CHECK(dm_layout({}) == VolumeLayout::unsupported);
  CHECK(md_layout("raid0") == VolumeLayout::striped);
  CHECK(md_layout("raid1") == VolumeLayout::mirror);
  CHECK(md_layout("raid5") == VolumeLayout::unsupported);
}

TEST_CASE("tier: probe jobs get their target's caps, bs and the meets fraction", "[tiers][collector]") {
  TiersConfig cfg = tiers("tiers:\n  meets_fraction: 0.85\n  disks:\n    - {glob: 'sd[c-e]', tier: P30}\n");
  BlockView view(sysfs_fixture("azure"), nullptr);
  const VolumeScan scan = *view.volumes();
  CapInputs in;
  in.config = &cfg;
  for (const char* d : {"sdc", "sdd", "sde"}) in.disks.push_back({d, {}, {}});
  in.volumes = scan.volumes;
  in.layouts["dm-0"] = VolumeLayout::striped;
  in.volumes_wanted = {"dm-0"};
  ResolvedCaps caps = resolve_caps(in);
  std::vector<ProbeJob> jobs(3);
  jobs[0].name = "cap";
  jobs[0].target = "/dev/sdc";
  jobs[0].bs = 65536;
  jobs[0].iodepth = 128;
  jobs[1].name = "vol";
  jobs[1].target = "/data/probe";
  jobs[1].iodepth = 256;
  jobs[1].rate_iops = 100;  // paced: not cap-seeking
  jobs[2].name = "none";
  jobs[2].target = "/dev/sdq";
  auto pc = probe_caps(jobs, caps, {{"/dev/sdc", "sdc"}, {"/data/probe", "dm-0"}, {"/dev/sdq", ""}});
  Families f;
  emit_probe_caps(f, pc, cfg.meets_fraction);
  CHECK(labels_of(f, "diskperf_tier_probe_info", "probe", "cap") ==
        std::map<std::string, std::string>{{"probe", "cap"}, {"target", "/dev/sdc"}, {"device", "sdc"},
                                           {"tier", "P30"}, {"family", "premium_ssd"}, {"cap_seeking", "true"}});
  CHECK(value(f, "diskperf_tier_probe_iops_cap", {{"probe", "cap"}}) == 5000);
  CHECK(value(f, "diskperf_tier_probe_throughput_cap_bytes_per_second", {{"probe", "cap"}}) == 200e6);
  CHECK(value(f, "diskperf_tier_probe_block_size_bytes", {{"probe", "cap"}}) == 65536);
  CHECK(value(f, "diskperf_tier_probe_meets_fraction", {{"probe", "cap"}}) == 0.85);
  CHECK(labels_of(f, "diskperf_tier_probe_info", "probe", "vol").at("cap_seeking") == "false");
  CHECK(value(f, "diskperf_tier_probe_iops_cap", {{"probe", "vol"}}) == 15000);
  CHECK(value(f, "diskperf_tier_probe_throughput_cap_bytes_per_second", {{"probe", "vol"}}) == 600e6);
  CHECK(labels_of(f, "diskperf_tier_probe_info", "probe", "none").at("device") == "");
  CHECK(count(f, "diskperf_tier_probe_iops_cap", {{"probe", "none"}}) == 0);
}

TEST_CASE("tier: probe_device resolves a file to the disk holding it", "[tiers]") {
  TempDir d;
  d.write("f", "x");
  HostPaths host;
  const std::string name = probe_device((d.path / "f").string(), host);
  struct stat st {};
  REQUIRE(::stat(d.str().c_str(), &st) == 0);
  const std::string link = "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  if (std::filesystem::exists(link)) CHECK_FALSE(name.empty());  // else a tmpfs or overlay: no block device
  else CHECK(name.empty());
  CHECK(probe_device("/nonexistent/x", host).empty());
}
