#pragma once
// queue collector: how each block device in /sys/block (through
// --path.sysfs) is set up: SCSI queue depth, request queue settings, block
// sizes, size, requests in flight, hardware queues, and an info series with
// scheduler, write cache, model, vendor, wwid and the stable /dev names
// (/dev/disk/by-id, Azure's /dev/disk/azure/scsi1/lunN, through --path.devfs).
// Partitions get an info series naming their parent disk.
//
// Cost per scrape: one directory listing of /sys/block and of each device's
// directory, plus about a dozen small reads per device. The live attribute
// files and `dev`/`diskseq` are kept open between scrapes and read again with
// pread(2) at offset 0 (sysfs produces the value anew on every such read);
// they are reopened when the device's directory is a new one (its inode
// changed: the device went away and came back), and a file that was absent is
// looked for again at every scrape. At most half of RLIMIT_NOFILE (less 256)
// descriptors are kept; devices beyond that are read by opening each file.
// Cost on the kernel side: one open file (and its seq_file page) per attribute. The links under <devfs>/disk/by-id and
// <devfs>/disk/azure/scsi1 are re-read only when those directories change
// (their inode, mtime or ctime; a link cannot change without changing them). Attributes that only change with the device
// (block sizes, max_hw_sectors_kb, model, vendor, wwid, number of hardware
// queues) are cached per device and re-read when its identity (`dev`
// major:minor and `diskseq`) changes or it disappears.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "collectors/collector.h"
#include "collectors/device_filter.h"
#include "collectors/host_fs.h"
#include "collectors/stable_names.h"
#include "collectors/queue_parser.h"

namespace diskperf {

/// Stable /dev names by kernel name (defined in queue_collector.cpp).
/// Open descriptors of one device's live attribute files (queue_collector.cpp).
class QueueHeldFiles;

class QueueCollector final : public Collector {
 public:
  /// `filter` is the diskstats device filter (shared); partitions are kept
  /// when their parent disk is.
  QueueCollector(HostPaths paths, std::shared_ptr<const DeviceFilter> filter);
  std::string_view name() const override { return "queue"; }
  /// Fails only when /sys/block cannot be listed.
  std::optional<std::string> collect(Families& out) override;

  /// Test seam: called with each device name after /sys/block was listed and
  /// before that device's files are read (lets a test remove them then).
  void set_before_device_read(std::function<void(const std::string&)> hook) { before_read_ = std::move(hook); }

  /// Number of devices whose static attributes were (re)read from sysfs
  /// since construction (for tests of the cache).
  std::size_t static_reads() const;

 private:
  struct StaticInfo {
    std::string identity;  ///< "dev|diskseq" texts; empty: not cacheable
    SysfsAttrs attrs;
    std::optional<std::uint64_t> hw_queues;
  };
  StaticInfo static_info(const std::string& device, const HostDir& dir, const std::string& identity);
  /// by-id link names and Azure LUNs by kernel name, re-read when either
  /// directory's stamp (inode, mtime, ctime) changed.
  std::shared_ptr<const StableNames> stable_names();

  HostPaths paths_;
  std::shared_ptr<const DeviceFilter> filter_;
  std::function<void(const std::string&)> before_read_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, StaticInfo> cache_;
  std::size_t static_reads_ = 0;
  std::shared_ptr<const StableNames> names_;  ///< guarded by mu_
  std::string names_stamp_;
  /// The device's held attribute files, (re)opened when its directory is new.
  std::shared_ptr<const QueueHeldFiles> held_files(const std::string& device, const HostDir& dir);
  std::unordered_map<std::string, std::shared_ptr<const QueueHeldFiles>> held_;  ///< guarded by mu_
  std::shared_ptr<std::atomic<long>> held_fds_ = std::make_shared<std::atomic<long>>(0);
  long fd_budget_ = 0;  ///< descriptors this collector may keep open (from RLIMIT_NOFILE)
};

}  // namespace diskperf
