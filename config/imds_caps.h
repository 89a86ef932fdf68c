#pragma once
// The tier of a disk as the Azure Instance Metadata Service describes it. A managed disk's tier
// follows its size: the smallest tier of its family at least as large (1000 and 1024 GiB
// Premium_LRS are both a P30). Ultra Disks carry their provisioned caps; IMDS does not give
// Premium SSD v2 caps. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "collectors/azure/imds_document.h"
#include "config/tier_catalog.h"

namespace diskperf {

/// The tier family of a managedDisk.storageAccountType (Premium_LRS, Premium_ZRS -> premium_ssd;
/// StandardSSD_* -> standard_ssd; Standard_LRS -> standard_hdd; UltraSSD_LRS -> ultra;
/// PremiumV2_LRS -> premium_ssd_v2); "" for any other.
std::string_view tier_family_of(std::string_view storage_account_type);

/// The smallest built-in tier of `family` whose size is >= size_gib; nullptr above the largest.
const DiskTier* tier_for_size(std::string_view family, double size_gib);

/// A disk's tier from IMDS: a built-in tier, or (Ultra) its provisioned caps as a tier named
/// "ultra"; unset with the reason when IMDS does not say enough.
struct ImdsTier {
  std::optional<DiskTier> tier;
  bool builtin = false;
  std::string why_none;
};
ImdsTier imds_disk_tier(const ImdsDisk& disk);

}  // namespace diskperf
