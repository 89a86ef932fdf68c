#pragma once
// The YAML configuration file (--config). Parsing is pure (text in, Config or
// errors out); the daemon reads the file. Schema (every key optional):
//
//   collectors:
//     diskstats:
//       device_include: '^(sd|nvme|dm-|md)'   # regex, see DeviceFilter
//       device_exclude: '^loop'
//     azure:
//       perfcounters_file: /var/lib/AzureEnhancedMonitor/PerfCounters  # '' disables
//
// Unknown keys are errors, so a typo is caught instead of silently ignored.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

struct DiskstatsConfig {
  std::optional<std::string> device_include;
  std::optional<std::string> device_exclude;
};

/// The azure collector (collectors/azure_collector.h).
struct AzureConfig {
  std::optional<std::string> perfcounters_file;  ///< absolute path, or "" to disable
};

/// A validated configuration. Immutable once built.
struct Config {
  DiskstatsConfig diskstats;
  AzureConfig azure;
};

/// One problem found in the file; line and column are 1-based (0 if unknown).
struct ConfigError {
  int line = 0;
  int column = 0;
  std::string message;
  std::string to_string(std::string_view file) const;  ///< "file:3:5: message"
};

struct ConfigResult {
  std::optional<Config> config;     ///< set only when `errors` is empty
  std::vector<ConfigError> errors;  ///< every problem found, in file order
};

/// Parses and validates YAML text. An empty document is a valid, empty config.
ConfigResult parse_config(std::string_view yaml_text);

}  // namespace diskperf
