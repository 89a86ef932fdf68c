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
//       imds: auto                # Instance Metadata Service: auto (on an Azure VM), on, off
//       imds_url: http://169.254.169.254
//       imds_timeout: 2s          # 100ms .. 1m
//       imds_refresh: 10m         # 10s .. 24h
//   probes:                       # synthetic direct-I/O probes (docs/probes.md)
//     - name: data_8k             # the `probe` label; [A-Za-z0-9_.-]+, unique
//       preset: db_page_8k        # optional shape preset (probes/probe_job.h)
//       target: /dev/sdc          # block device (read only), file, or directory (probe file)
//       rw: randread              # read, randread, write, randwrite, randrw (+ rwmixread: 70)
//       bs: 8k
//       iodepth: 8
//       runtime: 1s               # or number_ios: 1000
//       rate_iops: 500            # optional
//       interval: 60s
//       jitter: 5s
//       timeout: 10s              # default 10s, at most 60s
//       offset: 0
//       size: 1g                  # region; 0 or absent: to the end
//       file_size: 64m            # probe file size for a directory target
//       max_duty_cycle: 0.02      # runtime <= max_duty_cycle x interval (default 2%)
//
//   tiers: ...                    # disk tiers and VM size: config/tiers_config.h
//
// Unknown keys are errors, so a typo is caught instead of silently ignored.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/tiers_config.h"
#include "probes/probe_job.h"

namespace diskperf {

struct DiskstatsConfig {
  std::optional<std::string> device_include;
  std::optional<std::string> device_exclude;
};

/// The azure collector (collectors/azure_collector.h).
struct AzureConfig {
  std::optional<std::string> perfcounters_file;  ///< absolute path, or "" to disable
  std::optional<std::string> imds;               ///< auto, on, off
  std::optional<std::string> imds_url;           ///< http://...
  std::optional<std::chrono::milliseconds> imds_timeout, imds_refresh;
};

/// A validated configuration. Immutable once built.
struct Config {
  DiskstatsConfig diskstats;
  AzureConfig azure;
  std::vector<ProbeJob> probes;  ///< validated for shape; targets are checked when resolved
  TiersConfig tiers;             ///< tier caps per disk, VM size (config/tiers_config.h)
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
