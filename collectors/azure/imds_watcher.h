#pragma once
// Keeps the last good IMDS compute document for the scrapes: a thread of its own asks IMDS at
// start, every refresh interval, soon after a block device appears or goes, and after a failure
// (backing off), never more than once a second. Scrapes only read the last state (state()).
// A failure keeps the last good document; it is logged once per streak of failures.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "collectors/azure/imds_document.h"

namespace diskperf {

/// How often <sysfs>/block is listed, and the first retry after a failure (ImdsWatcher's defaults).
inline constexpr std::chrono::seconds kImdsDevicePoll{20};
inline constexpr std::chrono::seconds kImdsFirstRetry{5};

/// --azure.imds: auto asks IMDS only on an Azure VM (azure_vm_by_dmi).
enum class ImdsMode { auto_detect, on, off };
std::optional<ImdsMode> parse_imds_mode(std::string_view s);  ///< "auto", "on", "off"

struct ImdsOptions {
  ImdsMode mode = ImdsMode::auto_detect;
  std::string url = "http://169.254.169.254";
  std::chrono::milliseconds timeout{2000};
  std::chrono::milliseconds refresh{10 * 60 * 1000};
  /// Shorter in tests only.
  std::chrono::milliseconds device_poll{kImdsDevicePoll};
  std::chrono::milliseconds first_retry{kImdsFirstRetry};
  bool operator==(const ImdsOptions&) const = default;
};

/// Whether <sysfs>/class/dmi/id says this is an Azure VM: sys_vendor "Microsoft Corporation" and
/// chassis_asset_tag "7783-7084-3265-9085-8269-3286-77" (trailing whitespace ignored).
bool azure_vm_by_dmi(const std::string& sysfs);

/// What the scrapes see. Immutable once published.
struct ImdsState {
  std::shared_ptr<const ImdsCompute> compute;  ///< the last good document; null before the first
  bool up = false;                             ///< the last request succeeded (and parsed)
  double last_success_unix = 0;                ///< 0: never
  std::string last_error;                      ///< why the last request failed ("" when up)
  std::uint64_t requests = 0, failures = 0;    ///< since start
};

class ImdsWatcher {
 public:
  /// How often <sysfs>/block is listed to notice a device added or removed.
  static constexpr std::chrono::seconds kDevicePoll = kImdsDevicePoll;
  /// Fewest time between two requests (IMDS answers 429 above 5 a second).
  static constexpr std::chrono::seconds kMinSpacing{1};
  /// Retry after a failure: from this, doubling up to the refresh interval.
  static constexpr std::chrono::seconds kFirstRetry = kImdsFirstRetry;

  ImdsWatcher(ImdsOptions options, std::string sysfs);
  ~ImdsWatcher();  ///< stops the thread (cancels a request in flight)
  ImdsWatcher(const ImdsWatcher&) = delete;
  ImdsWatcher& operator=(const ImdsWatcher&) = delete;

  /// Starts from the state of the watcher this one replaces (a reload that changed the options):
  /// its last good document, counters and last success stay until this one gets an answer.
  void adopt(std::shared_ptr<const ImdsState> previous);
  /// Starts the background thread (serve); does nothing in mode off or once stopped. Auto mode
  /// is the caller's to decide (azure_vm_by_dmi): the watcher asks whatever `url` it is given.
  void start();
  /// Stops it; returns at once even while a request hangs (the request is cancelled).
  void stop();
  /// One request now, in this thread, publishing its result (metrics, check); waits first when
  /// the last request began less than kMinSpacing ago. Cancelled (nothing published) after stop().
  void refresh_once();
  /// The last published state (never null).
  std::shared_ptr<const ImdsState> state() const;

 private:
  enum class Outcome { ok, failed, cancelled };
  void run();
  Outcome fetch();
  bool wait_spacing();  // false when stopped or cancelled meanwhile
  void publish(std::shared_ptr<const ImdsCompute> compute, const std::string& error);
  std::string device_list() const;

  ImdsOptions options_;
  std::string sysfs_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::atomic<bool> cancel_{false};
  std::shared_ptr<const ImdsState> state_;  // guarded by mu_
  std::thread thread_;                      // guarded by mu_
  std::mutex request_mu_;                   // one request at a time (thread and refresh_once)
  std::chrono::steady_clock::time_point last_request_{};  // guarded by request_mu_
};

}  // namespace diskperf
