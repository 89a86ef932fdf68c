#pragma once
// A probe job: the I/O shape (fio's terms: rw, bs, iodepth, runtime,
// number_ios, rate_iops, offset/size) and its schedule (interval, jitter,
// timeout). Pure data plus pure parsers of the option strings, shared by the
// YAML config and the `probe` command line. fio's HOWTO ("Job file
// parameters") defines every term used here.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

/// fio's `rw=` values the probe supports.
enum class RwMode { read, randread, write, randwrite, randrw };

/// "read", "randread", ...; std::nullopt for anything else.
std::optional<RwMode> parse_rw(std::string_view s);
std::string_view to_string(RwMode rw);
bool is_random(RwMode rw);
/// True when the mode issues writes (write, randwrite, randrw).
bool has_writes(RwMode rw);

/// A size in bytes: "4096", "8k", "8KiB", "64K", "1m", "1MiB", "2g" (fio's default kb_base=1024:
/// k, m, g, t are powers of 1024). std::nullopt for garbage, a negative or an overflowing value.
std::optional<std::uint64_t> parse_size(std::string_view s);

/// A duration: "100us", "500ms", "3s", "2m", "1h"; a bare number means seconds (fio's
/// runtime= unit). std::nullopt for garbage or a negative value.
std::optional<std::chrono::nanoseconds> parse_duration(std::string_view s);
/// A duration in the largest unit that divides it exactly: "10s", "24h", "100ms", "1500us".
std::string format_duration(std::chrono::nanoseconds d);

/// Most buffer memory one probe job may use: iodepth x bs rounded up to 4 KiB (one page-aligned
/// buffer per I/O slot, filled by the device; probe_buffer_bytes). Generous for any disk shape (the
/// presets use 1-8 MiB), small enough that a typo (bs: 64M, iodepth: 1024) cannot take 64 GiB from
/// a database host.
inline constexpr std::uint64_t kMaxProbeBufferBytes = 256ull << 20;

/// Whether `iodepth` buffers of `bs` bytes, each rounded up to 4 KiB, fit in kMaxProbeBufferBytes
/// (overflow-safe).
inline bool probe_buffers_fit(std::uint64_t bs, std::uint64_t iodepth) {
  if (bs == 0 || iodepth == 0) return true;
  const std::uint64_t pages = bs / 4096 + (bs % 4096 != 0);
  return pages <= kMaxProbeBufferBytes / 4096 / iodepth;
}

/// Longest `timeout` a job may have. Stopping the daemon waits about one timeout for the probe's
/// I/O in flight, so the systemd unit's TimeoutStopSec must exceed it (systemd/diskperf_exporter.service).
inline constexpr std::chrono::seconds kMaxProbeTimeout{60};

/// One probe job as configured. Sizes in bytes, times in nanoseconds.
struct ProbeJob {
  std::string name;    ///< the `probe` label
  std::string target;  ///< block device, regular file, or directory that holds the probe file
  RwMode rw = RwMode::randread;
  unsigned rwmixread = 50;  ///< percent of reads for randrw
  std::uint64_t bs = 4096;
  unsigned iodepth = 1;
  std::chrono::nanoseconds runtime{std::chrono::seconds(1)};  ///< 0 when number_ios bounds the run
  std::uint64_t number_ios = 0;                                ///< 0: bounded by runtime
  std::optional<double> rate_iops;                             ///< cap on I/Os per second
  std::chrono::nanoseconds interval{std::chrono::seconds(60)};  ///< time between run starts
  std::chrono::nanoseconds jitter{0};                           ///< random extra delay in [0, jitter]
  std::chrono::nanoseconds timeout{std::chrono::seconds(10)};   ///< one I/O longer than this: stalled
  std::uint64_t offset = 0;  ///< region start in the target (or probe file)
  std::uint64_t size = 0;    ///< region length; 0: to the end of the target
  /// Size of the probe file laid out in a directory target (writes only go there).
  std::uint64_t file_size = 64ull << 20;
  /// Maximum fraction of wall time the job may keep its disks busy (duty cycle).
  double max_duty_cycle = 0.02;
  int config_line = 0;    ///< where the job is defined in the config (0: command line)
  int config_column = 0;
};

/// A named preset from field practice (see docs/probes.md): the shape only;
/// name, target and schedule come from the job that uses it.
struct ProbePreset {
  std::string_view name;
  std::string_view description;
  RwMode rw;
  std::uint64_t bs;
  unsigned iodepth;
};

/// The shipped presets: cap_iops (4 KiB randread iodepth 256, Microsoft's cap-seeking recipe),
/// cap_throughput (64 KiB read iodepth 128), db_page_8k / db_page_16k (8 and 16 KiB randread),
/// log_write (4 KiB write iodepth 1, needs a probe file).
const std::vector<ProbePreset>& probe_presets();
const ProbePreset* find_preset(std::string_view name);

}  // namespace diskperf
