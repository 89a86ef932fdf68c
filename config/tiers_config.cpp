#include "config/tiers_config.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "config/config.h"
#include "config/imds_caps.h"
#include "config/yaml_error.h"

namespace diskperf {
namespace {

constexpr double kMB = 1e6;

class Reader {
 public:
  explicit Reader(std::vector<ConfigError>& errors) : errors_(errors) {}

  void error(const YAML::Node& n, std::string msg) { errors_.push_back(node_error(n, std::move(msg))); }
  bool map(const YAML::Node& n, const std::string& where, const std::set<std::string>& allowed) {
    return check_mapping(errors_, n, where, allowed);
  }
  std::optional<std::string> text(const YAML::Node& n, const std::string& where) {
    if (!n) return std::nullopt;
    if (!n.IsScalar() || n.Scalar().empty()) {
      error(n, where + " must be a non-empty string");
      return std::nullopt;
    }
    return n.Scalar();
  }
  std::optional<double> number(const YAML::Node& n, const std::string& where, double min = 0) {
    if (!n) return std::nullopt;
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (!s.empty() && end && *end == '\0' && std::isfinite(d) && d >= min) return d;
    }
    error(n, where + " must be a number >= " + std::to_string(static_cast<long long>(min)));
    return std::nullopt;
  }
  std::optional<bool> boolean(const YAML::Node& n, const std::string& where) {
    if (!n) return std::nullopt;
    if (n.IsScalar()) {
      if (n.Scalar() == "true") return true;
      if (n.Scalar() == "false") return false;
    }
    error(n, where + " must be true or false");
    return std::nullopt;
  }

 private:
  std::vector<ConfigError>& errors_;
};

std::string strip_prefix(std::string s, const std::string& prefix) {
  if (s.rfind(prefix, 0) == 0) s.erase(0, prefix.size());
  return s;
}

}  // namespace

