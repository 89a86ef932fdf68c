#include "daemon/check_command.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "collectors/azure_collector.h"
#include "collectors/dm_table_source.h"
#include "collectors/tier_collector.h"
#include "daemon/imds_slot.h"
#include "daemon/reloader.h"
#include "probes/probe_run.h"
#include "probes/probe_target.h"

namespace diskperf {
namespace {

constexpr double kAboveCap = 1.10;  // measured > 110% of a provisioned cap: above it (10%: measurement tolerance)

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

ShapeResult run_shape(const std::string& path, const HostPaths& paths, RwMode rw, std::uint64_t bs, unsigned iodepth,
                      std::chrono::nanoseconds runtime, double iops_cap, double bps_cap) {
  ShapeResult s;
  s.rw = std::string(to_string(rw));
  s.bs = bs;
  s.iodepth = iodepth;
  s.reachable_iops = std::min(iops_cap, bps_cap / static_cast<double>(bs));
  ProbeJob job;
  job.name = "check";
  job.target = path;
  job.rw = rw;
  job.bs = bs;
  job.iodepth = iodepth;
  job.runtime = runtime;
  job.timeout = std::chrono::seconds(10);
  ResolvedJob rj = resolve_job(job, paths);
  if (!rj.ok()) {
    s.error = rj.errors.front();
    return s;
  }
  RunResult r = run_probe(job, rj.path, rj.region.offset, rj.region.size, rj.alignment);
  if (!r.fatal.empty()) {
    s.error = r.fatal;
    return s;
  }
  if (!r.errors.empty()) {
    s.error = "I/O errors: " + r.errors.begin()->first;
    return s;
  }
  s.iops = r.iops(r.read);
  s.bytes_per_second = r.bytes_per_second(r.read);
  s.p99_seconds = static_cast<double>(r.read.clat.percentile(99)) / 1e9;
  return s;
}

// "PATH=TIER" -> a device rule in front of the config's rules.
std::optional<DiskTierRule> rule_from_spec(const std::string& spec, const TiersConfig& cfg, const HostPaths& paths,
                                           std::string& path, std::string& error) {
  const auto eq = spec.rfind('=');
  path = spec.substr(0, eq);
  const std::string tier = spec.substr(eq + 1);
  DiskTierRule r;
  r.kind = DiskMatchKind::device;
  r.pattern = probe_device(path, paths);
  if (r.pattern.empty()) {
    error = "--disk " + spec + ": " + path + " is not a block device (or not on one)";
    return std::nullopt;
  }
  if (const DiskTier* t = find_tier(cfg.custom, tier)) {
    r.tier = *t;
  } else if (const DiskTier* b = find_tier(builtin_tiers(), tier)) {
    r.tier = *b;
    r.tier_is_builtin = true;
  } else {
    error = "--disk " + spec + ": tier '" + tier + "' is unknown (P1-P80, E1-E80, S4-S80, or a tiers.custom name)";
    return std::nullopt;
  }
  return r;
}

// The IMDS document, asked once (null when IMDS is off or fails: the failure is said on `err`).
std::shared_ptr<const ImdsCompute> ask_imds_once(const Options& global, const Config& cfg, std::ostream& err) {
  const std::optional<ImdsOptions> options = imds_options(global, cfg);
  if (!options) return nullptr;
  ImdsWatcher watcher(*options, global.paths.sysfs);
  watcher.refresh_once();
  const auto state = watcher.state();
  if (!state->up) err << "check: azure imds: " << state->last_error << " (caps from IMDS left out)\n";
  return state->compute;
}

}  // namespace

std::uint64_t throughput_block_size(double iops_cap, double bps_cap) {
  std::uint64_t bs = 64 * 1024;
  while (bs < (1u << 20) && iops_cap > 0 && bps_cap / static_cast<double>(bs) > iops_cap) bs *= 2;
  return bs;
}

std::string check_verdict(const CheckRow& row, double fraction) {
  for (const ShapeResult* s : {&row.iops_shape, &row.throughput_shape})
    if (!s->error.empty()) return "error";
  for (const ShapeResult* s : {&row.iops_shape, &row.throughput_shape})
    if (s->iops < fraction * s->reachable_iops) return "below";
  const bool above = row.iops_shape.iops > kAboveCap * row.iops_cap ||
                     row.throughput_shape.bytes_per_second > kAboveCap * row.bytes_per_second_cap;
  if (above) return row.caching == "ReadOnly" || row.caching == "ReadWrite" ? "cached" : "bursting";
  return "meets";
}

int check_exit_code(const std::vector<CheckRow>& rows) {
  if (rows.empty()) return 2;
  bool below = false;
  for (const auto& r : rows) {
    if (r.verdict == "error") return 2;
    below = below || r.verdict == "below";
  }
  return below ? 1 : 0;
}

std::string check_text(const std::vector<CheckRow>& rows) {
  std::vector<std::vector<std::string>> t = {{"DEVICE", "AZURE", "TIER", "CACHING", "IOPS_CAP", "IOPS", "IOPS%",
                                              "MB/s_CAP", "MB/s", "MB/s%", "P99_ms", "VERDICT"}};
  for (const auto& r : rows) {
    const double mbps_cap = r.bytes_per_second_cap / 1e6;
    const double mbps = r.throughput_shape.bytes_per_second / 1e6;
    t.push_back({r.device, r.azure.empty() ? "-" : r.azure, r.tier.empty() ? "-" : r.tier,
                 r.caching.empty() ? "-" : r.caching, fmt(r.iops_cap, 0), fmt(r.iops_shape.iops, 0),
                 r.iops_cap > 0 ? fmt(100 * r.iops_shape.iops / r.iops_cap, 0) : "-", fmt(mbps_cap, 0), fmt(mbps, 1),
                 mbps_cap > 0 ? fmt(100 * mbps / mbps_cap, 0) : "-", fmt(r.iops_shape.p99_seconds * 1e3, 2),
                 r.verdict});
  }
  std::vector<std::size_t> w(t[0].size(), 0);
  for (const auto& row : t)
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  std::string out;
  for (const auto& row : t) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      if (i + 1 < row.size()) out += std::string(w[i] - row[i].size() + 2, ' ');
    }
    out += "\n";
  }
  for (const auto& r : rows) {
    for (const ShapeResult* s : {&r.iops_shape, &r.throughput_shape})
      if (!s->error.empty()) out += r.device + ": " + s->rw + " bs=" + std::to_string(s->bs) + ": " + s->error + "\n";
  }
  return out;
}

