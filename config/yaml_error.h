#pragma once
// A ConfigError from a yaml-cpp exception, at its mark (line and column
// 1-based; 0 when yaml-cpp gives no position), and the key check every
// mapping gets. Shared by the YAML parsers.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/node/node.h>
#include <yaml-cpp/node/iterator.h>
#include <yaml-cpp/node/impl.h>

#include "config/config.h"

namespace diskperf {

inline ConfigError yaml_exception_error(const YAML::Exception& e, const std::string& prefix) {
  return {e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1, prefix + e.msg};
}

/// The problems with the keys of mapping `n`, each with its key node (for the position): a key not
/// in `allowed` ("unknown key 'k' in <where>") and a key given again ("duplicate key 'k' in <where>":
/// YAML forbids it and yaml-cpp would silently use the first).
inline std::vector<std::pair<YAML::Node, std::string>> key_problems(const YAML::Node& n, const std::string& where,
                                                                    const std::set<std::string>& allowed) {
  std::vector<std::pair<YAML::Node, std::string>> out;
  std::set<std::string> seen;
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    if (!allowed.count(key)) out.emplace_back(kv.first, "unknown key '" + key + "' in " + where);
    else if (!seen.insert(key).second) out.emplace_back(kv.first, "duplicate key '" + key + "' in " + where);
  }
  return out;
}

}  // namespace diskperf
