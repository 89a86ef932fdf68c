#include "config/imds_caps.h"

#include <cmath>
#include <cstdio>

namespace diskperf {

std::string_view tier_family_of(std::string_view type) {
  if (type == "Premium_LRS" || type == "Premium_ZRS") return "premium_ssd";
  if (type.rfind("StandardSSD_", 0) == 0) return "standard_ssd";
  if (type == "Standard_LRS") return "standard_hdd";
  if (type == "UltraSSD_LRS") return "ultra";
  if (type == "PremiumV2_LRS") return "premium_ssd_v2";
  return "";
}

const DiskTier* tier_for_size(std::string_view family, double size_gib) {
  const DiskTier* best = nullptr;
  for (const DiskTier& t : builtin_tiers()) {
    if (t.family != family || !t.size_gib || *t.size_gib < size_gib) continue;
    if (!best || *t.size_gib < *best->size_gib) best = &t;
  }
  return best;
}

ImdsTier imds_disk_tier(const ImdsDisk& disk) {
  ImdsTier r;
  const std::string_view family = tier_family_of(disk.storage_account_type);
  if (family.empty()) {
    r.why_none = "storage account type '" + disk.storage_account_type + "' has no known tiers";
  } else if (family == "premium_ssd_v2") {
    r.why_none = "IMDS does not give Premium SSD v2 caps: set them in tiers.disks";
  } else if (family == "ultra") {
    const auto iops = disk.ops_per_second_throttle, bps = disk.bytes_per_second_throttle;
    if (!iops || !bps || *iops <= 0 || *bps <= 0) {
      r.why_none = "Ultra Disk without opsPerSecondThrottle and bytesPerSecondThrottle";
      return r;
    }
    DiskTier t;
    t.name = t.family = "ultra";
    t.size_gib = disk.disk_size_gb;
    t.iops = *iops;
    t.bytes_per_second = *bps;
    t.source = "imds";
    r.tier = std::move(t);
  } else if (!disk.disk_size_gb || !std::isfinite(*disk.disk_size_gb) || *disk.disk_size_gb <= 0) {
    r.why_none = "no diskSizeGB";
  } else if (const DiskTier* t = tier_for_size(family, *disk.disk_size_gb)) {
    r.tier = *t;
    r.builtin = true;
  } else {
    char gb[32];
    std::snprintf(gb, sizeof gb, "%.0f", *disk.disk_size_gb);
    r.why_none = "diskSizeGB " + std::string(gb) + " is larger than every " + std::string(family) + " tier";
  }
  return r;
}

}  // namespace diskperf
