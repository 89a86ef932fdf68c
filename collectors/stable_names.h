#pragma once
// Stable names of block devices from udev's links under <devfs>/disk (--path.devfs):
// /dev/disk/by-id/<name> and Azure's /dev/disk/azure/scsi1/lunN (azure-vm-utils / WALinuxAgent udev
// rules), keyed by the kernel name each link points at. Used by the queue collector (info labels)
// and the tier resolver (rules by LUN and by-id).

#include <map>
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
};

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

/// Lists <devfs>/disk/by-id and <devfs>/disk/azure/scsi1; absent directories give empty maps.
StableNames read_stable_names(const std::string& devfs);

}  // namespace diskperf
