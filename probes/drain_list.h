#pragma once
// The I/O that stopped probe runs left in flight, by physical disk. A new run on
// those disks waits until the disk has finished it: that I/O would otherwise
// sit in the disk's queue ahead of the new run's and be measured as its latency.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace diskperf {

class IoEngine;

class DrainList {
 public:
  /// Keeps `engine` (abandoned, with I/O in flight) against `disks`.
  void add(const std::vector<std::string>& disks, std::shared_ptr<IoEngine> engine);
  /// Reaps, without waiting, what the kept engines' disks have completed, releases the engines
  /// with nothing left in flight, and returns the I/Os still in flight on any of `disks`.
  unsigned pending(const std::vector<std::string>& disks);

 private:
  struct Entry {
    std::vector<std::string> disks;
    std::shared_ptr<IoEngine> engine;
  };
  std::mutex mu_;
  std::vector<Entry> entries_;
};

}  // namespace diskperf
