#pragma once
// Command line: `diskperf_exporter [serve]` runs the daemon;
// `diskperf_exporter metrics` gathers once and prints the exposition;
// `diskperf_exporter validate-config FILE` checks a config file.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/host_fs.h"
#include "collectors/queue_collector.h"
#include "daemon/http_server.h"

namespace diskperf {

enum class Command { serve, metrics, validate_config, probe, check };

/// `diskperf_exporter probe ...`: one probe job in the foreground (daemon/probe_command.h).
struct ProbeCommandOptions {
  std::string target;
  std::string rw = "randread";
  std::string bs = "4k";
  unsigned iodepth = 1;
  std::string runtime = "3s";
  std::uint64_t number_ios = 0;
  std::optional<double> rate_iops;
  std::string timeout = "10s";
  std::string offset = "0";
  std::string size = "0";
  std::string output = "text";
};

/// `diskperf_exporter check ...`: probe each disk against its tier (daemon/check_command.h).
struct CheckCommandOptions {
  std::vector<std::string> disks;  ///< PATH=TIER
  std::string runtime = "5s";      ///< per probe shape
  std::string output = "text";
};

/// Which host collectors run (--[no-]collector.<name>, as node_exporter's flags): all by default.
/// The process, probe and config metrics are always on. Azure is also off with an empty
/// --azure.perfcounters-file.
struct CollectorSwitches {
  bool diskstats = true;  ///< /proc/diskstats
  bool queue = true;      ///< /sys/block/<dev>/queue/*, size, inflight, device facts, partitions
  bool topology = true;   ///< dm and md volumes and their members
  bool azure = true;      ///< the Enhanced Monitoring PerfCounters file (off: not read at all,
                          ///< so the tier collector has no PerfCounters facts either)
  bool tier = true;       ///< caps by tier, VM size and config
};

struct Options {
  Command command = Command::serve;
  CollectorSwitches collectors;
  HttpOptions http;
  HostPaths paths;
  std::string config_file;  ///< empty: no config file (for validate-config: the file to check)
  std::string log_level = "info";
  std::optional<std::string> diskstats_device_include;
  std::optional<std::string> diskstats_device_exclude;
  std::optional<std::string> azure_perfcounters_file;  ///< set only when given; "" disables
  /// --azure.imds*: set only when given (else the config's, else the defaults of ImdsOptions).
  std::optional<std::string> azure_imds_mode, azure_imds_url;
  std::optional<std::chrono::milliseconds> azure_imds_timeout, azure_imds_refresh;
  std::string dm_table_dir;  ///< --collector.topology.dm-table-dir; empty: live tables (libdevmapper)
  /// --collector.queue.settings-max-age (0: every scrape).
  std::chrono::nanoseconds queue_settings_max_age = QueueCollector::kDefaultSettingsMaxAge;
  /// --collector.topology.max-age: longest a dm volume is kept between scrapes (0: every scrape).
  std::chrono::nanoseconds topology_max_age = BlockView::kDefaultDmMaxAge;
  ProbeCommandOptions probe;
  CheckCommandOptions check;
};

/// Result of parsing argv: either options to run with, or an exit code
/// (after --help, --version or a usage error, already printed).
struct ParsedCommandLine {
  std::optional<Options> options;
  int exit_code = 0;
};

ParsedCommandLine parse_command_line(int argc, const char* const* argv);

}  // namespace diskperf
