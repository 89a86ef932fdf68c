#pragma once
// queue collector: how each block device in /sys/block (through
// --path.sysfs) is set up: SCSI queue depth, request queue settings, block
// sizes, size, requests in flight, hardware queues, and an info series with
// scheduler, write cache, model, vendor, wwid and the stable /dev names
// (/dev/disk/by-id, Azure's /dev/disk/azure/scsi1/lunN, through --path.devfs).
// Partitions get an info series naming their parent disk.
//
// What is read when (the rule a user sees: README, "What is read when"):
// - at every scrape, per device: `inflight`, through a descriptor the
//   device's held directory keeps open (HostDir::read_kept: pread(2) at
//   offset 0; sysfs produces the value anew on every such read);
// - at every scrape, for all devices: <procfs>/partitions, the size in KiB of
//   each disk, volume and partition with capacity (the kernel's show_partition).
//   A device listed there shows the size (in sectors) read with its settings,
//   read again when the listed size changes; a device not listed (no
//   capacity, removable, hidden; the file unreadable) has `size` read at every
//   scrape like `inflight`;
// - the device's settings and facts (queue/*, device/queue_depth, model,
//   vendor, wwid, the number of hardware queues, its partitions' number,
//   start and size) are cached per device and read again (each file opened,
//   read and closed: no descriptor, no kernel memory kept) when the device is
//   new, its identity (`dev` major:minor and the /sys/block entry's inode)
//   changed, its size changed (a resize, new media, a detached loop device;
//   a change within one KiB of a listed device waits for the max age),
//   its partitions changed (listed names and /sys/class/block inodes; a
//   partition's size in <procfs>/partitions, in KiB, against the cached one:
//   growpart), or the last read is `settings_max_age` old (each device at a
//   point between 3/4 of that and all of it, so that a large host's reads
//   spread over scrapes); a max age of 0 reads them at every scrape. A
//   setting written by hand (echo none > queue/scheduler) shows within that
//   age. A device is read again within kNewDeviceMaxAge of its first read,
//   and one whose queue/ was not there yet (a disk being added:
//   queue/logical_block_size unreadable) or a partition whose files were not
//   (`partition`, `start`, `size`) at the next scrape. A partition missing
//   from <procfs>/partitions, or that file unreadable, makes its disk due.
// Why: a held sysfs file costs the kernel about 4.4 KB (its seq_file page and
// open file, measured as slab growth), so holding every attribute of 1,000
// devices cost ~48 MB of kernel memory; opening a file costs ~6x a pread of a
// held one (7.1 against 1.2 us on this VM's sysfs). Reading the settings at
// every scrape was also most of a large host's scrape, and `size` half of the
// per-device reads left after that (docs/scrape_cost.md).
// `dev` comes from the listing (read once per held directory,
// BlockDevices::Device::dev()). The parent device's attributes
// (device/queue_depth, device/model, ...) of a virtual device (dm, md, loop,
// zram: a /sys/block link into /sys/devices/virtual) are never read: it has
// no parent device. Held descriptors stay within the BlockView's FdBudget
// (3/4 of RLIMIT_NOFILE less 256); files beyond it are read by opening them.
// The links under <devfs>/disk/by-id and <devfs>/disk/azure/scsi1 are re-read
// only when those directories change (their inode, mtime or ctime; a link
// cannot change without changing them).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collectors/block_view.h"
#include "collectors/collector.h"
#include "collectors/device_filter.h"
#include "collectors/host_fs.h"
#include "collectors/stable_names.h"
#include "collectors/queue_parser.h"

namespace diskperf {

class QueueCollector final : public Collector {
 public:
  /// Default of --collector.queue.settings-max-age.
  static constexpr std::chrono::minutes kDefaultSettingsMaxAge{10};
  /// `filter` is the diskstats device filter (shared); partitions are kept
  /// when their parent disk is. `view` is shared with the topology and tier
  /// collectors of the same scrape. Devices are read on up to `read_threads`
  /// threads (the calling one and read_threads - 1 started per scrape): on
  /// two CPUs two threads cut a large host's scrape time, not its CPU time.
  /// `settings_max_age`: see the rule above (0: settings read at every scrape).
  QueueCollector(std::shared_ptr<BlockView> view, std::shared_ptr<const DeviceFilter> filter,
                 std::size_t read_threads = 1,
                 std::chrono::nanoseconds settings_max_age = kDefaultSettingsMaxAge);
  /// On its own (a BlockView of its own, without a scrape epoch).
  QueueCollector(const HostPaths& paths, std::shared_ptr<const DeviceFilter> filter);
  std::string_view name() const override { return "queue"; }
  /// Fails only when /sys/block cannot be listed.
  std::optional<std::string> collect(Families& out) override;
  /// Yes: one file per device at every scrape, and all of a device's files now and then, make
  /// it the largest part of a scrape on a large host; no collector uses what it read.
  bool runs_apart() const override { return true; }

  /// Test seam: called with each device name after /sys/block was listed and
  /// before that device's files are read (lets a test remove them then).
  void set_before_device_read(std::function<void(const std::string&)> hook) { before_read_ = std::move(hook); }

  /// Test seam: the clock the settings' ages are measured with (default: steady_clock::now).
  void set_clock(std::function<std::chrono::steady_clock::time_point()> now) { clock_ = std::move(now); }

  /// Number of times a device's settings were read from sysfs since
  /// construction (for tests of the cache).
  std::size_t settings_reads() const;

  /// A device seen for the first time (new, or a new identity) is read again after at most this
  /// long (or the max age, if shorter): udev rules that set a new disk's scheduler or read-ahead
  /// run just after it appears, and a scrape in between would keep the kernel's defaults.
  static constexpr std::chrono::minutes kNewDeviceMaxAge{1};

  /// A partition of a listed disk (its own directory below the disk's).
  struct PartitionRow {
    std::string device, disk, number;  ///< "sda1", "sda", "1" (`partition`)
    std::optional<std::uint64_t> start_bytes, size_bytes;  ///< `start` and `size` x 512
  };

 private:
  /// A device's settings and facts, as read at one time (immutable once cached).
  struct Settings {
    std::string identity;  ///< "major:minor|/sys/block inode"; empty: not cacheable
    std::optional<std::uint64_t> size_bytes;  ///< the live `size` when they were read
    std::chrono::steady_clock::time_point expires;  ///< read again from then on
    std::chrono::steady_clock::time_point first_seen;  ///< the first read of this identity
    QueueSettings settings;  ///< all fields but the live ones (size_bytes, inflight)
    std::optional<std::uint64_t> hw_queues;  ///< entries of mq/ (blk-mq devices)
    /// The partitions of the disk that read as partitions: their rows, and their names and
    /// /sys/class/block inodes as listed then (a listing that differs makes the settings due).
    std::vector<PartitionRow> partitions;
    std::vector<std::pair<std::string, std::uint64_t>> partition_keys;
  };
  std::size_t read_threads_;
  std::chrono::nanoseconds settings_max_age_;
  std::shared_ptr<BlockView> view_;
  std::shared_ptr<const DeviceFilter> filter_;
  std::function<void(const std::string&)> before_read_;
  std::function<std::chrono::steady_clock::time_point()> clock_ = [] { return std::chrono::steady_clock::now(); };
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Settings>> cache_;  ///< by device name
  std::size_t settings_reads_ = 0;
};

}  // namespace diskperf
