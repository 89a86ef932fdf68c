#pragma once
// Reading volume topology from sysfs (through --path.sysfs / --path.devfs): every device in
// /sys/block whose slaves/ directory is not empty (device-mapper, md), its members (partitions
// resolved to their whole disk), dm name/uuid and table (from a DmTableSource), md level, chunk,
// raid_disks, state and array name. Shared by the topology collector (which exports it) and the
// tier collector (volume caps). Device-mapper volumes are kept between scans (DmVolumeCache).

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collectors/block_devices.h"
#include "collectors/dm_table_source.h"
#include "collectors/host_fs.h"

namespace diskperf {

struct VolumeMember {
  std::string name;  ///< kernel name of an entry of slaves/ ("sdc1"; "cciss/c0d0p1" for cciss!c0d0p1)
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
  /// dm only: the table (`dmsetup table` text, or why it could not be read: status error when
  /// the volume's dev number could not be read) when the scan was given a DmTableSource; else unset.
  std::optional<DmTableText> dm_table;
  // md only
  std::string md_level, md_array_state;
  std::optional<std::uint64_t> md_raid_disks, md_chunk_bytes;
};

/// Device-mapper volumes (VolumeInfo with kind "dm": dm/name, dm/uuid, table, members resolved)
/// kept from one scan to the next, so that a host with hundreds of LVM volumes does not read two
/// dm/ files and ask the kernel for every table at every scrape. The slaves/ of every volume is
/// listed at every scan; a kept volume is read again when:
/// - its slaves/ entries changed (pvmove, lvconvert, a table wiped or loaded over other devices);
/// - its /sys/block entry is not the one it was read from (inode; `dev` is read with the entry);
/// - its size in <procfs>/partitions (KiB) changed (lvextend, lvreduce, a table of another
///   length), or is not there (the file unreadable, a volume without capacity: never kept);
/// - a /sys/block entry or partition was added, removed or replaced since the last scan (a
///   device that came and went between two scans leaves no trace in the listing);
/// - or it is `max_age` old (each volume at a point between 3/4 of it and all of it).
/// Not seen before then: dm/name after a rename (lvrename, dmsetup rename), a table loaded with the
/// same length over the same devices. A volume whose table could not be read or does not parse
/// is not kept. md arrays and other stacked devices are not kept (their state must be current).
/// Thread-safe.
class DmVolumeCache {
 public:
  explicit DmVolumeCache(std::chrono::nanoseconds max_age) : max_age_(max_age) {}

  /// What a kept volume is checked against: the device's /sys/block inode, its `dev` text, its
  /// size in KiB, a hash of every /sys/block entry and partition (name and inode) of the scan,
  /// and its slaves/ entries (sorted).
  struct Key {
    std::uint64_t ino = 0;
    std::string dev;
    std::uint64_t kib = 0;
    std::uint64_t listing = 0;
    std::vector<std::string> slaves;
    bool operator==(const Key&) const = default;
  };
  /// The volume kept for `device` under `key`, if it is not due at `now`; else null.
  std::shared_ptr<const VolumeInfo> find(const std::string& device, const Key& key,
                                         std::chrono::steady_clock::time_point now) const;
  /// Keeps `v` (read at `now`) under `key`; nothing with a max age of 0.
  void keep(const Key& key, std::shared_ptr<const VolumeInfo> v, std::chrono::steady_clock::time_point now);
  /// Drops every volume but those named in `names` (sorted).
  void retain(const std::vector<std::string>& names);
  /// Whether anything is kept (a max age above 0).
  bool enabled() const { return max_age_ > std::chrono::nanoseconds::zero(); }
  /// Volumes kept now (for tests).
  std::size_t size() const;

 private:
  struct Entry {
    Key key;
    std::shared_ptr<const VolumeInfo> volume;
    std::chrono::steady_clock::time_point expires;
  };
  std::chrono::nanoseconds max_age_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> kept_;  // guarded by mu_
};

/// What read_volumes reads besides the listing.
struct VolumeSources {
  std::string devfs;                       ///< for the md array names (<devfs>/md)
  std::shared_ptr<FdBudget> budget;        ///< descriptors the dm/ and md/ files may keep (null: none)
  DmTableSource* tables = nullptr;         ///< dm tables (null: VolumeInfo::dm_table unset)
  /// Sizes in KiB by kernel name from <procfs>/partitions (ProcPartitionsRead; null: unreadable).
  const std::unordered_map<std::string, std::uint64_t>* sizes = nullptr;
  DmVolumeCache* cache = nullptr;          ///< dm volumes kept between scans (null: none)
  std::chrono::steady_clock::time_point now{};  ///< for the cache's ages
};

/// Every volume of a /sys/block listing, by kernel name: the slaves/ of each device that may stack
/// (BlockDevices::Device::may_stack) is listed through its held directory; a member is a partition
/// when the listing has it as one (else when slaves/<member>/partition exists); the md array names
/// come from <devfs>/md. The md/ attributes of a held directory are read through descriptors it
/// keeps (HostDir::read_kept) while `budget` (null: none kept) allows; the dm/ ones too when
/// there is no cache (with one they are read seldom: opened and closed).
/// `ok` is false (with the listing's error) when /sys/block could not be listed.
struct VolumeScan {
  bool ok = true;
  std::string error;
  std::map<std::string, VolumeInfo> volumes;
};
VolumeScan read_volumes(const BlockDevices::Listing& block, const VolumeSources& sources);
/// The same without a table source, cache or sizes (every volume read, no tables).
VolumeScan read_volumes(const BlockDevices::Listing& block, const std::string& devfs,
                        const std::shared_ptr<FdBudget>& budget = nullptr);

/// The whole disks at the bottom of `device`'s stack (members followed level by level through
/// other volumes, at most 16 levels, each volume expanded once, so loops and fan-out in slaves/
/// stay linear); {device} itself when it is not a volume.
std::set<std::string> leaf_disks(const std::map<std::string, VolumeInfo>& volumes, const std::string& device);

}  // namespace diskperf
