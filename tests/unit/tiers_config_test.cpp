// The `tiers:` config section: disk-to-tier rules by device, LUN, by-id and glob; bursting;
// Premium SSD v2 / Ultra per-disk caps; custom tiers and VM sizes; errors with line and column.

#include <catch2/catch.hpp>

#include "config/config.h"
#include "test_helpers.h"

using namespace diskperf;

namespace {
std::vector<std::string> errors_of(const std::string& yaml) {
  std::vector<std::string> out;
  for (const auto& e : parse_config(yaml).errors) out.push_back(e.to_string("c.yml"));
  return out;
}
}  // namespace

TEST_CASE("tiers config: rules, custom tiers, VM sizes", "[tiers][config]") {
  auto r = parse_config(R"(tiers:
  vm_size: Custom_VM
  meets_fraction: 0.8
  vm_sizes:
    - {name: Custom_VM, uncached_iops: 20000, uncached_mbps: 500, burst_uncached_iops: 30000, burst_uncached_mbps: 1000}
  custom:
    - {name: SAN_GOLD, iops: 20000, mbps: 800, burst_iops: 40000, burst_mbps: 1000}
  disks:
    - {device: /dev/sdc, tier: P30, bursting: true}
    - {lun: 2, tier: p10, caching: ReadOnly}
    - {by_id: /dev/disk/by-id/wwn-0x6002, tier: E30, bursting: false}
    - {glob: 'nvme*n1', tier: SAN_GOLD}
    - {lun: 3, tier: premium_ssd_v2, size_gib: 200, iops: 20000, mbps: 600}
    - {device: sdz, tier: ultra, size_gib: 100, iops: 100000, mbps: 2500}
)");
  REQUIRE(r.errors.empty());
  const TiersConfig& t = r.config->tiers;
  CHECK(*t.vm_size == "Custom_VM");
  CHECK(t.meets_fraction == 0.8);
  REQUIRE(t.vm_sizes.size() == 1);
  CHECK(*t.vm_sizes[0].uncached_iops == 20000);
  CHECK(*t.vm_sizes[0].uncached_bytes_per_second == 500e6);
  CHECK(*t.vm_sizes[0].burst_uncached_bytes_per_second == 1000e6);
  REQUIRE(t.custom.size() == 1);
  CHECK(t.custom[0].family == "custom");
  CHECK(t.custom[0].bytes_per_second == 800e6);
  CHECK(*t.custom[0].burst_iops == 40000);
  REQUIRE(t.disks.size() == 6);
  CHECK(t.disks[0].kind == DiskMatchKind::device);
  CHECK(t.disks[0].pattern == "sdc");
  CHECK(t.disks[0].tier.name == "P30");
  CHECK(t.disks[0].tier.iops == 5000);
  CHECK(t.disks[0].tier_is_builtin);
  CHECK(*t.disks[0].bursting);
  CHECK(t.disks[0].line == 9);
  CHECK(t.disks[1].kind == DiskMatchKind::lun);
  CHECK(t.disks[1].lun == 2);
  CHECK(t.disks[1].tier.name == "P10");
  CHECK(*t.disks[1].caching == "ReadOnly");
  CHECK(t.disks[2].pattern == "wwn-0x6002");
  CHECK_FALSE(*t.disks[2].bursting);
  CHECK(t.disks[3].kind == DiskMatchKind::glob);
  CHECK(t.disks[3].tier.source == "config");
  CHECK_FALSE(t.disks[3].tier_is_builtin);
  CHECK(t.disks[4].tier.family == "premium_ssd_v2");
  CHECK(t.disks[4].tier.iops == 20000);
  CHECK(t.disks[4].tier.bytes_per_second == 600e6);
  CHECK(*t.disks[4].tier.size_gib == 200);
  CHECK(t.disks[5].tier.family == "ultra");

  // Matching: first rule wins, in file order.
  CHECK(match_disk_rule(t.disks, "sdc", {2}, {}) == &t.disks[0]);
  CHECK(match_disk_rule(t.disks, "sdd", {2}, {}) == &t.disks[1]);
  CHECK(match_disk_rule(t.disks, "sde", {}, {"scsi-x", "wwn-0x6002"}) == &t.disks[2]);
  CHECK(match_disk_rule(t.disks, "nvme0n1", {}, {}) == &t.disks[3]);
  CHECK(match_disk_rule(t.disks, "nvme0n1p1", {}, {}) == nullptr);
  CHECK(match_disk_rule(t.disks, "sdf", {3}, {}) == &t.disks[4]);
  CHECK(match_disk_rule(t.disks, "sdg", {7}, {}) == nullptr);
}

TEST_CASE("tiers config: a built-in VM size and an empty section", "[tiers][config]") {
  auto r = parse_config("tiers:\n  vm_size: standard_e32s_v3\n");
  REQUIRE(r.errors.empty());
  CHECK(*r.config->tiers.vm_size == "standard_e32s_v3");
  CHECK(r.config->tiers.meets_fraction == 0.9);
  CHECK(parse_config("tiers:\n").errors.empty());
}

