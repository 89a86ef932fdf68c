#pragma once
// How many I/Os a probe run may keep in flight: a few at first, doubled each
// time a window of them completes well within the job's timeout, and never more
// than the disk has shown it completes in one timeout. A disk that hangs then
// holds only a few of the probe's I/Os, so stopping waits about a timeout at most.

#include <cstdint>

namespace diskperf {

class DepthRamp {
 public:
  /// I/Os in flight at the start of a run (or iodepth when lower).
  static constexpr unsigned kInitialDepth = 4;

  /// A run of `iodepth` slots and I/O timeout `timeout_ns` that starts at `start_ns`.
  DepthRamp(unsigned iodepth, std::uint64_t timeout_ns, std::uint64_t start_ns);

  /// I/Os the run may have in flight now: between min(kInitialDepth, iodepth) and iodepth.
  unsigned allowed() const { return allowed_; }

  /// Counts `n` completions seen at `now_ns`. When the window (allowed() completions) is full:
  /// done within half a timeout, the depth doubles (capped at iodepth and at the completions per
  /// timeout measured so far); done slower than one timeout, it drops to what the disk completed
  /// in one timeout.
  void on_completions(unsigned n, std::uint64_t now_ns);

  /// At `now_ns`, a window open longer than one timeout shows what the disk completes per
  /// timeout: the depth drops to that (never below the initial depth) and a new window starts.
  void tick(std::uint64_t now_ns);

 private:
  void next_window(unsigned depth, std::uint64_t now_ns);

  unsigned iodepth_;
  unsigned floor_;
  unsigned allowed_;
  std::uint64_t timeout_ns_;
  std::uint64_t window_start_;
  unsigned window_done_ = 0;
  std::uint64_t best_per_timeout_ = 0;  ///< most completions per timeout any window has shown
};

}  // namespace diskperf
