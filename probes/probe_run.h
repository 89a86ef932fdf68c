#pragma once
// Runs one probe job once on an IoEngine and returns what fio would report
// for it: per op (read, write) the I/O count, bytes, slat/clat/lat
// distributions, IOPS and bytes per second over the run's time (fio: from the
// first submit to the last completion), plus errors by kind.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "probes/latency_histogram.h"
#include "probes/probe_job.h"

namespace diskperf {

class IoEngine;

/// One direction's results (fio's `read` / `write` objects).
struct OpResult {
  std::uint64_t ios = 0;    ///< completed I/Os with the full bs transferred (fio: total_ios)
  std::uint64_t bytes = 0;  ///< bytes transferred by them (fio: io_bytes)
  LatencyHistogram slat, clat, lat;  ///< nanoseconds
};

struct RunResult {
  std::string fatal;  ///< non-empty: the run could not start or the engine failed (open, io_setup, ...)
  std::chrono::system_clock::time_point start;  ///< wall clock when the run started
  std::uint64_t runtime_ns = 0;                 ///< first submit to last completion
  OpResult read, write;
  /// Errors by kind: "eio", "timeout" (an I/O outlived the job's timeout), "short_read",
  /// "short_write", "submit" (io_submit refused), or "errno_<n>" for other errors.
  std::map<std::string, std::uint64_t> errors;
  bool stalled = false;  ///< some I/O outlived the timeout during this run
  /// Set when the run was stopped with I/O still in flight: the engine that holds it (its context
  /// and buffers, which the kernel still uses). Dropping it leaks them; reaping it shows when the
  /// disk has finished that I/O.
  std::shared_ptr<IoEngine> unfinished;

  double iops(const OpResult& op) const { return runtime_ns ? op.ios * 1e9 / runtime_ns : 0.0; }
  double bytes_per_second(const OpResult& op) const { return runtime_ns ? op.bytes * 1e9 / runtime_ns : 0.0; }
};

/// Hooks for a run: `stop` (checked at least every 100 ms) abandons the run; `on_stall` is
/// called with true when an I/O first outlives the timeout and with false once none does.
struct RunHooks {
  const std::atomic<bool>* stop = nullptr;
  std::function<void(bool)> on_stall;
};

/// Runs `job` once against `path` (the resolved device or file) whose probed region is
/// [region_offset, region_offset + region_size). Issues I/O until runtime or number_ios is
/// reached (paced by rate_iops when set), then waits for every I/O in flight, however long.
/// The I/O in flight starts at a few and grows to iodepth as the disk completes it in time
/// (probes/depth_ramp.h). After an I/O times out no new I/O is issued in this run. When
/// `hooks.stop` becomes true the run ends after at most 100 ms (or the timeout, if shorter), leaving
/// the I/O still in flight in `unfinished`.
RunResult run_probe(const ProbeJob& job, const std::string& path, std::uint64_t region_offset,
                    std::uint64_t region_size, std::uint32_t alignment, const RunHooks& hooks = {});

}  // namespace diskperf