std::string check_json(const std::vector<CheckRow>& rows) {
  nlohmann::json j = nlohmann::json::array();
  auto shape = [](const ShapeResult& s) {
    nlohmann::json o = {{"rw", s.rw}, {"bs", s.bs}, {"iodepth", s.iodepth}, {"reachable_iops", s.reachable_iops},
                        {"iops", s.iops}, {"bytes_per_second", s.bytes_per_second}, {"clat_p99_seconds", s.p99_seconds}};
    if (!s.error.empty()) o["error"] = s.error;
    return o;
  };
  for (const auto& r : rows) {
    j.push_back({{"device", r.device}, {"path", r.path}, {"azure", r.azure}, {"tier", r.tier}, {"source", r.source},
                 {"caching", r.caching}, {"iops_cap", r.iops_cap}, {"bytes_per_second_cap", r.bytes_per_second_cap},
                 {"iops", r.iops_shape.iops}, {"bytes_per_second", r.throughput_shape.bytes_per_second},
                 {"iops_percent", r.iops_cap > 0 ? 100 * r.iops_shape.iops / r.iops_cap : 0.0},
                 {"bytes_per_second_percent",
                  r.bytes_per_second_cap > 0 ? 100 * r.throughput_shape.bytes_per_second / r.bytes_per_second_cap : 0.0},
                 {"clat_p99_seconds", r.iops_shape.p99_seconds}, {"verdict", r.verdict},
                 {"iops_shape", shape(r.iops_shape)}, {"throughput_shape", shape(r.throughput_shape)}});
  }
  return nlohmann::json{{"disks", j}}.dump(2) + "\n";
}

