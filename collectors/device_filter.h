#pragma once
// Device include/exclude filter shared by the per-device collectors
// (--collector.diskstats.device-include / -exclude).

#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>

namespace diskperf {

/// node_exporter 1.5's default exclude, plus zram: RAM disks, zram, loop and
/// floppy devices, and partitions of sd/hd/vd/xvd and NVMe disks.
inline constexpr const char* kDefaultDeviceExclude =
    R"(^(z?ram|loop|fd|(h|s|v|xv)d[a-z]+|nvme\d+n\d+p)\d+$)";

/// Decides which device names a collector exports. A device is kept when it
/// matches `include` (if set) and does not match `exclude` (if set). The
/// default exclude applies only when neither regex is given explicitly, so
/// `--collector.diskstats.device-include=^loop` shows loop devices.
/// Regexes are ECMAScript (std::regex), matched against the whole kernel
/// name with regex_search (anchor with ^ and $ as node_exporter users do).
/// Decisions are memoised per name; thread-safe. Names longer than
/// kMaxDeviceName are never accepted.
/// Longest device name a filter accepts: the kernel's DISK_NAME_LEN is 32
/// (with the NUL), so real names are far shorter.
inline constexpr std::size_t kMaxDeviceName = 128;

/// Compiles a device regex (ECMAScript). Back-references (\1 to \9 and longer numbers) are
/// refused with std::regex_error (error_backref), as Prometheus' RE2 refuses them: they never help
/// to match a device name, and libstdc++'s compiler overflows a long on a long number
/// ("\555...", undefined behaviour found by fuzz_config). Throws std::regex_error.
std::regex compile_device_regex(const std::string& pattern, std::regex::flag_type extra = {});

class DeviceFilter {
 public:
  /// Throws std::regex_error on an invalid pattern.
  DeviceFilter(std::optional<std::string> include, std::optional<std::string> exclude);
  bool accepts(const std::string& device) const;

 private:
  std::optional<std::regex> include_;
  std::optional<std::regex> exclude_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, bool> memo_;
};

}  // namespace diskperf
