// diskperf_exporter entry point: command line, logging, config, collectors,
// HTTP, and the main loop: signals (SIGHUP reload, SIGINT/SIGTERM stop) and
// systemd readiness and watchdog pings.

#include <signal.h>

#include <iostream>
#include <thread>

#include <spdlog/spdlog.h>

#include "collectors/host_fs.h"
#include "config/web_config.h"
#include "daemon/check_command.h"
#include "daemon/cli.h"
#include "daemon/collector_set.h"
#include "daemon/exposition.h"
#include "daemon/gatherer.h"
#include "daemon/http_server.h"
#include "daemon/logging.h"
#include "daemon/process_setup.h"
#include "daemon/probe_command.h"
#include "daemon/reloader.h"
#include "daemon/systemd_notify.h"
#include "version.h"

namespace {

using namespace diskperf;

int validate_config(const Options& o) {
  ConfigResult r = load_config_file(o.config_file, [&](const Config& cfg) { return check_config_on_host(o, cfg); });
  for (const auto& e : r.errors) std::cerr << (e.line > 0 ? e.to_string(o.config_file) : e.message) << "\n";
  if (!r.config) return 1;
  std::cout << o.config_file << ": OK\n";
  return 0;
}

// Reads and validates --web.config.file; logs every error with line and column.
std::optional<WebConfig> load_web_config_file(const std::string& path) {
  FileContent file = read_file(path, 1u << 20);
  if (!file.ok()) {
    spdlog::error("cannot read web config: {}", file.error);
    return std::nullopt;
  }
  WebConfigResult r = parse_web_config(file.data);
  for (const auto& e : r.errors) spdlog::error("web config error: {}", e.to_string(path));
  return r.config;
}

// The main loop: waits for signals; pings the watchdog while it runs.
int run_main_loop(ConfigReloader& reloader) {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  auto watchdog = watchdog_period();
  timespec tick{1, 0};
  if (watchdog) {
    tick.tv_sec = watchdog->count() / 1000000;
    tick.tv_nsec = (watchdog->count() % 1000000) * 1000;
  }
  for (;;) {
    int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig == SIGHUP) {
      spdlog::info("SIGHUP: reloading config");
      notify_reloading(true);
      reloader.reload();
      notify_reloading(false);
    } else if (sig == SIGINT || sig == SIGTERM) {
      spdlog::info("received signal {}, stopping", sig);
      return 0;
    }
    if (watchdog) notify_watchdog();
  }
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  configure_allocator();
  raise_open_files_limit();

  ParsedCommandLine cl = parse_command_line(argc, argv);
  if (!cl.options) return cl.exit_code;
  const Options& o = *cl.options;
  // The daemon's main loop waits for these: blocked before any thread starts. The one-shot
  // commands keep their default action, so Ctrl-C or SIGTERM ends them at once.
  if (o.command == Command::serve) {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }
  setup_logging(o.log_level);
  if (o.command == Command::validate_config) return validate_config(o);
  if (o.command == Command::probe) return run_probe_command(o.probe, o.paths, std::cout, std::cerr);
  if (o.command == Command::check) return run_check_command(o.check, o, std::cout, std::cerr);

  // Every valid config (at start and on reload) rebuilds the collector set;
  // the reloader serves its own status as one of the collectors.
  auto epoch = std::make_shared<ScrapeEpoch>();  // lets collectors share one reading of /sys/block per scrape
  // Two threads when there are two CPUs: the queue collector beside the
  // others, and its device reads split between two threads.
  const std::size_t scrape_threads = std::thread::hardware_concurrency() >= 2 ? 2 : 1;
  auto gatherer = std::make_shared<Gatherer>(std::vector<std::unique_ptr<Collector>>{}, epoch, scrape_threads);
  auto probes = std::make_shared<ProbeScheduler>(o.paths);  // runs jobs only once started (serve)
  // `metrics` asks IMDS once, in this thread, before it gathers; `serve` in the background.
  ImdsSlot imds(o.command == Command::serve);
  std::shared_ptr<ConfigReloader> reloader;
  reloader = std::make_shared<ConfigReloader>(o.config_file, [&](const Config& cfg) {
    auto collectors = build_collectors(o, cfg, probes, epoch, scrape_threads, &imds);
    collectors.push_back(reloader);
    gatherer->set_collectors(std::move(collectors));
  }, [&](const Config& cfg) { return check_config_on_host(o, cfg); });
  if (!reloader->reload().empty()) return 1;  // no good config to start with

  if (o.command == Command::metrics) {
    if (auto w = imds.current()) w->refresh_once();
    std::cout << to_text(gatherer->Collect()) << std::flush;
    if (!std::cout) {  // e.g. a full disk: a cut exposition must not look like success
      spdlog::error("metrics: cannot write the exposition to standard output");
      return 1;
    }
    return 0;
  }

  HttpOptions http_options = o.http;
  if (!http_options.web_config_file.empty()) {
    auto web = load_web_config_file(http_options.web_config_file);
    if (!web) return 1;
    http_options.web = std::move(*web);
  }
  std::unique_ptr<HttpServer> http;
  try {
    http = std::make_unique<HttpServer>(http_options, gatherer, [&] { return reloader->reload(); });
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  auto ports = http->listening_ports();
  spdlog::info("diskperf_exporter {} (revision {}) listening on {} (port {}), metrics at {}", build::kVersion,
               build::kRevision, o.http.listen_address, ports.empty() ? 0 : ports.front(), o.http.telemetry_path);
  probes->start();
  notify_ready("serving " + o.http.telemetry_path + " on port " + std::to_string(ports.empty() ? 0 : ports.front()));
  int rc = run_main_loop(*reloader);
  notify_stopping();
  imds.stop();     // a request in flight is cancelled
  probes->stop();  // no new runs; I/O in flight awaited up to its timeout
  http.reset();
  spdlog::info("stopped");
  return rc;
}
