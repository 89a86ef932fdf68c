#pragma once
// systemd service manager protocol (sd_notify(3), sd_watchdog_enabled(3)) via
// libsystemd. Harmless no-ops when not started by systemd (no NOTIFY_SOCKET).

#include <chrono>
#include <optional>
#include <string>

namespace diskperf {

/// Sends "READY=1" plus a STATUS line.
void notify_ready(const std::string& status);
/// Sends "STOPPING=1".
void notify_stopping();
/// Sends "RELOADING=1" or, after, "READY=1".
void notify_reloading(bool reloading);
/// Sends "WATCHDOG=1".
void notify_watchdog();
/// The ping period when WatchdogSec= is set (half the watchdog timeout).
std::optional<std::chrono::microseconds> watchdog_period();

}  // namespace diskperf
