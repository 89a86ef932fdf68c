#pragma once
// Reading volume topology from sysfs (through --path.sysfs / --path.devfs): every device in
// /sys/block whose slaves/ directory is not empty (device-mapper, md), its members (partitions
// resolved to their whole disk), dm name/uuid, md level, chunk, raid_disks, state and array name.
// Shared by the topology collector (which exports it) and the tier collector (volume caps).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectors/block_devices.h"
#include "collectors/host_fs.h"

namespace diskperf {

struct VolumeMember {
  std::string name;  ///< kernel name in slaves/ ("sdc1")
  std::string disk;  ///< whole disk ("sdc"); == name when not a partition
};

struct VolumeInfo {
  std::string device;
  std::string kind;  ///< "dm", "md" or "other"
  std::string name;  ///< dm/name, or the md array name from <devfs>/md
  std::string uuid;  ///< dm/uuid or md/uuid
  /// `dev` (major:minor), from the listing (BlockDevices::Device::dev(): read once per held directory)
  std::optional<std::pair<unsigned, unsigned>> devno;
  std::vector<VolumeMember> members;  ///< sorted by name
  // md only
  std::string md_level, md_array_state;
  std::optional<std::uint64_t> md_raid_disks, md_chunk_bytes;
};

/// Every volume of a /sys/block listing, by kernel name: the slaves/ of each device that may stack
/// (BlockDevices::Device::may_stack) is listed through its held directory; a member is a partition
/// when the listing has it as one (else when slaves/<member>/partition exists); the md array names
/// come from <devfs>/md. The dm/ and md/ attributes of a held directory are read through
/// descriptors it keeps (HostDir::read_kept) while `budget` (null: none kept) allows.
/// `ok` is false (with the listing's error) when /sys/block could not be listed.
struct VolumeScan {
  bool ok = true;
  std::string error;
  std::map<std::string, VolumeInfo> volumes;
};
VolumeScan read_volumes(const BlockDevices::Listing& block, const std::string& devfs,
                        const std::shared_ptr<FdBudget>& budget = nullptr);

/// The whole disks at the bottom of `device`'s stack (members followed level by level through
/// other volumes, at most 16 levels, each volume expanded once, so loops and fan-out in slaves/
/// stay linear); {device} itself when it is not a volume.
std::set<std::string> leaf_disks(const std::map<std::string, VolumeInfo>& volumes, const std::string& device);

}  // namespace diskperf
