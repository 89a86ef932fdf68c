#include "daemon/systemd_notify.h"

#include <systemd/sd-daemon.h>

namespace diskperf {

void notify_ready(const std::string& status) { sd_notifyf(0, "READY=1\nSTATUS=%s", status.c_str()); }
void notify_stopping() { sd_notify(0, "STOPPING=1"); }
void notify_reloading(bool reloading) { sd_notify(0, reloading ? "RELOADING=1" : "READY=1"); }
void notify_watchdog() { sd_notify(0, "WATCHDOG=1"); }

std::optional<std::chrono::microseconds> watchdog_period() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec / 2);
}

}  // namespace diskperf
