#pragma once
// The 32-bit millisecond fields of /proc/diskstats (read, write, discard and flush time,
// io_ticks, weighted time: printed as unsigned int, so they wrap at 2^32 ms) as 64-bit running
// values per device, for the diskstats collector. A device re-created (another major:minor or
// dm uuid) or reset (a completed-I/O count went down) starts over from the kernel's values.

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/diskstats_parser.h"

namespace diskperf {

class DiskstatsUnwrap {
 public:
  /// The identity of a device beyond major:minor: the dm uuid of a device-mapper device, "" for
  /// others. Asked when a device is first seen, when one of its time fields went down, and at
  /// every read of a device that wrapped.
  using UuidOf = std::function<std::string(const DiskstatsEntry&)>;
  explicit DiskstatsUnwrap(UuidOf uuid_of) : uuid_of_(std::move(uuid_of)) {}

  /// Rewrites the time fields of `entries` (one read of /proc/diskstats) to their running values,
  /// and forgets the devices that are not among them unless `partial` (a line of the read was
  /// rejected: its device may be one of them). A time field more than 2^31 ms lower than in the
  /// last read, of the same device, with no completed-I/O count lower, wrapped: 2^32 ms more from
  /// then on; one lower by less started over. Thread-safe; callers serialise read and apply, so
  /// that reads are applied in the order taken.
  void apply(const std::vector<DiskstatsEntry*>& entries, bool partial = false);

  /// Devices tracked now (for tests).
  std::size_t size() const;

 private:
  static constexpr std::size_t kTimes = 6;   // read, write, io_ticks, weighted, discard, flush
  static constexpr std::size_t kCounts = 4;  // reads, writes, discards, flushes completed
  struct State {
    std::uint32_t major = 0, minor = 0;
    std::string uuid;
    std::array<std::uint64_t, kTimes> raw{};     ///< as the kernel printed them last
    std::array<std::uint64_t, kTimes> offset{};  ///< 2^32 per wrap seen
    std::array<std::uint64_t, kCounts> counts{};
    std::uint64_t seen = 0;  ///< the apply() that last listed the device
  };
  /// `s` as for a device first seen: `e`'s values as they are.
  static void start_over(State& s, DiskstatsEntry& e, std::string uuid);

  UuidOf uuid_of_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, State> devices_;  // guarded by mu_, by kernel name
  std::uint64_t generation_ = 0;                    // guarded by mu_
};

}  // namespace diskperf
