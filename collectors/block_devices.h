#pragma once
// The block devices of <sysfs>/block (--path.sysfs) and their partitions, with each device's
// directory held open between scrapes. Shared by the queue, topology and tier collectors through
// BlockView (collectors/block_view.h).
//
// Why held: /sys/block/<dev> is a symlink into /sys/devices (about ten path components), and
// opening files by that path walks it again for every file. A held directory is opened once,
// when its /sys/block entry first appears, and files are opened relative to it. The entry's inode
// number (from the same getdents64 call that lists the names) tells when a device was removed and
// added again under the same name: the kernel creates a new /sys/block link then, with a new
// inode, and the new directory is opened.
//
// Partitions are the entries of <sysfs>/class/block that are not in /sys/block; the disk of each
// is the parent directory of its class/block link target (".../block/sda/sda1" -> "sda"), read
// once per link (inode). Without class/block (a captured tree, CONFIG_SYSFS_DEPRECATED) they are
// the subdirectories of each disk named after it with a `partition` file (one listing per disk).
//
// Names: sysfs spells the '/' of a kernel name as '!' ("cciss/c0d0" is /sys/block/cciss!c0d0).
// The listing names devices and partitions as /proc/diskstats does (the kernel name), so that
// every collector labels a device alike; `sysfs_name` is the spelling of its entries.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "collectors/host_fs.h"

namespace diskperf {

/// The kernel name of a sysfs entry ("cciss!c0d0" -> "cciss/c0d0", as /proc/diskstats has it).
std::string kernel_name(std::string_view sysfs_name);
/// The sysfs spelling of a kernel name ("cciss/c0d0" -> "cciss!c0d0").
std::string sysfs_name(std::string_view kernel_name);

class BlockDevices {
 public:
  /// `sysfs` is the sysfs root (--path.sysfs). Directories are held while `budget` allows;
  /// devices beyond it get a path-based HostDir (HostDir::by_path: no descriptor kept).
  BlockDevices(std::string sysfs, std::shared_ptr<FdBudget> budget);

  struct Device {
    std::string name;                    ///< kernel name ("sda", "dm-0", "cciss/c0d0")
    std::string sysfs_name;              ///< its /sys/block entry ("cciss!c0d0")
    /// <sysfs>/block/<name>: held open, or path-based (HostDir::by_path) beyond the descriptor
    /// budget; not ok() when it could not be opened (gone, unreadable).
    std::shared_ptr<const HostDir> dir;
    /// Whether `dir` is held between listings (the same object until the device is replaced);
    /// false beyond the descriptor budget or when it could not be opened (a new object per listing).
    bool held = false;
    /// Whether the device can be built on other block devices and so have entries in slaves/
    /// (listed at every scrape for these only). Only dm, md and bcache register members as holders
    /// (bd_link_disk_holder, block/holder.c; called from drivers/md/dm.c, md.c, bcache/super.c),
    /// so: true for a virtual device named dm-N, md* or bcache*; false for other virtual devices
    /// (loop, zram, nbd, rbd, ram) and for a device whose /sys/block link points outside
    /// /sys/devices/virtual (a disk with a parent hardware device: SCSI, NVMe, virtio); true for a
    /// plain directory or an unreadable link (unknown, as in a captured tree).
    bool may_stack = true;
    /// Inode number of the /sys/block/<name> entry: a new one when the device was removed and
    /// added again under the same name (with `dev`, the queue collector's identity of a device).
    std::uint64_t ino = 0;
    /// Whether the /sys/block link points into /sys/devices/virtual (dm, md, loop, zram): a device
    /// without a parent device, so without the `device` link and the attributes under device/
    /// (queue_depth, model, vendor, wwid: block/genhd.c adds the link only for a parent). False for
    /// a plain directory or an unreadable link (unknown: such a device is read as a disk).
    bool is_virtual = false;
    /// `dev` ("major:minor\n", block/genhd.c) of a held directory, read by list() once it reads
    /// ok (it cannot change while the directory is the same: a new device is a new /sys/block
    /// entry); unset for a directory that is not held, or while `dev` cannot be read. Use dev().
    std::optional<FileContent> held_dev;
    /// `dev`: `held_dev`, else read now through `dir` (ReadStatus absent or vanished: the device
    /// is gone).
    FileContent dev() const;
  };
  struct Partition {
    std::string name;        ///< kernel name ("sda1", "cciss/c0d0p1")
    std::string disk;        ///< its whole disk's kernel name, one of the listed devices ("sda")
    std::string sysfs_name;  ///< its entry in class/block and in the disk's directory ("cciss!c0d0p1")
    /// Inode number of its /sys/class/block link (of its directory when listed from the disk's
    /// subdirectories): a new one when the partition was deleted and added again.
    std::uint64_t ino = 0;
  };
  struct Listing {
    /// "list <sysfs>/block: cannot read directory" when /sys/block cannot be listed.
    std::optional<std::string> error;
    std::vector<Device> devices;        ///< sorted by (kernel) name
    std::vector<Partition> partitions;  ///< sorted by (kernel) name
    /// The device with kernel name `name`, or null.
    const Device* find(std::string_view name) const;
    /// The partition named `name`, or null.
    const Partition* find_partition(std::string_view name) const;
  };

  /// Lists /sys/block and /sys/class/block now. Thread-safe.
  Listing list();

  /// Stops holding `dir` as `name`'s (kernel name) directory (when it is the one held): a
  /// user found it removed (HostDir::unlinked) although the /sys/block entry
  /// still has the inode it had (a file system that reuses inode numbers at
  /// once, as tmpfs and ext4 trees do), so the next listing opens it anew.
  void forget(const std::string& name, const HostDir* dir);

  /// Directory descriptors held now (for tests).
  std::size_t held() const;

 private:
  struct Held {
    std::uint64_t ino = 0;
    std::shared_ptr<const HostDir> dir;
    bool may_stack = true;
    bool is_virtual = false;
    std::optional<FileContent> dev;  ///< once read ok
  };
  struct PartitionLink {
    std::uint64_t ino = 0;
    std::string disk;  ///< empty: the link does not name a partition of a disk
  };
  /// Adds the partitions of the devices listed in `out` (`names`: their sysfs names).
  void list_partitions(const HostDir& sys, const std::unordered_set<std::string_view>& names, Listing& out);

  std::string sysfs_;
  std::shared_ptr<FdBudget> budget_;
  mutable std::mutex mu_;
  // Both by sysfs name.
  std::unordered_map<std::string, Held> held_;                 // guarded by mu_
  std::unordered_map<std::string, PartitionLink> partitions_;  // guarded by mu_
};

}  // namespace diskperf