int run_check_command(const CheckCommandOptions& o, const Options& global, std::ostream& out, std::ostream& err) {
  const auto runtime = parse_duration(o.runtime);
  if (!runtime || runtime->count() <= 0) {
    err << "check: --runtime '" << o.runtime << "' is not a positive duration\n";
    return 2;
  }
  Config full;
  if (!global.config_file.empty()) {
    ConfigResult r = load_config_file(global.config_file);
    for (const auto& e : r.errors) err << (e.line > 0 ? e.to_string(global.config_file) : e.message) << "\n";
    if (!r.config) return 2;
    full = std::move(*r.config);
  }
  TiersConfig& cfg = full.tiers;
  const std::optional<std::string>& config_perfcounters = full.azure.perfcounters_file;
  // --disk rules go first (they win over the config's).
  std::vector<DiskTierRule> cli_rules;
  std::map<std::string, std::string> paths_by_device;
  for (const auto& spec : o.disks) {
    std::string path, error;
    auto rule = rule_from_spec(spec, cfg, global.paths, path, error);
    if (!rule) {
      err << "check: " << error << "\n";
      return 2;
    }
    paths_by_device[rule->pattern] = path;
    cli_rules.push_back(std::move(*rule));
  }
  cfg.disks.insert(cfg.disks.begin(), cli_rules.begin(), cli_rules.end());

  std::shared_ptr<const PerfCountersParse> azure_parse;
  const std::string perfcounters = global.azure_perfcounters_file ? *global.azure_perfcounters_file
                                   : config_perfcounters          ? *config_perfcounters
                                                                  : kDefaultPerfCountersFile;
  if (!perfcounters.empty()) {
    AzureCollector azure(perfcounters);
    Families ignored;
    azure.collect(ignored);
    azure_parse = azure.last_parse();
  }
  std::shared_ptr<DmTableSource> tables;
  if (global.dm_table_dir.empty()) tables = std::make_shared<LibDevmapperTableSource>(global.paths.devfs);
  else tables = std::make_shared<DirectoryDmTableSource>(global.dm_table_dir);
  BlockView view(global.paths, nullptr, nullptr, std::move(tables));
  std::shared_ptr<const ImdsCompute> imds = ask_imds_once(global, full, err);
  GatheredCaps g = gather_caps(view, nullptr, azure_parse, cfg, imds.get());
  if (g.error) {
    err << "check: " << *g.error << "\n";
    return 2;
  }

  // What to check: the --disk devices, else every disk and volume with caps.
  struct Item {
    std::string device, path;
  };
  std::vector<Item> items;
  if (!cli_rules.empty()) {
    for (const auto& r : cli_rules) items.push_back({r.pattern, paths_by_device[r.pattern]});
  } else {
    for (const auto& [dev, c] : g.caps.disks) items.push_back({dev, join_path(global.paths.devfs, dev)});
    for (const auto& [vol, c] : g.caps.volumes) items.push_back({vol, join_path(global.paths.devfs, vol)});
  }
  if (items.empty()) {
    err << "check: no disk with a known tier: give --disk PATH=TIER or tiers.disks in --config; on an Azure VM, "
           "the Instance Metadata Service (--azure.imds) or the Enhanced Monitoring extension names them\n";
    return 2;
  }

  const bool tty = ::isatty(STDOUT_FILENO) == 1;
  std::vector<CheckRow> rows;
  for (const Item& it : items) {
    CheckRow row;
    row.device = it.device;
    row.path = it.path;
    if (auto d = g.caps.disks.find(it.device); d != g.caps.disks.end()) {
      const DiskCaps& c = d->second;
      row.tier = c.tier;
      row.caching = c.caching;
      row.source = std::string(to_string(c.source));
      row.azure = !c.azure_disk_name.empty() ? c.azure_disk_name : c.azure_lun.empty() ? "" : "lun" + c.azure_lun;
      row.iops_cap = c.iops;
      row.bytes_per_second_cap = c.bytes_per_second;
    } else if (auto v = g.caps.volumes.find(it.device); v != g.caps.volumes.end()) {
      row.tier = std::string(to_string(v->second.layout)) + " volume";
      row.azure = v->second.name;
      row.iops_cap = v->second.iops;
      row.bytes_per_second_cap = v->second.bytes_per_second;
    }
    if (row.iops_cap <= 0) {
      row.iops_shape.error = "no caps resolved for " + it.device;
      row.verdict = "error";
      rows.push_back(row);
      continue;
    }
    if (tty) out << "probing " << it.path << " (4k randread, iodepth 256, " << o.runtime << ") ..." << std::flush;
    row.iops_shape = run_shape(it.path, global.paths, RwMode::randread, 4096, 256, *runtime, row.iops_cap,
                               row.bytes_per_second_cap);
    const std::uint64_t bs = throughput_block_size(row.iops_cap, row.bytes_per_second_cap);
    if (tty) out << "\rprobing " << it.path << " (" << bs / 1024 << "k read, iodepth 64, " << o.runtime << ") ...   "
                 << std::flush;
    row.throughput_shape = run_shape(it.path, global.paths, RwMode::read, bs, 64, *runtime, row.iops_cap,
                                     row.bytes_per_second_cap);
    if (tty) out << "\r\033[K" << std::flush;
    row.verdict = check_verdict(row, cfg.meets_fraction);
    rows.push_back(std::move(row));
  }
  out << (o.output == "json" ? check_json(rows) : check_text(rows));
  return check_exit_code(rows);
}

}  // namespace diskperf
