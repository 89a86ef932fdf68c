#include "daemon/cli.h"

#include "collectors/azure/imds_client.h"
#include "collectors/device_filter.h"
#include "probes/probe_job.h"

#include <CLI/CLI.hpp>

#include "version.h"

namespace diskperf {
namespace {

// The reason a max-age value is refused (parse_duration's grammar, probes/probe_job.h).
std::string duration_error(const std::string& value) {
  return "'" + value + "' is not a duration: one number and one unit of ns, us, ms, s, m, h (90s, 1.5m, 10m), "
         "a bare number of seconds, or 0";
}

// A duration flag within [lo, hi], stored in milliseconds.
void add_duration_flag(CLI::App& app, const std::string& name, std::optional<std::chrono::milliseconds>& into,
                       const std::string& help, const std::string& default_str, std::chrono::milliseconds lo,
                       std::chrono::milliseconds hi) {
  app.add_option_function<std::string>(
         name, [&into](const std::string& s) {
           into = std::chrono::duration_cast<std::chrono::milliseconds>(*parse_duration(s));
         }, help)
      ->default_str(default_str)
      ->check([lo, hi, default_str](const std::string& s) -> std::string {
        const auto d = parse_duration(s);
        if (!d) return duration_error(s);
        if (*d < lo || *d > hi)
          return "'" + s + "' is outside " + format_duration(lo) + ".." + format_duration(hi);
        return "";
      });
}

void add_imds_flags(CLI::App& app, Options& o) {
  app.add_option("--azure.imds", o.azure_imds_mode,
                 "Ask the Azure Instance Metadata Service for the VM size and disks: auto (only on an Azure VM, "
                 "by its DMI vendor and asset tag), on, off")
      ->default_str("auto")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--azure.imds-url", o.azure_imds_url, "Base URL of the Instance Metadata Service (plain HTTP)")
      ->default_str(kDefaultImdsUrl)
      ->check([](const std::string& u) { return imds_url_problem(u); });
  add_duration_flag(app, "--azure.imds-timeout", o.azure_imds_timeout, "Longest an IMDS request may take", "2s",
                    std::chrono::milliseconds(100), std::chrono::minutes(1));
  add_duration_flag(app, "--azure.imds-refresh", o.azure_imds_refresh,
                    "How often IMDS is asked again (also soon after a block device appears or goes)", "10m",
                    std::chrono::seconds(10), std::chrono::hours(24));
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  Options o;
  CLI::App app{"diskperf_exporter: Prometheus exporter of disk performance against cloud disk tier caps."};
  app.set_version_flag("--version", std::string("diskperf_exporter ") + build::kVersion + " (revision " +
                                        build::kRevision + ", " + build::kCompiler + ")");
  app.fallthrough();
  app.require_subcommand(0, 1);

  app.add_option("--web.listen-address", o.http.listen_address,
                 "Address to listen on for HTTP: host:port or :port (all IPv4 interfaces; IPv6 only if CivetWeb has it)")
      ->capture_default_str()
      ->check([](const std::string& a) -> std::string {
        try {
          civetweb_listening_port(a);
          return "";
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      });
  app.add_option("--web.telemetry-path", o.http.telemetry_path, "Path under which to expose metrics")
      ->capture_default_str()
      ->check([](const std::string& p) { return !p.empty() && p[0] == '/' ? "" : "must start with /"; });
  app.add_flag("--web.enable-lifecycle", o.http.enable_lifecycle, "Enable POST /-/reload");
  app.add_option("--web.config.file", o.http.web_config_file,
                 "Web config file (exporter-toolkit format): TLS, basic auth, response headers");
  app.add_option("--web.max-threads", o.http.num_threads,
                 "HTTP worker threads: the most connections (idle ones included) served at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--web.request-timeout", o.http.request_timeout_ms,
                 "Milliseconds a client may take to send a request before it is dropped")
      ->capture_default_str()
      ->check(CLI::Range(100, 600000));
  app.add_option("--web.max-request-size", o.http.max_request_size,
                 "Bytes a request's line and headers may take; a larger one is refused with 400")
      ->capture_default_str()
      ->check(CLI::Range(1024, 1048576));
  app.add_option("--path.procfs", o.paths.procfs, "procfs mount point")->capture_default_str();
  app.add_option("--path.sysfs", o.paths.sysfs, "sysfs mount point")->capture_default_str();
  app.add_option("--path.devfs", o.paths.devfs, "devfs mount point (udev links under disk/, md/, mapper/)")
      ->capture_default_str();
  app.add_option("--collector.topology.dm-table-dir", o.dm_table_dir,
                 "Read device-mapper tables from DIR/<dm-N> files (`dmsetup table` output) instead of the "
                 "kernel (offline analysis, tests)");
  app.add_option("--config", o.config_file, "YAML configuration file (optional)");
  app.add_option("--log.level", o.log_level, "Log level: debug, info, warn, error")
      ->capture_default_str()
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}));
  const auto valid_regex = [](const std::string& re) -> std::string {
    try {
      compile_device_regex(re);
      return "";
    } catch (const RegexError& e) {
      return std::string("invalid regular expression: ") + e.what();
    }
  };
  // --collector.<name> / --no-collector.<name>, as node_exporter's (default: on).
  const auto collector_flag = [&](const char* name, bool& on, const char* what) {
    const std::string n(name);
    app.add_flag("--collector." + n + ",!--no-collector." + n, on,
                 std::string("Enable the ") + name + " collector (" + what + "; default on)");
  };
  collector_flag("diskstats", o.collectors.diskstats, "/proc/diskstats");
  collector_flag("queue", o.collectors.queue, "queue settings, size, inflight and device facts from /sys/block");
  collector_flag("topology", o.collectors.topology, "dm and md volumes and their member disks");
  collector_flag("azure", o.collectors.azure, "the Azure Enhanced Monitoring PerfCounters file");
  collector_flag("tier", o.collectors.tier, "IOPS and MB/s caps by tier, VM size and config");
  // An empty value is a valid one, as in node_exporter (`--collector.diskstats.device-exclude=`:
  // exclude nothing, not even the default) and in the config file.
  app.add_option("--collector.diskstats.device-include", o.diskstats_device_include,
                 "Regex of devices to include (default: all but the exclude default)")
      ->expected(0, 1)
      ->check(valid_regex);
  app.add_option("--collector.diskstats.device-exclude", o.diskstats_device_exclude,
                 "Regex of devices to exclude (default, when neither is set: ^(z?ram|loop|fd)\\d+$ and "
                 "partitions, as sysfs tells; by name ^((h|s|v|xv)d[a-z]+|nvme\\d+n\\d+p)\\d+$ without "
                 "a sysfs entry); empty: none")
      ->expected(0, 1)
      ->check(valid_regex);

