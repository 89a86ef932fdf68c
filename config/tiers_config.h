#pragma once
// The `tiers:` section of the YAML config (docs/tiers.md): which tier each disk is, the VM size,
// custom tiers and VM sizes. Schema (every key optional):
//
//   tiers:
//     vm_size: Standard_E32s_v3          # else PerfCounters config;Instance Type
//     meets_fraction: 0.9                # `check`: a disk meets its tier at >= 90% of each cap
//     vm_sizes:                          # sizes not built in (config/vm_sizes.csv)
//       - {name: Custom_VM, uncached_iops: 20000, uncached_mbps: 500,
//          burst_uncached_iops: 30000, burst_uncached_mbps: 1000}
//     custom:                            # tiers not built in (other clouds, SAN classes)
//       - {name: SAN_GOLD, iops: 20000, mbps: 800, burst_iops: 40000, burst_mbps: 1000}
//     disks:                             # first matching rule wins; exactly one matcher per rule
//       - {device: sdc, tier: P30, bursting: true}     # kernel name (or /dev/sdc)
//       - {lun: 2, tier: P40, caching: ReadOnly}       # /dev/disk/azure/scsi1/lun2
//       - {by_id: wwn-0x600224801234, tier: E30}       # /dev/disk/by-id name
//       - {glob: 'nvme*n1', tier: SAN_GOLD}            # fnmatch on the kernel name
//       - {lun: 3, tier: premium_ssd_v2, size_gib: 200, iops: 20000, mbps: 600}
//
// `bursting`: credit bursting (P1-P20, E1-E30) is on unless `false`; on-demand bursting (P30 and
// up) is off unless `true` (it must be enabled on the disk). Premium SSD v2 and Ultra caps are set
// per disk and validated against their formulas (tiers/tier_catalog.h).

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/tier_catalog.h"

namespace diskperf {

struct ConfigError;

/// How a rule picks disks.
enum class DiskMatchKind { device, lun, by_id, glob };

/// One entry of tiers.disks.
struct DiskTierRule {
  DiskMatchKind kind = DiskMatchKind::device;
  std::string pattern;  ///< device name, by-id name or glob (without /dev/ prefixes)
  unsigned lun = 0;     ///< for kind == lun
  /// The disk's tier with its caps resolved (a built-in tier, a custom tier, or the per-disk caps
  /// of premium_ssd_v2 / ultra, whose `name` is the family).
  DiskTier tier;
  bool tier_is_builtin = false;     ///< tier came from the built-in table
  std::optional<bool> bursting;     ///< as configured
  std::optional<std::string> caching;  ///< None, ReadOnly, ReadWrite
  int line = 0;  ///< where the rule is, for messages
};

struct TiersConfig {
  std::optional<std::string> vm_size;
  std::vector<VmSize> vm_sizes;  ///< custom VM sizes (source "config")
  std::vector<DiskTier> custom;  ///< custom tiers (family "custom", source "config")
  std::vector<DiskTierRule> disks;
  double meets_fraction = 0.9;
};

/// Parses the `tiers:` node; appends problems to `errors` with line and column. Tier names are
/// checked against the built-in table and the section's custom tiers.
TiersConfig parse_tiers_config(const YAML::Node& node, std::vector<ConfigError>& errors);

/// The first rule of `rules` matching a disk with kernel name `device`, its Azure LUNs and by-id
/// link names; nullptr when none does.
const DiskTierRule* match_disk_rule(const std::vector<DiskTierRule>& rules, const std::string& device,
                                    const std::vector<unsigned>& luns, const std::vector<std::string>& by_id);

}  // namespace diskperf
