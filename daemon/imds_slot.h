#pragma once
// The Azure IMDS watcher across config reloads: one per daemon, kept while its options stay the
// same, replaced when a reload changes them, none while IMDS is off (or, in auto mode, off Azure).

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "collectors/azure/imds_watcher.h"
#include "config/config.h"
#include "daemon/cli.h"

namespace diskperf {

/// The IMDS options of a run: each flag given, else the config's key, else the default; nullopt
/// when IMDS is off, or in auto mode when <sysfs>/class/dmi does not say Azure.
std::optional<ImdsOptions> imds_options(const Options& options, const Config& config);

class ImdsSlot {
 public:
  /// `background`: start each watcher's thread (serve); else the caller calls refresh_once.
  explicit ImdsSlot(bool background) : background_(background) {}
  ~ImdsSlot() { stop(); }
  /// The watcher for `options` (null when nullopt): the kept one when they are the same.
  std::shared_ptr<const ImdsWatcher> apply(const std::optional<ImdsOptions>& options, const std::string& sysfs);
  /// The watcher now (may be null).
  std::shared_ptr<ImdsWatcher> current() const;
  /// Stops the watcher's thread (its request in flight is cancelled).
  void stop();

 private:
  bool background_;
  mutable std::mutex mu_;
  std::optional<ImdsOptions> options_;   // guarded by mu_
  std::shared_ptr<ImdsWatcher> watcher_;  // guarded by mu_
};

}  // namespace diskperf
