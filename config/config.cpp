#include "config/config.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include <yaml-cpp/yaml.h>

#include "collectors/azure/imds_client.h"
#include "collectors/device_filter.h"
#include "config/yaml_error.h"
#include "config/yaml_limits.h"

namespace diskperf {
namespace {

class Validator {
 public:
  std::vector<ConfigError> errors;

  void error(const YAML::Node& n, std::string msg) { errors.push_back(node_error(n, std::move(msg))); }

  // Checks that `n` is a map with only `allowed` keys, each given once (null: absent, no error).
  bool expect_map(const YAML::Node& n, const std::string& where, const std::set<std::string>& allowed) {
    return !n.IsNull() && check_mapping(errors, n, where, allowed);
  }

  std::optional<std::string> regex(const YAML::Node& n, const std::string& where) {
    if (!n) return std::nullopt;
    if (!n.IsScalar()) {
      error(n, where + " must be a string (a regular expression)");
      return std::nullopt;
    }
    try {
      compile_device_regex(n.Scalar());
    } catch (const RegexError& e) {
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

// A duration within [lo, hi] ("2s", "10m"), in milliseconds.
std::optional<std::chrono::milliseconds> bounded_duration(const YAML::Node& n, Validator& v, const std::string& where,
                                                          std::chrono::milliseconds lo, std::chrono::milliseconds hi) {
  if (!n) return std::nullopt;
  const auto d = n.IsScalar() ? parse_duration(n.Scalar()) : std::nullopt;
  if (!d || *d < lo || *d > hi) {
    v.error(n, where + " must be a duration from " + format_duration(lo) + " to " + format_duration(hi) +
                   " (e.g. 2s, 10m)");
    return std::nullopt;
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

void parse_imds_keys(const YAML::Node& az, Validator& v, AzureConfig& out) {
  if (const YAML::Node m = az["imds"]) {
    if (m.IsScalar() && (m.Scalar() == "auto" || m.Scalar() == "on" || m.Scalar() == "off")) out.imds = m.Scalar();
    else v.error(m, "collectors.azure.imds must be auto, on or off");
  }
  if (const YAML::Node u = az["imds_url"]) {
    const std::string problem = u.IsScalar() ? imds_url_problem(u.Scalar()) : "must be a string";
    if (problem.empty()) out.imds_url = u.Scalar();
    else v.error(u, "collectors.azure.imds_url " + problem + " (e.g. http://169.254.169.254)");
  }
  out.imds_timeout = bounded_duration(az["imds_timeout"], v, "collectors.azure.imds_timeout",
                                      std::chrono::milliseconds(100), std::chrono::minutes(1));
  out.imds_refresh = bounded_duration(az["imds_refresh"], v, "collectors.azure.imds_refresh",
                                      std::chrono::seconds(10), std::chrono::hours(24));
}

// Reads one entry of the `probes:` list into a ProbeJob, reporting every
// problem at its key's position.
std::optional<ProbeJob> parse_probe(const YAML::Node& n, Validator& v, std::set<std::string>& names) {
  static const std::set<std::string> keys = {"name", "preset", "target", "rw", "rwmixread", "bs", "iodepth",
                                             "runtime", "number_ios", "rate_iops", "interval", "jitter",
                                             "timeout", "offset", "size", "file_size", "max_duty_cycle"};
  if (!v.expect_map(n, "a probe", keys)) {
    if (n.IsNull()) v.error(n, "a probe must be a mapping");
    return std::nullopt;
  }
  const std::size_t errors_before = v.errors.size();
  ProbeJob job;
  job.config_line = n.Mark().line + 1;
  job.config_column = n.Mark().column + 1;
  auto scalar = [&](const char* key) -> std::optional<std::string> {
    const YAML::Node x = n[key];
    if (!x) return std::nullopt;
    if (!x.IsScalar()) {
      v.error(x, std::string("probe ") + key + " must be a scalar");
      return std::nullopt;
    }
    return x.Scalar();
  };
  auto where = [&](const char* key) { return "probe '" + job.name + "': " + key; };

  if (auto name = scalar("name")) {
    job.name = *name;
    const bool ok = !job.name.empty() && std::all_of(job.name.begin(), job.name.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
             c == '-';
    });
    if (!ok) v.error(n["name"], "probe name '" + job.name + "' must match [A-Za-z0-9_.-]+");
    else if (!names.insert(job.name).second) v.error(n["name"], "duplicate probe name '" + job.name + "'");
  } else {
    v.error(n, "a probe needs a name");
  }
  if (auto preset = scalar("preset")) {
    if (const ProbePreset* p = find_preset(*preset)) {
      job.rw = p->rw;
      job.bs = p->bs;
      job.iodepth = p->iodepth;
    } else {
      std::string known;
      for (const auto& pp : probe_presets()) known += (known.empty() ? "" : ", ") + std::string(pp.name);
      v.error(n["preset"], where("preset") + " '" + *preset + "' is unknown (presets: " + known + ")");
    }
  }
  if (auto target = scalar("target")) {
    job.target = *target;
    if (job.target.empty() || job.target[0] != '/') v.error(n["target"], where("target") + " must be an absolute path");
  } else {
    v.error(n, where("target") + " is required");
  }
  if (auto rw = scalar("rw")) {
    if (auto m = parse_rw(*rw)) job.rw = *m;
    else v.error(n["rw"], where("rw") + " '" + *rw + "' is not one of read, randread, write, randwrite, randrw");
  }
  auto size = [&](const char* key, std::uint64_t& out) {
    if (auto s = scalar(key)) {
      if (auto b = parse_size(*s)) out = *b;
      else v.error(n[key], where(key) + " '" + *s + "' is not a size (bytes, or with k, m, g, t)");
    }
  };
  auto duration = [&](const char* key, std::chrono::nanoseconds& out) {
    if (auto s = scalar(key)) {
      if (auto d = parse_duration(*s)) out = *d;
      else v.error(n[key], where(key) + " '" + *s + "' is not a duration (e.g. 500ms, 10s, 1m)");
    }
  };
  auto integer = [&](const char* key, std::uint64_t& out) -> bool {
    if (auto s = scalar(key)) {
      if (auto b = parse_size(*s); b && s->find_first_not_of("0123456789") == std::string::npos) {
        out = *b;
        return true;
      }
      v.error(n[key], where(key) + " '" + *s + "' is not a non-negative integer");
    }
    return false;
  };
  auto number = [&](const char* key) -> std::optional<double> {
    if (auto s = scalar(key)) {
      char* end = nullptr;
      double d = std::strtod(s->c_str(), &end);
      if (end && *end == '\0' && !s->empty() && std::isfinite(d)) return d;
      v.error(n[key], where(key) + " '" + *s + "' is not a number");
    }
    return std::nullopt;
  };
  size("bs", job.bs);
  if (n["bs"] && job.bs == 0) v.error(n["bs"], where("bs") + " must be > 0");
  size("offset", job.offset);
  size("size", job.size);
  size("file_size", job.file_size);
  std::uint64_t u = 0;
  if (integer("iodepth", u)) {
    if (u == 0 || u > 65536) v.error(n["iodepth"], where("iodepth") + " must be between 1 and 65536");
    job.iodepth = static_cast<unsigned>(std::min<std::uint64_t>(u, 65536));
  }
  if (integer("rwmixread", u)) {
    if (u > 100) v.error(n["rwmixread"], where("rwmixread") + " must be a percentage, 0 to 100");
    job.rwmixread = static_cast<unsigned>(std::min<std::uint64_t>(u, 100));
  }
  if (n["rwmixread"] && job.rw != RwMode::randrw) v.error(n["rwmixread"], where("rwmixread") + " needs rw: randrw");
  if (integer("number_ios", u)) {
    job.number_ios = u;
    if (u == 0) v.error(n["number_ios"], where("number_ios") + " must be > 0");
    if (n["runtime"]) v.error(n["number_ios"], where("number_ios") + " and runtime exclude each other");
  }
  duration("runtime", job.runtime);
  if (n["runtime"] && job.runtime.count() <= 0) v.error(n["runtime"], where("runtime") + " must be > 0");
  if (job.number_ios) job.runtime = std::chrono::nanoseconds(0);
  if (auto r = number("rate_iops")) {
    if (!(std::isfinite(*r) && *r > 0)) v.error(n["rate_iops"], where("rate_iops") + " must be a positive finite number");
    job.rate_iops = *r;
  }
  duration("interval", job.interval);
  if (job.interval.count() <= 0) v.error(n["interval"] ? n["interval"] : n, where("interval") + " must be > 0");
  duration("jitter", job.jitter);
  if (job.jitter > job.interval) v.error(n["jitter"], where("jitter") + " must not exceed interval");
  duration("timeout", job.timeout);
  if (job.timeout.count() <= 0 || job.timeout > kMaxProbeTimeout)
    v.error(n["timeout"], where("timeout") + " must be > 0 and at most " + std::to_string(kMaxProbeTimeout.count()) +
                              "s (stopping the daemon waits up to about one timeout for the probe's I/O)");
  if (auto d = number("max_duty_cycle")) {
    if (*d <= 0 || *d > 1) v.error(n["max_duty_cycle"], where("max_duty_cycle") + " must be in (0, 1]");
    else job.max_duty_cycle = *d;
  }
  if (job.runtime.count() > 0 && job.interval.count() > 0 &&
      static_cast<double>(job.runtime.count()) > job.max_duty_cycle * static_cast<double>(job.interval.count()))
    v.error(n["runtime"] ? n["runtime"] : n,
            where("runtime") + " exceeds the duty-cycle budget: max_duty_cycle " + std::to_string(job.max_duty_cycle) +
                " x interval allows at most " +
                std::to_string(job.max_duty_cycle * static_cast<double>(job.interval.count()) / 1e9) + " s");
  if (job.size && job.bs && job.size < job.bs) v.error(n["size"], where("size") + " is smaller than bs");
  if (job.bs && job.offset % 512) v.error(n["offset"], where("offset") + " must be a multiple of 512");
  if (job.bs % 512) v.error(n["bs"], where("bs") + " must be a multiple of 512 (direct I/O)");
  if (!probe_buffers_fit(job.bs, job.iodepth))
    v.error(n["bs"] ? n["bs"] : n["iodepth"] ? n["iodepth"] : n,
            where("bs") + " x iodepth needs " + std::to_string(job.bs) + " x " + std::to_string(job.iodepth) +
                " bytes of buffers (each rounded up to 4 KiB); at most " + std::to_string(kMaxProbeBufferBytes) +
                " (256 MiB) per job");
  if (job.file_size % 4096)
    v.error(n["file_size"] ? n["file_size"] : n, where("file_size") + " must be a multiple of 4096 (direct I/O)");
  if (has_writes(job.rw) && job.target.rfind("/dev/", 0) == 0)
    v.error(n["target"], where("target") + " is a device path and rw=" + std::string(to_string(job.rw)) +
                             " writes: block devices are only ever read; write jobs need a directory on the "
                             "volume, where the exporter creates its probe file");
  if (v.errors.size() != errors_before) return std::nullopt;
  return job;
}

}  // namespace

std::string ConfigError::to_string(std::string_view file) const {
  std::string out(file);
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  return out + ": " + message;
}

namespace {

ConfigResult parse_config_unguarded(std::string_view text) {
  ConfigResult result;
  // A file past the caps is refused before yaml-cpp builds its tree, which takes far more memory
  // than the text.
  if (auto too_big = check_yaml_limits(text)) {
    result.errors.push_back(std::move(*too_big));
    return result;
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    result.errors.push_back(yaml_exception_error(e, "invalid YAML: "));
    return result;
  }
  Config cfg;
  Validator v;
  if (root && !root.IsNull()) {
    if (v.expect_map(root, "the top level", {"collectors", "probes", "tiers"})) {
      const YAML::Node collectors = root["collectors"];
      if (collectors && v.expect_map(collectors, "collectors", {"diskstats", "azure"})) {
        const YAML::Node ds = collectors["diskstats"];
        if (ds && v.expect_map(ds, "collectors.diskstats", {"device_include", "device_exclude"})) {
          cfg.diskstats.device_include = v.regex(ds["device_include"], "collectors.diskstats.device_include");
          cfg.diskstats.device_exclude = v.regex(ds["device_exclude"], "collectors.diskstats.device_exclude");
        }
        const YAML::Node az = collectors["azure"];
        if (az && v.expect_map(az, "collectors.azure",
                               {"perfcounters_file", "imds", "imds_url", "imds_timeout", "imds_refresh"})) {
          cfg.azure.perfcounters_file = v.path_or_empty(az["perfcounters_file"], "collectors.azure.perfcounters_file");
          parse_imds_keys(az, v, cfg.azure);
        }
      }
      const YAML::Node probes = root["probes"];
      if (probes && !probes.IsNull() && !probes.IsSequence()) v.error(probes, "probes must be a list");
      if (probes && probes.IsSequence()) {
        std::set<std::string> names;
        for (const auto& p : probes)
          if (auto job = parse_probe(p, v, names)) cfg.probes.push_back(std::move(*job));
      }
      cfg.tiers = parse_tiers_config(root["tiers"], v.errors);
    }
  }
  result.errors = std::move(v.errors);
  if (result.errors.empty()) result.config = std::move(cfg);
  return result;
}

}  // namespace

ConfigResult parse_config(std::string_view text) {
  // Validation must never throw: a yaml-cpp exception from a shape the checks
  // did not foresee becomes an error instead of ending the daemon.
  try {
    return parse_config_unguarded(text);
  } catch (const YAML::Exception& e) {
    ConfigResult r;
    r.errors.push_back(yaml_exception_error(e, "invalid configuration: "));
    return r;
  }
}

}  // namespace diskperf
