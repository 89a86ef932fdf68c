#pragma once
// queue collector: how each block device in /sys/block (through
// --path.sysfs) is set up: SCSI queue depth, request queue settings, block
// sizes, size, requests in flight, hardware queues, and an info series with
// scheduler, write cache, model, vendor, wwid and the stable /dev names
// (/dev/disk/by-id, Azure's /dev/disk/azure/scsi1/lunN, through --path.devfs).
// Partitions get an info series naming their parent disk.
//
// Cost per scrape: the /sys/block and /sys/class/block listings shared with
// the topology and tier collectors (collectors/block_view.h: device
// directories held open, partitions from class/block), then about a dozen
// small reads per device (the live ones on `read_threads` threads). `dev`
// comes from the listing (read once per held directory,
// BlockDevices::Device::dev()). The live attribute files and `diskseq` are
// kept open by the device's held directory (HostDir::read_kept) and read
// again with pread(2) at offset 0 (sysfs produces the value anew on every
// such read); they go with the directory, so a new directory (a new
// /sys/block entry: the device went away and came back) opens them anew, and
// a file that was absent is looked for again at every scrape, except the
// parent device's attributes (device/queue_depth, device/model, ...) of a
// virtual device (dm, md, loop, zram: a /sys/block link into
// /sys/devices/virtual), which has no parent device: those are never read.
// Held descriptors (directories and files) stay within the BlockView's
// FdBudget (3/4 of RLIMIT_NOFILE less 256); files beyond it are read by
// opening them. Cost on the
// kernel side: one open file (and its seq_file page) per attribute. The links
// under <devfs>/disk/by-id and <devfs>/disk/azure/scsi1 are re-read only when
// those directories change (their inode, mtime or ctime; a link cannot change
// without changing them). Attributes that only change with the device
// (block sizes, max_hw_sectors_kb, model, vendor, wwid, number of hardware
// queues) are cached per device and re-read when its identity (`dev`
// major:minor, `diskseq` and the /sys/block entry's inode) changes or it disappears.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "collectors/block_view.h"
#include "collectors/collector.h"
#include "collectors/device_filter.h"
#include "collectors/host_fs.h"
#include "collectors/stable_names.h"
#include "collectors/queue_parser.h"

namespace diskperf {

class QueueCollector final : public Collector {
 public:
  /// `filter` is the diskstats device filter (shared); partitions are kept
  /// when their parent disk is. `view` is shared with the topology and tier
  /// collectors of the same scrape. The live attributes are read on up to
  /// `read_threads` threads (the calling one and read_threads - 1 started per
  /// scrape): the reads are most of a large host's scrape, and on two CPUs
  /// two threads cut its wall time, not its CPU time.
  QueueCollector(std::shared_ptr<BlockView> view, std::shared_ptr<const DeviceFilter> filter,
                 std::size_t read_threads = 1);
  /// On its own (a BlockView of its own, without a scrape epoch).
  QueueCollector(const HostPaths& paths, std::shared_ptr<const DeviceFilter> filter);
  std::string_view name() const override { return "queue"; }
  /// Fails only when /sys/block cannot be listed.
  std::optional<std::string> collect(Families& out) override;
  /// Yes: about ten files per device make it most of a scrape on a large host, and no collector
  /// uses what it read.
  bool runs_apart() const override { return true; }

  /// Test seam: called with each device name after /sys/block was listed and
  /// before that device's files are read (lets a test remove them then).
  void set_before_device_read(std::function<void(const std::string&)> hook) { before_read_ = std::move(hook); }

  /// Number of devices whose static attributes were (re)read from sysfs
  /// since construction (for tests of the cache).
  std::size_t static_reads() const;

 private:
  struct StaticInfo {
    std::string identity;  ///< "dev|diskseq|/sys/block inode"; empty: not cacheable
    QueueSettings settings;  ///< only the static attributes' fields are set
    std::optional<std::uint64_t> hw_queues;
  };
  /// `is_virtual`: BlockDevices::Device::is_virtual (no device/ attributes read).
  std::shared_ptr<const StaticInfo> static_info(const std::string& device, const HostDir& dir, bool is_virtual,
                                                const std::string& identity);
  std::size_t read_threads_;
  std::shared_ptr<BlockView> view_;
  std::shared_ptr<const DeviceFilter> filter_;
  std::function<void(const std::string&)> before_read_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const StaticInfo>> cache_;
  std::size_t static_reads_ = 0;
};

}  // namespace diskperf
