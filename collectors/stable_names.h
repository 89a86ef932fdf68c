#pragma once
// Stable names of block devices from udev's links under <devfs>/disk (--path.devfs):
// /dev/disk/by-id/<name> and Azure's /dev/disk/azure/scsi1/lunN (azure-vm-utils / WALinuxAgent udev
// rules), keyed by the kernel name each link points at. Used by the queue collector (info labels)
// and the tier resolver (rules by LUN and by-id).

#include <map>
#include <set>
#include <string>

namespace diskperf {

struct StableNames {
  std::map<std::string, std::set<std::string>> by_id;  ///< kernel name -> by-id link names
  std::map<std::string, std::set<unsigned>> azure_lun;  ///< kernel name -> LUNs (whole disks only)
};

/// Lists <devfs>/disk/by-id and <devfs>/disk/azure/scsi1; absent directories give empty maps.
StableNames read_stable_names(const std::string& devfs);

}  // namespace diskperf