  // Checked before the callback runs (CLI11 validates, then calls back), so the parse succeeds there.
  app.add_option_function<std::string>(
         "--collector.queue.settings-max-age", [&o](const std::string& s) { o.queue_settings_max_age = *parse_duration(s); },
         "Longest time a device's queue settings, device facts and partitions are kept before they are "
         "read again (also read when the device, its size or its partitions change); 0: at every scrape")
      ->default_str(std::to_string(QueueCollector::kDefaultSettingsMaxAge.count()) + "m")
      ->check([](const std::string& s) -> std::string {
        return parse_duration(s) ? "" : duration_error(s);
      });

  app.add_option_function<std::string>(
         "--collector.topology.max-age", [&o](const std::string& s) { o.topology_max_age = *parse_duration(s); },
         "Longest time a device-mapper volume's dm/name, dm/uuid and table are kept before they are read "
         "again (also read when its members in slaves/, its /sys/block entry or its size change, or a "
         "block device or partition is added, removed or replaced); 0: at every scrape")
      ->default_str(std::to_string(BlockView::kDefaultDmMaxAge.count()) + "m")
      ->check([](const std::string& s) -> std::string {
        return parse_duration(s) ? "" : duration_error(s);
      });

  app.add_option("--azure.perfcounters-file", o.azure_perfcounters_file,
                 "Azure Enhanced Monitoring PerfCounters file; empty disables the azure collector "
                 "(default: /var/lib/AzureEnhancedMonitor/PerfCounters)")
      ->expected(0, 1)      // `--azure.perfcounters-file=` (empty) is a valid value
      ->default_str("");

  add_imds_flags(app, o);

  CLI::App* serve = app.add_subcommand("serve", "Run the exporter daemon (the default)");
  CLI::App* metrics = app.add_subcommand("metrics", "Gather once, print the exposition text on stdout, exit");
  CLI::App* validate = app.add_subcommand("validate-config", "Check a config file; print each error with line and column");
  validate->add_option("file", o.config_file, "The YAML config file")->required();
  CLI::App* probe = app.add_subcommand("probe", "Run one probe job (libaio, O_DIRECT) in the foreground and print fio-like results");
  probe->add_option("--target", o.probe.target, "Block device (read only), file, or directory for a probe file")
      ->required();
  probe->add_option("--rw", o.probe.rw, "read, randread, write, randwrite, randrw")->capture_default_str();
  probe->add_option("--bs", o.probe.bs, "Block size (4k, 8KiB, 1m, ...)")->capture_default_str();
  probe->add_option("--iodepth", o.probe.iodepth, "I/Os kept in flight")->capture_default_str();
  probe->add_option("--runtime", o.probe.runtime, "Run time (3s, 500ms, ...)")->capture_default_str();
  probe->add_option("--number-ios", o.probe.number_ios, "Stop after this many I/Os instead of --runtime");
  probe->add_option("--rate-iops", o.probe.rate_iops, "Cap on I/Os per second");
  probe->add_option("--timeout", o.probe.timeout, "One I/O longer than this is a timeout")->capture_default_str();
  probe->add_option("--offset", o.probe.offset, "Region start")->capture_default_str();
  probe->add_option("--size", o.probe.size, "Region length (0: to the end)")->capture_default_str();
  probe->add_option("--output", o.probe.output, "text or json (fio --output-format=json shape)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));

  CLI::App* check = app.add_subcommand("check", "Probe each disk or volume (read only) and tell whether it "
                                                "delivers its tier's caps; exit 0 all meet, 1 some below, 2 error");
  check->add_option("--disk", o.check.disks, "PATH=TIER: check this disk as this tier (repeatable), e.g. "
                                             "/dev/sdc=P30")
      ->check([](const std::string& s) { return s.find('=') != std::string::npos ? "" : "expected PATH=TIER"; });
  check->add_option("--runtime", o.check.runtime, "Run time of each probe shape (two per disk)")
      ->capture_default_str();
  check->add_option("--output", o.check.output, "text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return {std::nullopt, app.exit(e)};
  }
  (void)serve;
  if (metrics->parsed()) o.command = Command::metrics;
  if (validate->parsed()) o.command = Command::validate_config;
  if (probe->parsed()) o.command = Command::probe;
  if (check->parsed()) o.command = Command::check;
  return {std::move(o), 0};
}

}  // namespace diskperf
