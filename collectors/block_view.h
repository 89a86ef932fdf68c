#pragma once
// What the queue, topology and tier collectors read about block devices, read once per scrape and
// shared by them: the /sys/block listing with held device directories and the partitions
// (collectors/block_devices.h), <procfs>/partitions (sizes), the volume topology with the
// device-mapper tables (collectors/volume_topology.h; dm volumes kept between scrapes by a
// DmVolumeCache), and the stable /dev/disk names (collectors/stable_names.h, re-read only when
// their directories change).
// build_collectors (daemon/collector_set.cpp) gives the three collectors one BlockView tied to the
// Gatherer's ScrapeEpoch; a collector built on its own makes its own, without an epoch (every call
// reads anew).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/block_devices.h"
#include "collectors/dm_table_source.h"
#include "collectors/host_fs.h"
#include "collectors/queue_parser.h"
#include "collectors/scrape_epoch.h"
#include "collectors/stable_names.h"
#include "collectors/volume_topology.h"

namespace diskperf {

/// <procfs>/partitions as read in one scrape: the kernel's size in KiB of every disk, volume and
/// partition with capacity (block/genhd.c show_partition; parse_proc_partitions).
struct ProcPartitionsRead {
  std::optional<std::string> error;                    ///< why it could not be read (kib then empty)
  std::unordered_map<std::string, std::uint64_t> kib;  ///< size in KiB by kernel name (the first line of a name)
};

class BlockView {
 public:
  /// Default of --collector.topology.max-age (DmVolumeCache).
  static constexpr std::chrono::minutes kDefaultDmMaxAge{10};
  /// Reads <paths.sysfs>/block, <paths.sysfs>/class/block, <paths.procfs>/partitions and
  /// <paths.devfs>/{disk,md}. `epoch` may be null. `budget` bounds the descriptors held by it and
  /// by its users (default: FdBudget::from_rlimit()). `tables` gives the dm tables of the volume
  /// scan (null: none read, VolumeInfo::dm_table unset). `dm_max_age`: the longest a dm volume is
  /// kept between scans (DmVolumeCache; 0: read at every scan).
  BlockView(const HostPaths& paths, std::shared_ptr<const ScrapeEpoch> epoch,
            std::shared_ptr<FdBudget> budget = nullptr, std::shared_ptr<DmTableSource> tables = nullptr,
            std::chrono::nanoseconds dm_max_age = kDefaultDmMaxAge);

  /// The roots it reads under.
  const HostPaths& paths() const { return paths_; }
  /// The budget for descriptors held between scrapes, shared with the queue collector.
  const std::shared_ptr<FdBudget>& fd_budget() const { return budget_; }

  /// The /sys/block listing of this scrape (its error set when /sys/block cannot be listed).
  std::shared_ptr<const BlockDevices::Listing> devices();
  /// See BlockDevices::forget.
  void forget_held(const std::string& name, const HostDir* dir) { block_.forget(name, dir); }
  /// <procfs>/partitions of this scrape. A read that fails is logged (a warning) when the last one
  /// did not fail, and the next one that succeeds too (info).
  std::shared_ptr<const ProcPartitionsRead> proc_partitions();
  /// The volumes of this scrape's listing, with their dm tables.
  std::shared_ptr<const VolumeScan> volumes();
  /// dm volumes kept between scans now (for tests).
  std::size_t dm_volumes_kept() const { return dm_cache_.size(); }
  /// Test seam: the clock the dm volumes' ages are measured with (default: steady_clock::now).
  void set_clock(std::function<std::chrono::steady_clock::time_point()> now) { clock_ = std::move(now); }
  /// by-id names, Azure LUNs and OS disk by kernel name, re-read when <devfs>/disk/by-id or a
  /// directory of Azure links changed (inode, mtime or ctime; never cached while either changed in
  /// the last 2 s, as timestamps are coarse).
  std::shared_ptr<const StableNames> stable_names();

 private:
  HostPaths paths_;
  std::shared_ptr<FdBudget> budget_;
  BlockDevices block_;
  std::shared_ptr<DmTableSource> tables_;
  DmVolumeCache dm_cache_;
  std::function<std::chrono::steady_clock::time_point()> clock_ = [] { return std::chrono::steady_clock::now(); };
  std::atomic<std::size_t> partitions_size_hint_{0};  ///< buffer for <procfs>/partitions, from the last read
  std::atomic<bool> partitions_readable_{true};       ///< whether the last read of it succeeded (logged on change)
  PerScrape<BlockDevices::Listing> devices_;
  PerScrape<ProcPartitionsRead> proc_partitions_;
  PerScrape<VolumeScan> volumes_;
  std::mutex mu_;
  std::shared_ptr<const StableNames> names_;  // guarded by mu_
  std::string names_stamp_;                   // guarded by mu_
};

}  // namespace diskperf
