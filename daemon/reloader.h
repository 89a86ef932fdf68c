#pragma once
// Config reload (SIGHUP, POST /-/reload): reads and validates the config
// file, applies it only when valid, and otherwise keeps the running config.
// As a collector it exports, like Prometheus itself:
//   diskperf_config_last_reload_successful                0/1
//   diskperf_config_last_reload_success_timestamp_seconds Unix time

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "config/config.h"

namespace diskperf {

/// Checks a parsed config against this host (e.g. probe targets); returns
/// the problems, with the line and column of the setting at fault.
using HostCheck = std::function<std::vector<ConfigError>(const Config&)>;

/// Most errors one load reports: past them, one more error (without a
/// position) says how many were left out, so a broken file cannot flood the
/// log or the terminal.
inline constexpr std::size_t kMaxReportedConfigErrors = 20;

/// Reads `path` (empty: no file, an empty Config), parses it and, when it
/// parses, runs `check` on it. Errors are formatted "path:line:column:
/// message"; at most kMaxReportedConfigErrors of them, plus the count of the rest.
ConfigResult load_config_file(const std::string& path, const HostCheck& check = {});

class ConfigReloader final : public Collector {
 public:
  /// Applies a validated config to the running components. Must not throw.
  using Apply = std::function<void(const Config&)>;

  ConfigReloader(std::string path, Apply apply, HostCheck check = {});

  /// Loads and, if valid, applies the file. Returns the errors (empty on
  /// success); each is also logged. Serialised: concurrent calls queue.
  std::vector<std::string> reload();

  /// The config now running (nullptr before the first successful load).
  std::shared_ptr<const Config> current() const;

  std::string_view name() const override { return "config"; }
  std::optional<std::string> collect(Families& out) override;

 private:
  const std::string path_;
  const Apply apply_;
  const HostCheck check_;
  std::mutex reload_mu_;        // one reload at a time
  mutable std::mutex state_mu_;  // guards the fields below
  std::shared_ptr<const Config> current_;
  bool last_ok_ = false;
  double last_success_unix_ = 0;
};

}  // namespace diskperf
