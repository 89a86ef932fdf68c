#pragma once
// A ConfigError from a yaml-cpp exception, at its mark (line and column
// 1-based; 0 when yaml-cpp gives no position), and the key check every
// mapping gets. Shared by the YAML parsers.

#include <set>
#include <string>
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

/// A ConfigError at `n`'s position. A node looked up by a key that is not there has no mark
/// (Mark() would throw): its error has line and column 0.
inline ConfigError node_error(const YAML::Node& n, std::string msg) {
  const YAML::Mark m = n.IsDefined() ? n.Mark() : YAML::Mark::null_mark();
  return {m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1, std::move(msg)};
}

/// Whether the key `k` of a mapping of `where` is a scalar (a name); otherwise appends, at the
/// key, "a null key in <where>" (`? ` or `: v` with nothing before it), "a sequence as a key in
/// <where>" or "a mapping as a key in <where>", and returns false.
inline bool check_key(std::vector<ConfigError>& errors, const YAML::Node& k, const std::string& where) {
  if (k.IsScalar()) return true;
  const char* what = k.IsSequence() ? "a sequence as a key" : k.IsMap() ? "a mapping as a key" : "a null key";
  errors.push_back(node_error(k, std::string(what) + " in " + where));
  return false;
}

/// Whether `n` is a mapping; appends to `errors` "<where> must be a mapping" when it is not, and
/// each problem with its keys, at the key: a key not in `allowed` ("unknown key 'k' in <where>") and
/// a key given again ("duplicate key 'k' in <where>": YAML forbids it and yaml-cpp would silently
/// use the first), and a key that is not a name (check_key).
inline bool check_mapping(std::vector<ConfigError>& errors, const YAML::Node& n, const std::string& where,
                          const std::set<std::string>& allowed) {
  if (!n.IsMap()) {
    errors.push_back(node_error(n, where + " must be a mapping"));
    return false;
  }
  std::set<std::string> seen;
  for (const auto& kv : n) {
    if (!check_key(errors, kv.first, where)) continue;
    const std::string key = kv.first.Scalar();
    if (!allowed.count(key)) errors.push_back(node_error(kv.first, "unknown key '" + key + "' in " + where));
    else if (!seen.insert(key).second) errors.push_back(node_error(kv.first, "duplicate key '" + key + "' in " + where));
  }
  return true;
}

}  // namespace diskperf
