#pragma once
// Logging: spdlog's default logger writing to stderr (the journal under
// systemd). The logger is the only global in the program.

#include <string>

namespace diskperf {

/// Installs the stderr logger at `level` ("debug", "info", "warn", "error").
void setup_logging(const std::string& level);

}  // namespace diskperf
