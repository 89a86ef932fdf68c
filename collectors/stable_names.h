#pragma once
// Stable names of block devices, keyed by kernel name: udev's /dev/disk/by-id links, and each
// Azure disk's LUN and whether it is the OS disk. A LUN comes from azure-vm-utils' disk/azure/data/
// by-lun/<lun>, else WALinuxAgent's disk/azure/scsi1/lun<N>, else, on the remote NVMe controller
// ("MSFT NVMe Accelerator v1.0") that has no such links, from the namespace id: nsid 1 is the OS
// disk, LUN = nsid - 2. Used by the queue collector (info labels) and the tier resolver.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace diskperf {

struct StableNames {
  /// kernel name -> its by-id link names, sorted and joined with "," (as the queue collector's
  /// `by_id` label shows them; udev's by-id names have no comma): one string per device, not a
  /// set of them (~200 instead of ~390 bytes per disk with two names, kept between scrapes).
  std::map<std::string, std::string> by_id;
  std::map<std::string, std::set<unsigned>> azure_lun;  ///< kernel name -> LUNs (whole disks only)
  std::set<std::string> azure_os_disk;                  ///< kernel names of the Azure OS disk
};

/// Model of the NVMe controller behind Azure's remote (OS and data) disks.
inline constexpr std::string_view kAzureRemoteNvmeModel = "MSFT NVMe Accelerator v1.0";

/// What an NVMe namespace is on Azure, from its controller's model and its nsid.
struct AzureNvmeRole {
  bool os_disk = false;
  std::optional<unsigned> lun;
};
/// Neither for another controller model (trailing blanks of sysfs' model are ignored) or nsid 0.
AzureNvmeRole azure_nvme_role(std::string_view controller_model, unsigned nsid);

/// The names of a joined StableNames::by_id value ("" -> none).
std::vector<std::string> split_by_id(std::string_view joined);

/// `values` in their order, joined with "," (the form of the by_id and azure_lun labels).
template <typename T>
std::string join_names(const std::set<T>& values) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out.push_back(',');
    if constexpr (std::is_same_v<T, std::string>) {
      out += v;
    } else {
      out += std::to_string(v);
    }
  }
  return out;
}

/// Lists <devfs>/disk/by-id and <devfs>/disk/azure, and reads model and nsid of the NVMe
/// namespaces of <sysfs>/block (when `sysfs` is not empty); absent directories give empty maps.
StableNames read_stable_names(const std::string& devfs, const std::string& sysfs = "");

}  // namespace diskperf
