#include "config/config.h"

#include <regex>
#include <set>

#include <yaml-cpp/yaml.h>

namespace diskperf {
namespace {

class Validator {
 public:
  std::vector<ConfigError> errors;

  void error(const YAML::Node& n, std::string msg) {
    const YAML::Mark m = n.Mark();
    errors.push_back({m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1, std::move(msg)});
  }

  // Checks that `n` is a map with only `allowed` keys.
  bool expect_map(const YAML::Node& n, const std::string& where, const std::set<std::string>& allowed) {
    if (n.IsNull()) return false;
    if (!n.IsMap()) {
      error(n, where + " must be a mapping");
      return false;
    }
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (!allowed.count(key)) error(kv.first, "unknown key '" + key + "' in " + where);
    }
    return true;
  }

  std::optional<std::string> regex(const YAML::Node& n, const std::string& where) {
    if (!n) return std::nullopt;
    if (!n.IsScalar()) {
      error(n, where + " must be a string (a regular expression)");
      return std::nullopt;
    }
    try {
      std::regex re(n.Scalar(), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      error(n, where + " is not a valid regular expression: " + e.what());
      return std::nullopt;
    }
    return n.Scalar();
  }

  // An absolute path, or the empty string (a feature switched off).
  std::optional<std::string> path_or_empty(const YAML::Node& n, const std::string& where) {
    if (!n) return std::nullopt;
    if (n.IsNull()) return std::string();
    if (!n.IsScalar()) {
      error(n, where + " must be a string (a file path, or '' to disable)");
      return std::nullopt;
    }
    if (!n.Scalar().empty() && n.Scalar().front() != '/') {
      error(n, where + " must be an absolute path, or '' to disable");
      return std::nullopt;
    }
    return n.Scalar();
  }
};

}  // namespace

std::string ConfigError::to_string(std::string_view file) const {
  std::string out(file);
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  return out + ": " + message;
}

ConfigResult parse_config(std::string_view text) {
  ConfigResult result;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    result.errors.push_back({e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1,
                             "invalid YAML: " + e.msg});
    return result;
  }
  Config cfg;
  Validator v;
  if (root && !root.IsNull()) {
    if (v.expect_map(root, "the top level", {"collectors"})) {
      const YAML::Node collectors = root["collectors"];
      if (collectors && v.expect_map(collectors, "collectors", {"diskstats", "azure"})) {
        const YAML::Node ds = collectors["diskstats"];
        if (ds && v.expect_map(ds, "collectors.diskstats", {"device_include", "device_exclude"})) {
          cfg.diskstats.device_include = v.regex(ds["device_include"], "collectors.diskstats.device_include");
          cfg.diskstats.device_exclude = v.regex(ds["device_exclude"], "collectors.diskstats.device_exclude");
        }
        const YAML::Node az = collectors["azure"];
        if (az && v.expect_map(az, "collectors.azure", {"perfcounters_file"})) {
          cfg.azure.perfcounters_file = v.path_or_empty(az["perfcounters_file"], "collectors.azure.perfcounters_file");
        }
      }
    }
  }
  result.errors = std::move(v.errors);
  if (result.errors.empty()) result.config = std::move(cfg);
  return result;
}

}  // namespace diskperf