TiersConfig parse_tiers_config(const YAML::Node& node, std::vector<ConfigError>& errors) {
  TiersConfig cfg;
  Reader r(errors);
  if (!node || node.IsNull()) return cfg;
  if (!r.map(node, "tiers", {"vm_size", "vm_sizes", "custom", "disks", "meets_fraction"})) return cfg;
  cfg.vm_size = r.text(node["vm_size"], "tiers.vm_size");
  if (auto f = r.number(node["meets_fraction"], "tiers.meets_fraction")) {
    if (*f <= 0 || *f > 1) r.error(node["meets_fraction"], "tiers.meets_fraction must be in (0, 1]");
    else cfg.meets_fraction = *f;
  }

  auto list = [&](const char* key) -> YAML::Node {
    YAML::Node l = node[key];
    if (l && !l.IsNull() && !l.IsSequence()) {
      r.error(l, std::string("tiers.") + key + " must be a list");
      return YAML::Node();
    }
    return l;
  };

  std::set<std::string> vm_names;
  if (YAML::Node l = list("vm_sizes"); l && l.IsSequence()) {
    for (const auto& e : l) {
      if (!r.map(e, "a tiers.vm_sizes entry",
                 {"name", "uncached_iops", "uncached_mbps", "burst_uncached_iops", "burst_uncached_mbps",
                  "cached_iops", "cached_mbps"}))
        continue;
      VmSize v;
      auto name = r.text(e["name"], "vm_sizes name");
      if (!name) {
        if (!e["name"]) r.error(e, "a tiers.vm_sizes entry needs a name");
        continue;
      }
      v.name = *name;
      v.source = "config";
      if (!vm_names.insert(v.name).second) r.error(e["name"], "duplicate VM size '" + v.name + "'");
      auto iops = r.number(e["uncached_iops"], "vm size '" + v.name + "': uncached_iops", 1);
      auto mbps = r.number(e["uncached_mbps"], "vm size '" + v.name + "': uncached_mbps", 1);
      if (!e["uncached_iops"] || !e["uncached_mbps"])
        r.error(e, "vm size '" + v.name + "' needs uncached_iops and uncached_mbps");
      if (!iops || !mbps) continue;
      v.uncached_iops = *iops;
      v.uncached_bytes_per_second = *mbps * kMB;
      v.burst_uncached_iops = r.number(e["burst_uncached_iops"], "vm size '" + v.name + "': burst_uncached_iops", 1);
      if (auto b = r.number(e["burst_uncached_mbps"], "vm size '" + v.name + "': burst_uncached_mbps", 1))
        v.burst_uncached_bytes_per_second = *b * kMB;
      v.cached_iops = r.number(e["cached_iops"], "vm size '" + v.name + "': cached_iops", 1);
      if (auto c = r.number(e["cached_mbps"], "vm size '" + v.name + "': cached_mbps", 1))
        v.cached_bytes_per_second = *c * kMB;
      cfg.vm_sizes.push_back(std::move(v));
    }
  }
  if (cfg.vm_size && !find_vm_size(cfg.vm_sizes, *cfg.vm_size) && !find_vm_size(builtin_vm_sizes(), *cfg.vm_size)) {
    std::string nearest;
    for (const auto& n : nearest_vm_sizes(builtin_vm_sizes(), *cfg.vm_size))
      nearest += (nearest.empty() ? "" : ", ") + n;
    r.error(node["vm_size"],
            "tiers.vm_size '" + *cfg.vm_size + "' is neither built in nor in tiers.vm_sizes; nearest: " + nearest);
  }

  std::set<std::string> tier_names;
  if (YAML::Node l = list("custom"); l && l.IsSequence()) {
    for (const auto& e : l) {
      if (!r.map(e, "a tiers.custom entry", {"name", "iops", "mbps", "burst_iops", "burst_mbps"})) continue;
      auto name = r.text(e["name"], "custom tier name");
      if (!name) {
        if (!e["name"]) r.error(e, "a custom tier needs a name");
        continue;
      }
      DiskTier t;
      t.name = *name;
      t.family = "custom";
      t.source = "config";
      if (find_tier(builtin_tiers(), t.name) || t.name == "premium_ssd_v2" || t.name == "ultra")
        r.error(e["name"], "custom tier '" + t.name + "' has the name of a built-in tier");
      else if (!tier_names.insert(t.name).second)
        r.error(e["name"], "duplicate custom tier '" + t.name + "'");
      const std::string w = "custom tier '" + t.name + "': ";
      auto iops = r.number(e["iops"], w + "iops", 1);
      auto mbps = r.number(e["mbps"], w + "mbps", 1);
      if (!e["iops"] || !e["mbps"]) r.error(e, w + "iops and mbps are required");
      if (!iops || !mbps) continue;
      t.iops = *iops;
      t.bytes_per_second = *mbps * kMB;
      auto bi = r.number(e["burst_iops"], w + "burst_iops", 1);
      auto bm = r.number(e["burst_mbps"], w + "burst_mbps", 1);
      if (bool(e["burst_iops"]) != bool(e["burst_mbps"])) r.error(e, w + "burst_iops and burst_mbps go together");
      if (bi && bm) {
        t.burst_iops = *bi;
        t.burst_bytes_per_second = *bm * kMB;
        t.burst_model = BurstModel::on_demand;  // bursts when the disk's rule says bursting: true
      }
      cfg.custom.push_back(std::move(t));
    }
  }

  if (YAML::Node l = list("disks"); l && l.IsSequence()) {
    for (const auto& e : l) {
      if (!r.map(e, "a tiers.disks entry",
                 {"device", "lun", "by_id", "glob", "tier", "bursting", "caching", "iops", "mbps", "size_gib"}))
        continue;
      DiskTierRule rule;
      rule.line = e.Mark().line + 1;
      int matchers = 0;
      std::string what;
      if (auto d = r.text(e["device"], "tiers.disks device")) {
        ++matchers;
        rule.kind = DiskMatchKind::device;
        rule.pattern = strip_prefix(*d, "/dev/");
        what = "disk '" + rule.pattern + "'";
      }
      if (e["lun"]) {
        ++matchers;
        rule.kind = DiskMatchKind::lun;
        if (auto n = r.number(e["lun"], "tiers.disks lun"); n && *n == std::floor(*n) && *n < 65536) {
          rule.lun = static_cast<unsigned>(*n);
        } else if (n) {
          r.error(e["lun"], "tiers.disks lun must be an integer 0-65535");
        }
        what = "lun " + std::to_string(rule.lun);
      }
      if (auto b = r.text(e["by_id"], "tiers.disks by_id")) {
        ++matchers;
        rule.kind = DiskMatchKind::by_id;
        rule.pattern = strip_prefix(*b, "/dev/disk/by-id/");
        what = "by_id '" + rule.pattern + "'";
      }
      if (auto g = r.text(e["glob"], "tiers.disks glob")) {
        ++matchers;
        rule.kind = DiskMatchKind::glob;
        rule.pattern = strip_prefix(*g, "/dev/");
        what = "glob '" + rule.pattern + "'";
      }
      if (matchers != 1) {
        r.error(e, "a tiers.disks entry needs exactly one of device, lun, by_id, glob");
        continue;
      }
      const std::string w = "tiers.disks " + what + ": ";
      rule.bursting = r.boolean(e["bursting"], w + "bursting");
      if (auto c = r.text(e["caching"], w + "caching")) {
        if (*c != "None" && *c != "ReadOnly" && *c != "ReadWrite")
          r.error(e["caching"], w + "caching must be None, ReadOnly or ReadWrite");
        else rule.caching = *c;
      }
      auto tier = r.text(e["tier"], w + "tier");
      if (!tier) {
        if (!e["tier"]) r.error(e, w + "tier is required");
        continue;
      }
      const bool configurable = *tier == "premium_ssd_v2" || *tier == "ultra";
      auto iops = r.number(e["iops"], w + "iops", 1);
      auto mbps = r.number(e["mbps"], w + "mbps", 1);
      auto size = r.number(e["size_gib"], w + "size_gib", 1);
      if (configurable) {
        if (!e["iops"] || !e["mbps"]) {
          r.error(e["tier"], w + *tier + " needs the disk's provisioned iops and mbps");
          continue;
        }
        if (!iops || !mbps) continue;
        for (const auto& msg : validate_configurable_caps(*tier, size, *iops, *mbps)) r.error(e["iops"], w + msg);
        rule.tier.name = *tier;
        rule.tier.family = *tier;
        rule.tier.size_gib = size;
        rule.tier.iops = *iops;
        rule.tier.bytes_per_second = *mbps * kMB;
        rule.tier.source = "config";
      } else {
        for (const char* k : {"iops", "mbps", "size_gib"})
          if (e[k]) r.error(e[k], w + k + " is only for premium_ssd_v2 and ultra (tier " + *tier + " has fixed caps)");
        if (const DiskTier* t = find_tier(cfg.custom, *tier)) {
          rule.tier = *t;
        } else if (const DiskTier* b = find_tier(builtin_tiers(), *tier)) {
          rule.tier = *b;
          rule.tier_is_builtin = true;
        } else {
          const std::string_view family = tier_family_of(*tier);  // Azure's storageAccountType spelling
          r.error(e["tier"], w + "tier '" + *tier + "' is unknown (built in: P1-P80, E1-E80, S4-S80, "
                                 "premium_ssd_v2, ultra; or define it under tiers.custom)" +
                                 (family.empty() ? "" : "; for a " + *tier + " disk write its tier (e.g. " +
                                  std::string(family == "premium_ssd_v2" || family == "ultra" ? family : "P30") +
                                  ")"));
          continue;
        }
      }
      if (rule.bursting && *rule.bursting && rule.tier.burst_model == BurstModel::none)
        r.error(e["bursting"], w + "tier " + rule.tier.name + " cannot burst");
      cfg.disks.push_back(std::move(rule));
    }
  }
  return cfg;
}

const DiskTierRule* match_disk_rule(const std::vector<DiskTierRule>& rules, const std::string& device,
                                    const std::vector<unsigned>& luns, const std::vector<std::string>& by_id) {
  for (const auto& rule : rules) {
    switch (rule.kind) {
      case DiskMatchKind::device:
        if (rule.pattern == device) return &rule;
        break;
      case DiskMatchKind::lun:
        if (std::find(luns.begin(), luns.end(), rule.lun) != luns.end()) return &rule;
        break;
      case DiskMatchKind::by_id:
        if (std::find(by_id.begin(), by_id.end(), rule.pattern) != by_id.end()) return &rule;
        break;
      case DiskMatchKind::glob:
        if (fnmatch(rule.pattern.c_str(), device.c_str(), 0) == 0) return &rule;
        break;
    }
  }
  return nullptr;
}

}  // namespace diskperf
