#pragma once
// Pure parser of the Azure Enhanced Monitoring PerfCounters file
// (/var/lib/AzureEnhancedMonitor/PerfCounters), as written by the
// "Azure Enhanced Monitoring for Linux" extension (Azure/azure-linux-extensions,
// AzureEnhancedMonitor/ext/aem.py, class PerfCounter.__str__). One counter per
// line, 10 `;`-separated fields and a trailing `;`:
//   type;category;name;instance;empty flag;value;unit;refresh interval;timestamp;machine;
// Format notes and quirks: docs/azure.md and the project's PERFCOUNTERS.md.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

/// Field 1, the writer's PerfCounterType. Informational only: the writer puts
/// floats in type-3 counters and strings in `config;Error`, so values are
/// never parsed by type.
enum class PerfCounterType : int { invalid = 0, int32 = 1, dbl = 2, int64 = 3, string = 4 };

/// One accepted line.
struct PerfCounter {
  PerfCounterType type = PerfCounterType::invalid;  ///< field 1 (0-4)
  std::string category;  ///< field 2: config, cpu, memory, network, disk, storage
  std::string name;      ///< field 3 ("SLA Throughput", "Phys. Disc to Storage Mapping")
  /// Field 4, normalised: a leading "/dev/" is removed, so the OS disk written
  /// as "/dev/sda" reads "sda" like the bare data-disk names (the kernel name,
  /// as in /proc/diskstats). Storage accounts and NICs are unchanged.
  std::string instance;
  bool empty = false;    ///< field 5 is 1: the writer had no value (field 6 empty)
  std::string value;     ///< field 6 verbatim (Python 2 str()); empty when `empty`
  /// Field 6 as a number, set only when the whole value is a finite decimal
  /// number ("7500", "0.977865346273", "-1", "1e+20"). Not set for empty
  /// values, text ("(03101)Failed ..."), "nan", "inf", or a value out of the
  /// range of double ("1e400"). Range checks for the quantity (e.g. no
  /// negative IOPS) are the consumer's.
  std::optional<double> number;
  std::string unit;                  ///< field 7 ("none" where there is none)
  std::int64_t refresh_interval_s = 0;  ///< field 8, seconds (0 or 60)
  std::int64_t timestamp = 0;        ///< field 9, Unix seconds, per counter
  std::string machine;               ///< field 10, host name
};

/// A line that was skipped, with a reason for logs and tests.
struct PerfCountersRejectedLine {
  std::size_t line_number = 0;  ///< 1-based
  std::string reason;
};

struct PerfCountersParse {
  std::vector<PerfCounter> counters;  ///< accepted lines, in file order
  std::size_t rejected_lines = 0;     ///< every rejected line, counted
  /// The first kMaxRejectedReasons rejected lines with their reason.
  std::vector<PerfCountersRejectedLine> rejected;
  /// The last line has no '\n' and is not a complete counter line: it was
  /// cut off (a reader caught the file half written). That line is neither a
  /// counter nor counted as rejected. A complete last line without '\n' (a
  /// file missing its final newline) is accepted and does not set this: a
  /// line with all 10 fields and the trailing ';' cannot be a cut-off one.
  bool ends_mid_line = false;
  static constexpr std::size_t kMaxRejectedReasons = 32;
};

/// Parses the whole text of a PerfCounters file. Never throws. Accepts LF or
/// CRLF line ends; ignores blank lines. A line is rejected (counted, and
/// other lines unaffected) when it does not have exactly 10 fields plus the
/// trailing ';', when field 1 is not 0-4, field 2 or 3 is empty, field 5 is
/// not 0 or 1, field 8 or 9 is not a non-negative integer, or the line holds
/// control characters or is not valid UTF-8 (binary garbage).
PerfCountersParse parse_perfcounters(std::string_view text);

/// Strips a leading "/dev/" from a device instance ("/dev/sda" -> "sda").
std::string normalise_instance(std::string_view instance);

}  // namespace diskperf
