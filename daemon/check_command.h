#pragma once
// `diskperf_exporter check [--config FILE] [--disk PATH=TIER ...] [--runtime DURATION]
// [--output text|json]`: do my disks deliver their tier? Discovers the disks and volumes with caps
// (tiers.disks rules, --disk, PerfCounters SLA), resolves tier and caching, runs two bounded,
// read-only, cap-seeking probes per disk or volume (IOPS shape: 4 KiB randread, iodepth 256;
// throughput shape: read with a block large enough that the throughput cap binds, iodepth 64) and
// prints one row per device. Verdicts and exit codes: docs/tiers.md.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "collectors/host_fs.h"
#include "daemon/cli.h"
#include "config/cap_resolver.h"

namespace diskperf {

/// One shape's result against the caps.
struct ShapeResult {
  std::string rw;
  std::uint64_t bs = 0;
  unsigned iodepth = 0;
  double reachable_iops = 0;  ///< min(IOPS cap, throughput cap / bs)
  double iops = 0, bytes_per_second = 0;
  double p99_seconds = 0;  ///< completion latency (clat) p99
  std::string error;
};

/// One checked device's row.
struct CheckRow {
  std::string device, path, azure, tier, caching, source;
  double iops_cap = 0, bytes_per_second_cap = 0;
  ShapeResult iops_shape, throughput_shape;
  /// "meets", "below", "bursting" (above a provisioned cap: credit or on-demand bursting),
  /// "cached" (above a cap with host caching: counted against the VM's cached cap), "error".
  std::string verdict;
};

/// The verdict for measured shapes: below when a shape reaches less than `fraction` of what it can
/// reach under the caps; above a provisioned cap by more than 10%: bursting (or cached, when host
/// caching is on); 10% is the measurement tolerance; error when a shape failed.
std::string check_verdict(const CheckRow& row, double fraction);

/// Block size of the throughput shape: the smallest power of two >= 64 KiB with
/// throughput cap / bs <= IOPS cap (so the throughput cap binds), at most 1 MiB.
std::uint64_t throughput_block_size(double iops_cap, double bytes_per_second_cap);

/// The table as text (aligned columns) or JSON.
std::string check_text(const std::vector<CheckRow>& rows);
std::string check_json(const std::vector<CheckRow>& rows);

/// Exit code of a run: 2 when any row is an error (or there is no row), else 1 when any is below,
/// else 0.
int check_exit_code(const std::vector<CheckRow>& rows);

/// Runs the command. Returns the exit code; prints the table on `out`, problems on `err`.
int run_check_command(const CheckCommandOptions& o, const Options& global, std::ostream& out, std::ostream& err);

}  // namespace diskperf
