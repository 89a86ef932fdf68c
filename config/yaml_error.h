#pragma once
// A ConfigError from a yaml-cpp exception, at its mark (line and column
// 1-based; 0 when yaml-cpp gives no position). Shared by the YAML parsers.

#include <string>

#include <yaml-cpp/exceptions.h>

#include "config/config.h"

namespace diskperf {

inline ConfigError yaml_exception_error(const YAML::Exception& e, const std::string& prefix) {
  return {e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1, prefix + e.msg};
}

}  // namespace diskperf