TEST_CASE("tiers config: errors with line and column", "[tiers][config]") {
  CHECK(errors_of("tiers:\n  disk: []\n") == std::vector<std::string>{"c.yml:2:3: unknown key 'disk' in tiers"});
  CHECK(errors_of("tiers:\n  disks:\n    - {device: sdc, tier: P35}\n") ==
        std::vector<std::string>{"c.yml:3:27: tiers.disks disk 'sdc': tier 'P35' is unknown (built in: P1-P80, "
                                 "E1-E80, S4-S80, premium_ssd_v2, ultra; or define it under tiers.custom)"});
  CHECK(errors_of("tiers:\n  disks:\n    - {device: sdc, lun: 1, tier: P30}\n") ==
        std::vector<std::string>{"c.yml:3:7: a tiers.disks entry needs exactly one of device, lun, by_id, glob"});
  CHECK(errors_of("tiers:\n  disks:\n    - {lun: 1}\n") ==
        std::vector<std::string>{"c.yml:3:7: tiers.disks lun 1: tier is required"});
  CHECK(errors_of("tiers:\n  disks:\n    - {lun: 1, tier: S30, bursting: true}\n") ==
        std::vector<std::string>{"c.yml:3:37: tiers.disks lun 1: tier S30 cannot burst"});
  CHECK(errors_of("tiers:\n  disks:\n    - {lun: 1, tier: P30, bursting: yes}\n") ==
        std::vector<std::string>{"c.yml:3:37: tiers.disks lun 1: bursting must be true or false"});
  CHECK(errors_of("tiers:\n  disks:\n    - {lun: 1, tier: P30, caching: readonly}\n") ==
        std::vector<std::string>{"c.yml:3:36: tiers.disks lun 1: caching must be None, ReadOnly or ReadWrite"});
  CHECK(errors_of("tiers:\n  disks:\n    - {lun: 1, tier: P30, iops: 9000}\n") ==
        std::vector<std::string>{"c.yml:3:33: tiers.disks lun 1: iops is only for premium_ssd_v2 and ultra (tier P30 "
                                 "has fixed caps)"});
  CHECK(errors_of("tiers:\n  disks:\n    - {lun: 1, tier: premium_ssd_v2}\n") ==
        std::vector<std::string>{"c.yml:3:22: tiers.disks lun 1: premium_ssd_v2 needs the disk's provisioned iops and "
                                 "mbps"});
  CHECK(errors_of("tiers:\n  disks:\n    - {lun: 1, tier: premium_ssd_v2, size_gib: 10, iops: 6000, mbps: 200}\n") ==
        std::vector<std::string>{"c.yml:3:58: tiers.disks lun 1: iops 6000 outside 3000..5000 (premium_ssd_v2: 3000, "
                                 "+500 per GiB above 6 GiB, at most 80000)"});
  CHECK(errors_of("tiers:\n  vm_size: Standard_E16ds_v9\n") ==
        std::vector<std::string>{"c.yml:2:12: tiers.vm_size 'Standard_E16ds_v9' is neither built in nor in "
                                 "tiers.vm_sizes; nearest: Standard_E16ds_v4, Standard_E16ds_v5, Standard_E16ds_v6"});
  CHECK(errors_of("tiers:\n  vm_size: Standard_X1\n") ==
        std::vector<std::string>{"c.yml:2:12: tiers.vm_size 'Standard_X1' is neither built in nor in "
                                 "tiers.vm_sizes; nearest: Standard_B1s, Standard_B1ms, Standard_B2s"});
  CHECK(errors_of("tiers:\n  vm_sizes:\n    - {name: My_VM, uncached_iops: 1000}\n") ==
        std::vector<std::string>{"c.yml:3:7: vm size 'My_VM' needs uncached_iops and uncached_mbps"});
  CHECK(errors_of("tiers:\n  custom:\n    - {name: P30, iops: 1, mbps: 1}\n") ==
        std::vector<std::string>{"c.yml:3:14: custom tier 'P30' has the name of a built-in tier"});
  CHECK(errors_of("tiers:\n  custom:\n    - {name: X, iops: 1}\n") ==
        std::vector<std::string>{"c.yml:3:7: custom tier 'X': iops and mbps are required"});
  CHECK(errors_of("tiers:\n  meets_fraction: 1.5\n") ==
        std::vector<std::string>{"c.yml:2:19: tiers.meets_fraction must be in (0, 1]"});
  CHECK(errors_of("tiers:\n  disks: {}\n") == std::vector<std::string>{"c.yml:2:10: tiers.disks must be a list"});
}

TEST_CASE("tiers config: the shipped example is valid", "[tiers][config]") {
  auto r = parse_config(test::slurp(std::string(DISKPERF_SOURCE_DIR) + "/config/examples/azure-tiers.yml"));
  for (const auto& e : r.errors) FAIL(e.to_string("azure-tiers.yml"));
  REQUIRE(r.config);
  CHECK(r.config->tiers.disks.size() == 4);
  CHECK(r.config->tiers.disks[3].tier.name == "P30");
  CHECK(r.config->probes.size() == 2);
}

TEST_CASE("tiers config: a key given twice is an error", "[tiers][config][bad-input]") {
  CHECK(errors_of("tiers:\n  meets_fraction: 0.9\n  meets_fraction: 0.5\n") ==
        std::vector<std::string>{"c.yml:3:3: duplicate key 'meets_fraction' in tiers"});
}
