#include "daemon/reloader.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "collectors/host_fs.h"
#include "collectors/metric_families.h"

namespace diskperf {

ConfigResult load_config_file(const std::string& path, const HostCheck& check) {
  ConfigResult r;
  if (path.empty()) {
    r = parse_config("");
  } else {
    FileContent file = read_file(path, 4u << 20);
    if (!file.ok()) {
      r.errors.push_back({0, 0, file.error});
      return r;
    }
    r = parse_config(file.data);
  }
  if (r.config && check) {
    r.errors = check(*r.config);
    if (!r.errors.empty()) r.config.reset();
  }
  if (r.errors.size() > kMaxReportedConfigErrors) {
    const std::size_t more = r.errors.size() - kMaxReportedConfigErrors;
    r.errors.resize(kMaxReportedConfigErrors);
    r.errors.push_back({0, 0, (path.empty() ? std::string("config") : path) + ": " + std::to_string(more) +
                                  " more error(s) not shown (the first " +
                                  std::to_string(kMaxReportedConfigErrors) + " are)"});
  }
  return r;
}

ConfigReloader::ConfigReloader(std::string path, Apply apply, HostCheck check)
    : path_(std::move(path)), apply_(std::move(apply)), check_(std::move(check)) {}

std::vector<std::string> ConfigReloader::reload() {
  std::lock_guard serial(reload_mu_);
  ConfigResult r = load_config_file(path_, check_);
  std::vector<std::string> errors;
  for (const auto& e : r.errors) {
    errors.push_back(e.line > 0 ? e.to_string(path_) : e.message);
    spdlog::error("config error: {}", errors.back());
  }
  if (!r.config) {
    std::lock_guard lock(state_mu_);
    last_ok_ = false;
    if (current_) spdlog::error("config {} rejected; the running config stays in effect", path_);
    return errors;
  }
  auto cfg = std::make_shared<const Config>(std::move(*r.config));
  apply_(*cfg);
  std::lock_guard lock(state_mu_);
  current_ = std::move(cfg);
  last_ok_ = true;
  last_success_unix_ =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  spdlog::info("config {} loaded", path_.empty() ? "(none: defaults)" : path_);
  return errors;
}

std::shared_ptr<const Config> ConfigReloader::current() const {
  std::lock_guard lock(state_mu_);
  return current_;
}

std::optional<std::string> ConfigReloader::collect(Families& out) {
  std::lock_guard lock(state_mu_);
  add_sample(add_family(out, "diskperf_config_last_reload_successful",
                        "Whether the last configuration reload attempt was successful (1) or not (0).",
                        prometheus::MetricType::Gauge),
             last_ok_ ? 1 : 0, {});
  add_sample(add_family(out, "diskperf_config_last_reload_success_timestamp_seconds",
                        "Timestamp of the last successful configuration reload.", prometheus::MetricType::Gauge),
             last_success_unix_, {});
  return std::nullopt;
}

}  // namespace diskperf
