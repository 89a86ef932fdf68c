#include "daemon/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace diskperf {

void setup_logging(const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("diskperf_exporter");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z level=%l %v");
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace diskperf
