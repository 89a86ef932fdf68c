#pragma once
// Device include/exclude filter shared by the per-device collectors
// (--collector.diskstats.device-include / -exclude).

#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace re2 {
class RE2;
}

namespace diskperf {

/// The default exclude's name rule: RAM disks, zram, loop and floppy devices.
inline constexpr const char* kDefaultDeviceExclude = R"(^(z?ram|loop|fd)\d+$)";
/// The default exclude's partitions when sysfs does not tell (a diskstats line without a
/// <sysfs>/class/block entry): node_exporter 1.5's names of partitions of sd/hd/vd/xvd and NVMe disks.
inline constexpr const char* kDefaultPartitionNames = R"(^((h|s|v|xv)d[a-z]+|nvme\d+n\d+p)\d+$)";

/// What sysfs says a device is: a partition (<sysfs>/class/block/<dev>/partition exists), a
/// whole device (its entry has none), or unknown (no entry: a tree without sysfs).
enum class DeviceKind { unknown, whole, partition };

/// Longest device name a filter accepts: the kernel's DISK_NAME_LEN is 32
/// (with the NUL), so real names are far shorter.
inline constexpr std::size_t kMaxDeviceName = 128;

/// A device regex that does not compile; what() is RE2's reason
/// ("invalid escape sequence: \1", "missing ): (sd").
struct RegexError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Compiles a device regex: RE2 syntax (https://github.com/google/re2/wiki/Syntax), nearly that
/// of Go's regexp, which node_exporter's and Prometheus' regex flags use (Go also refuses \C and
/// takes (?<name>...)); no back-references or look-arounds. RE2 matches in time linear in the
/// name, so no pattern can hold a scrape. Throws RegexError.
std::shared_ptr<const re2::RE2> compile_device_regex(const std::string& pattern);

/// Decides which device names a collector exports. A device is kept when it
/// matches `include` (if set) and does not match `exclude` (if set). The
/// default exclude applies only when neither regex is given explicitly, so
/// `--collector.diskstats.device-include=^loop` shows loop devices; it drops the
/// names of kDefaultDeviceExclude and partitions (by their DeviceKind; by
/// kDefaultPartitionNames when the kind is unknown), so Xen's whole disk xvda1 stays.
/// A regex is searched in the kernel name (unanchored, as Go's MatchString in
/// node_exporter: anchor with ^ and $). Decisions are memoised per name;
/// thread-safe. Names longer than kMaxDeviceName are never accepted.
class DeviceFilter {
 public:
  /// Throws RegexError on an invalid pattern.
  DeviceFilter(std::optional<std::string> include, std::optional<std::string> exclude);
  /// `device` is the kernel name, as /proc/diskstats spells it.
  bool accepts(const std::string& device, DeviceKind kind = DeviceKind::unknown) const;
  /// Whether accepts() looks at the kind (the default exclude): callers may skip finding it otherwise.
  bool uses_kind() const { return by_default_; }

 private:
  std::shared_ptr<const re2::RE2> include_;  ///< null: every name
  std::shared_ptr<const re2::RE2> exclude_;  ///< null: none
  std::shared_ptr<const re2::RE2> partition_names_;  ///< the default's; null with explicit regexes
  bool by_default_ = false;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, bool> memo_;
};

}  // namespace diskperf
