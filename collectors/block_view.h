#pragma once
// What the queue, topology and tier collectors read about block devices, read once per scrape and
// shared by them: the /sys/block listing with held device directories and the partitions
// (collectors/block_devices.h), the volume topology (collectors/volume_topology.h), and the
// stable /dev/disk names (collectors/stable_names.h, re-read only when their directories change).
// build_collectors (daemon/collector_set.cpp) gives the three collectors one BlockView tied to the
// Gatherer's ScrapeEpoch; a collector built on its own makes its own, without an epoch (every call
// reads anew).

#include <memory>
#include <mutex>
#include <string>

#include "collectors/block_devices.h"
#include "collectors/host_fs.h"
#include "collectors/scrape_epoch.h"
#include "collectors/stable_names.h"
#include "collectors/volume_topology.h"

namespace diskperf {

class BlockView {
 public:
  /// Reads <paths.sysfs>/block, <paths.sysfs>/class/block and <paths.devfs>/{disk,md}. `epoch`
  /// may be null. `budget` bounds the descriptors held by it and by its users (default:
  /// FdBudget::from_rlimit()).
  BlockView(const HostPaths& paths, std::shared_ptr<const ScrapeEpoch> epoch,
            std::shared_ptr<FdBudget> budget = nullptr);

  /// The roots it reads under.
  const HostPaths& paths() const { return paths_; }
  /// The budget for descriptors held between scrapes, shared with the queue collector.
  const std::shared_ptr<FdBudget>& fd_budget() const { return budget_; }

  /// The /sys/block listing of this scrape (its error set when /sys/block cannot be listed).
  std::shared_ptr<const BlockDevices::Listing> devices();
  /// See BlockDevices::forget.
  void forget_held(const std::string& name, const HostDir* dir) { block_.forget(name, dir); }
  /// The volumes of this scrape's listing.
  std::shared_ptr<const VolumeScan> volumes();
  /// by-id and Azure LUN names by kernel name, re-read when <devfs>/disk/by-id or
  /// <devfs>/disk/azure/scsi1 changed (inode, mtime or ctime; never cached while either changed in
  /// the last 2 s, as timestamps are coarse).
  std::shared_ptr<const StableNames> stable_names();

 private:
  HostPaths paths_;
  std::shared_ptr<FdBudget> budget_;
  BlockDevices block_;
  PerScrape<BlockDevices::Listing> devices_;
  PerScrape<VolumeScan> volumes_;
  std::mutex mu_;
  std::shared_ptr<const StableNames> names_;  // guarded by mu_
  std::string names_stamp_;                   // guarded by mu_
};

}  // namespace diskperf
