// diskperf_exporter entry point: command line, logging, collectors, HTTP,
// and the signal loop (SIGINT/SIGTERM stop).

#include <csignal>
#include <cstdio>
#include <iostream>

#include <spdlog/spdlog.h>

#include "collectors/diskstats_collector.h"
#include "collectors/probe_collector.h"
#include "collectors/process_collector.h"
#include "config/config.h"
#include "daemon/cli.h"
#include "daemon/exposition.h"
#include "daemon/gatherer.h"
#include "daemon/http_server.h"
#include "daemon/logging.h"
#include "daemon/probe_command.h"
#include "version.h"

namespace {

using namespace diskperf;

// Loads --config (if any) and merges it under the command line: a flag given
// on the command line wins over the same setting in the file.
std::optional<Config> load_config(const Options& o) {
  if (o.config_file.empty()) return Config{};
  FileContent file = read_file(o.config_file, 4u << 20);
  if (!file.ok()) {
    spdlog::error("cannot read config: {}", file.error);
    return std::nullopt;
  }
  ConfigResult r = parse_config(file.data);
  for (const auto& e : r.errors) spdlog::error("config error: {}", e.to_string(o.config_file));
  return r.config;
}

std::shared_ptr<Gatherer> build_gatherer(const Options& o, const Config& cfg) {
  auto include = o.diskstats_device_include ? o.diskstats_device_include : cfg.diskstats.device_include;
  auto exclude = o.diskstats_device_exclude ? o.diskstats_device_exclude : cfg.diskstats.device_exclude;
  auto filter = std::make_shared<const DeviceFilter>(include, exclude);
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<DiskstatsCollector>(o.paths, filter));
  collectors.push_back(std::make_unique<ProcessCollector>());
  if (!cfg.probes.empty()) {
    auto scheduler = std::make_shared<ProbeScheduler>(cfg.probes, o.paths);
    if (o.command == Command::serve) scheduler->start();  // `metrics` shows the jobs, runs none
    collectors.push_back(std::make_unique<ProbeCollector>(std::move(scheduler)));
  }
  return std::make_shared<Gatherer>(std::move(collectors));
}

int serve(const Options& o, std::shared_ptr<Gatherer> gatherer) {
  // Block the stop signals before any thread starts, then wait for them here.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<HttpServer> http;
  try {
    http = std::make_unique<HttpServer>(o.http, gatherer);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  auto ports = http->listening_ports();
  spdlog::info("diskperf_exporter {} (revision {}) listening on {} (port {}), metrics at {}", build::kVersion,
               build::kRevision, o.http.listen_address, ports.empty() ? 0 : ports.front(), o.http.telemetry_path);
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  spdlog::info("received signal {}, stopping", sig);
  http.reset();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ParsedCommandLine cl = parse_command_line(argc, argv);
  if (!cl.options) return cl.exit_code;
  const Options& o = *cl.options;
  setup_logging(o.log_level);
  if (o.command == Command::probe) return run_probe_command(o.probe, o.paths, std::cout, std::cerr);

  std::optional<Config> cfg = load_config(o);
  if (!cfg) return 1;
  std::shared_ptr<Gatherer> gatherer;
  try {
    gatherer = build_gatherer(o, *cfg);
  } catch (const std::regex_error& e) {
    spdlog::error("invalid device filter regex: {}", e.what());
    return 1;
  }
  if (o.command == Command::metrics) {
    std::cout << to_text(gatherer->Collect()) << std::flush;
    return 0;
  }
  return serve(o, std::move(gatherer));
}
