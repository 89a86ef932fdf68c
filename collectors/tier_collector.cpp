#include "collectors/tier_collector.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "collectors/dm_table_parser.h"
#include "collectors/lazy_family.h"
#include "collectors/metric_families.h"
#include "collectors/stable_names.h"
#include "collectors/volume_topology.h"
#include "config/imds_caps.h"

namespace diskperf {

std::string probe_device(const std::string& path, const HostPaths& paths) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  const dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  const std::string link = join_path(paths.sysfs, "dev/block/" + std::to_string(major(dev)) + ":" +
                                                       std::to_string(minor(dev)));
  const std::string target = read_link(link);
  if (target.empty()) return {};
  std::string name = target.substr(target.rfind('/') + 1);
  if (read_file(join_path(link, "partition"), 64).ok()) {  // a partition: its whole disk
    const std::string parent = target.substr(0, target.rfind('/'));
    name = parent.substr(parent.rfind('/') + 1);
  }
  return kernel_name(name);
}

bool is_cap_seeking(const ProbeJob& job) { return !job.rate_iops && job.iodepth >= kCapSeekingIodepth; }

std::vector<ProbeCaps> probe_caps(const std::vector<ProbeJob>& jobs, const ResolvedCaps& caps,
                                  const std::map<std::string, std::string>& kernel_names) {
  std::vector<ProbeCaps> out;
  for (const ProbeJob& j : jobs) {
    ProbeCaps p;
    p.job = &j;
    if (auto it = kernel_names.find(j.target); it != kernel_names.end()) p.device = it->second;
    if (auto d = caps.disks.find(p.device); d != caps.disks.end()) {
      p.tier = d->second.tier;
      p.family = d->second.family;
      p.iops = d->second.iops;
      p.bytes_per_second = d->second.bytes_per_second;
    } else if (auto v = caps.volumes.find(p.device); v != caps.volumes.end()) {
      p.iops = v->second.iops;
      p.bytes_per_second = v->second.bytes_per_second;
    }
    out.push_back(std::move(p));
  }
  return out;
}

GatheredCaps gather_caps(BlockView& view, const DeviceFilter* filter,
                         std::shared_ptr<const PerfCountersParse> azure_parse, const TiersConfig& config,
                         const ImdsCompute* imds) {
  GatheredCaps g;
  const std::shared_ptr<const BlockDevices::Listing> listing = view.devices();
  if (listing->error) {
    g.error = listing->error;
    return g;
  }
  CapInputs in;
  in.config = &config;
  in.imds = imds;
  AzureFacts facts;
  if (azure_parse) {
    facts = azure_facts(*azure_parse);
    in.azure = &facts;
  }
  // A disk has caps only from a config rule, PerfCounters or IMDS facts of it (resolve_disk), and a
  // volume only from members that have caps: without any, the VM's caps are all there is, and
  // the disks and volumes are not gathered (no dm table parsed, nothing copied).
  const bool imds_disks = imds && (imds->os_disk || !imds->data_disks.empty());
  if (config.disks.empty() && facts.disks.empty() && !imds_disks) {
    g.caps = resolve_caps(in);
    return g;
  }
  const std::shared_ptr<const VolumeScan> scan_ptr = view.volumes();
  const VolumeScan& scan = *scan_ptr;
  if (!scan.ok) {
    g.error = scan.error;
    return g;
  }
  const std::shared_ptr<const StableNames> names_ptr = view.stable_names();
  const StableNames& names = *names_ptr;
  for (const BlockDevices::Device& device : listing->devices) {
    const std::string& dev = device.name;
    if (scan.volumes.count(dev)) continue;
    DiskIdentity d{dev, {}, {}};
    if (auto it = names.azure_lun.find(dev); it != names.azure_lun.end())
      d.azure_luns.assign(it->second.begin(), it->second.end());
    if (auto it = names.by_id.find(dev); it != names.by_id.end()) d.by_id = split_by_id(it->second);
    d.azure_os_disk = names.azure_os_disk.count(dev) > 0;
    in.disks.push_back(std::move(d));
  }
  for (const auto& [dev, v] : scan.volumes) {
    VolumeLayout layout = VolumeLayout::unsupported;
    if (v.kind == "md") {
      layout = md_layout(v.md_level);
    } else if (v.kind == "dm" && v.dm_table) {
      if (const DmTableText& t = *v.dm_table; t.status == DmTableText::Status::ok) {
        DmTableParse parsed = parse_dm_table(t.text);
        std::vector<std::string> targets;
        for (const auto& s : parsed.segments) targets.push_back(s.target);
        if (!parsed.error) layout = dm_layout(targets);
      }
    }
    in.layouts[dev] = layout;
    if (!filter || filter->accepts(dev)) in.volumes_wanted.push_back(dev);
  }
  in.volumes = scan.volumes;
  g.caps = resolve_caps(in);
  return g;
}

TierCollector::TierCollector(std::shared_ptr<BlockView> view, HostPaths paths,
                             std::shared_ptr<const DeviceFilter> filter, std::shared_ptr<const AzureCollector> azure,
                             TiersConfig config, std::vector<ProbeJob> probes, std::shared_ptr<const ImdsWatcher> imds)
    : view_(std::move(view)),
      paths_(std::move(paths)),
      filter_(std::move(filter)),
      azure_(std::move(azure)),
      config_(std::move(config)),
      probes_(std::move(probes)),
      imds_(std::move(imds)) {}

TierCollector::TierCollector(HostPaths paths, std::shared_ptr<const DeviceFilter> filter,
                             std::shared_ptr<DmTableSource> tables, std::shared_ptr<const AzureCollector> azure,
                             TiersConfig config, std::vector<ProbeJob> probes)
    : TierCollector(std::make_shared<BlockView>(paths, nullptr, nullptr, std::move(tables)), paths, std::move(filter),
                    std::move(azure), std::move(config), std::move(probes)) {}

std::optional<std::string> TierCollector::collect(Families& out) {
  const std::shared_ptr<const ImdsState> imds = imds_ ? imds_->state() : nullptr;
  const ImdsCompute* compute = imds ? imds->compute.get() : nullptr;
  GatheredCaps g = gather_caps(*view_, filter_.get(), azure_ ? azure_->last_parse() : nullptr, config_, compute);
  if (g.error) return g.error;
  if (compute) no_caps_log_.note(*compute, g.caps);
  emit_caps(out, g.caps);
  std::map<std::string, std::string> names;
  for (const ProbeJob& j : probes_) names.emplace(j.target, probe_device(j.target, paths_));
  emit_probe_caps(out, probe_caps(probes_, g.caps, names), config_.meets_fraction);
  return std::nullopt;
}

void ImdsNoCapsLog::note(const ImdsCompute& imds, const ResolvedCaps& caps) {
  std::set<std::string> capped;  // LUNs of disks that have caps
  for (const auto& [dev, c] : caps.disks)
    for (const std::string& lun : split_by_id(c.azure_lun)) capped.insert(lun);
  std::lock_guard lock(mu_);
  std::set<std::string> now;
  for (const ImdsDisk& d : imds.data_disks) {
    if (!d.lun) continue;
    const std::string lun = std::to_string(*d.lun);
    if (capped.count(lun)) continue;
    const ImdsTier t = imds_disk_tier(d);
    if (t.tier) continue;  // caps known, but no device with that LUN here
    now.insert(lun);
    if (!logged_.count(lun))
      spdlog::warn("azure imds: LUN {} ('{}', {}) has no caps: {} (e.g. {{lun: {}, tier: premium_ssd_v2, "
                   "size_gib: ..., iops: ..., mbps: ...}})",
                   lun, log_text(d.name), log_text(d.storage_account_type), t.why_none, lun);
  }
  logged_ = std::move(now);
  // A size newer than the built-in table: say so once, or its volumes go unbounded unnoticed.
  const std::string vm = caps.vm || imds.vm_size.empty() ? "" : log_text(imds.vm_size);
  if (!vm.empty() && vm != vm_logged_) {
    std::string nearest;
    for (const std::string& n : nearest_vm_sizes(builtin_vm_sizes(), vm, 3)) nearest += (nearest.empty() ? "" : ", ") + n;
    spdlog::warn("azure imds: VM size '{}' is not in the built-in table (nearest: {}): the VM has no caps; give them "
                 "with tiers.vm_size and tiers.vm_sizes",
                 vm, nearest);
  }
  vm_logged_ = vm;
}

void emit_probe_caps(Families& out, const std::vector<ProbeCaps>& probes, double meets_fraction) {
  const auto G = prometheus::MetricType::Gauge;
  LazyFamily info(out, "diskperf_tier_probe_info",
                  "The disk or volume under a probe job's target (device, kernel name), its tier and family when "
                  "known, and whether the job is cap-seeking (no rate_iops, iodepth >= 16).",
                  G);
  LazyFamily iops(out, "diskperf_tier_probe_iops_cap", "IOPS cap of the disk or volume a probe job reads.", G);
  LazyFamily bps(out, "diskperf_tier_probe_throughput_cap_bytes_per_second",
                 "Throughput cap in bytes per second of the disk or volume a probe job reads.", G);
  LazyFamily bs(out, "diskperf_tier_probe_block_size_bytes", "Block size (bs) of a probe job, bytes.", G);
  LazyFamily frac(out, "diskperf_tier_probe_meets_fraction",
                  "Fraction of the reachable cap a cap-seeking probe must deliver (tiers.meets_fraction).", G);
  for (const ProbeCaps& p : probes) {
    const std::string& probe = p.job->name;
    const std::string& target = p.job->target;
    info.add(1, {{"probe", probe}, {"target", target}, {"device", p.device}, {"tier", p.tier}, {"family", p.family},
                 {"cap_seeking", is_cap_seeking(*p.job) ? "true" : "false"}});
    bs.add(static_cast<double>(p.job->bs), {{"probe", probe}, {"target", target}});
    if (!p.iops || !p.bytes_per_second) continue;
    iops.add(*p.iops, {{"probe", probe}, {"target", target}});
    bps.add(*p.bytes_per_second, {{"probe", probe}, {"target", target}});
    frac.add(meets_fraction, {{"probe", probe}, {"target", target}});
  }
}

namespace {

// The VM's size and each of its caps that is known (a size page may give none).
void emit_vm_caps(Families& out, const VmCaps& v) {
  const auto G = prometheus::MetricType::Gauge;
  LazyFamily info(out, "diskperf_tier_vm_info",
                  "VM size whose disk caps apply, where they come from (source: config, perfcounters, builtin, "
                  "imds) and its disk controller (disk_controller: NVMe, \"SCSI, NVMe\", empty where the size page does not "
                  "say).",
                  G);
  LazyFamily iops(out, "diskperf_tier_vm_uncached_iops_cap",
                  "VM-level uncached remote-disk cap in I/O operations per second.", G);
  LazyFamily bps(out, "diskperf_tier_vm_uncached_throughput_cap_bytes_per_second",
                 "VM-level uncached remote-disk throughput cap in bytes per second.", G);
  LazyFamily biops(out, "diskperf_tier_vm_burst_uncached_iops_cap",
                   "VM-level burst uncached remote-disk cap in I/O operations per second.", G);
  LazyFamily bbps(out, "diskperf_tier_vm_burst_uncached_throughput_cap_bytes_per_second",
                  "VM-level burst uncached remote-disk throughput cap in bytes per second.", G);
  LazyFamily ciops(out, "diskperf_tier_vm_cached_iops_cap",
                   "VM-level cap of cached (host cache and temp disk) I/O in operations per second.", G);
  LazyFamily cbps(out, "diskperf_tier_vm_cached_throughput_cap_bytes_per_second",
                  "VM-level cap of cached (host cache and temp disk) throughput in bytes per second.", G);
  LazyFamily disks(out, "diskperf_tier_vm_max_data_disks", "Number of data disks the VM size can attach.", G);
  info.add(1, {{"vm_size", v.vm_size}, {"source", std::string(to_string(v.source))},
               {"disk_controller", v.disk_controller}});
  if (v.iops) iops.add(*v.iops, {});
  if (v.bytes_per_second) bps.add(*v.bytes_per_second, {});
  if (v.burst_iops) biops.add(*v.burst_iops, {});
  if (v.burst_bytes_per_second) bbps.add(*v.burst_bytes_per_second, {});
  if (v.cached_iops) ciops.add(*v.cached_iops, {});
  if (v.cached_bytes_per_second) cbps.add(*v.cached_bytes_per_second, {});
  if (v.max_data_disks) disks.add(*v.max_data_disks, {});
}

}  // namespace

void emit_caps(Families& out, const ResolvedCaps& caps) {
  const auto G = prometheus::MetricType::Gauge;
  LazyFamily info(out, "diskperf_tier_disk_info",
                  "Tier of a disk and where its caps come from: tier (P30, a custom name, premium_ssd_v2, "
                  "P40/P50 when recognised from PerfCounters SLA values), family, source (config, perfcounters, "
                  "builtin, imds), burst_model (none, credit, on_demand), bursting (burst caps apply), caching, "
                  "azure_lun and write_accelerator (from IMDS).",
                  G);
  LazyFamily iops(out, "diskperf_tier_disk_iops_cap", "Provisioned IOPS cap of the disk's tier.", G);
  LazyFamily bps(out, "diskperf_tier_disk_throughput_cap_bytes_per_second",
                 "Provisioned throughput cap of the disk's tier in bytes per second (MB/s x 10^6).", G);
  LazyFamily biops(out, "diskperf_tier_disk_burst_iops_cap",
                   "Burst IOPS cap of the disk (only while bursting applies: credit tiers unless disabled, "
                   "on-demand tiers when enabled in the config).",
                   G);
  LazyFamily bbps(out, "diskperf_tier_disk_burst_throughput_cap_bytes_per_second",
                  "Burst throughput cap of the disk in bytes per second (only while bursting applies).", G);
  for (LazyFamily* f : {&info, &iops, &bps, &biops, &bbps}) f->seldom_changes();
  for (const auto& [dev, c] : caps.disks) {
    info.add(1, {{"device", dev}, {"tier", c.tier}, {"family", c.family}, {"source", std::string(to_string(c.source))},
                 {"burst_model", std::string(to_string(c.burst_model))}, {"bursting", c.bursting ? "true" : "false"},
                 {"caching", c.caching}, {"azure_lun", c.azure_lun}, {"write_accelerator", c.write_accelerator}});
    iops.add(c.iops, {{"device", dev}});
    bps.add(c.bytes_per_second, {{"device", dev}});
    if (c.burst_iops) biops.add(*c.burst_iops, {{"device", dev}});
    if (c.burst_bytes_per_second) bbps.add(*c.burst_bytes_per_second, {{"device", dev}});
  }
  if (caps.vm) emit_vm_caps(out, *caps.vm);
  LazyFamily vol_info(out, "diskperf_tier_volume_info",
                      "How a volume's caps are combined from its members: layout (striped: sum; linear, mirror: "
                      "smallest member), vm_bounded (true when the VM's uncached cap is lower).",
                      G);
  LazyFamily vol_member(out, "diskperf_tier_volume_member_info",
                        "A member (whole disk or volume) whose caps make up the volume's caps.", G);
  LazyFamily vol_iops(out, "diskperf_tier_volume_iops_cap", "IOPS cap of a volume (docs/tiers.md).", G);
  LazyFamily vol_bps(out, "diskperf_tier_volume_throughput_cap_bytes_per_second",
                     "Throughput cap of a volume in bytes per second.", G);
  LazyFamily vol_biops(out, "diskperf_tier_volume_burst_iops_cap",
                       "Burst IOPS cap of a volume (when a member bursts).", G);
  LazyFamily vol_bbps(out, "diskperf_tier_volume_burst_throughput_cap_bytes_per_second",
                      "Burst throughput cap of a volume in bytes per second (when a member bursts).", G);
  for (LazyFamily* f : {&vol_info, &vol_member, &vol_iops, &vol_bps, &vol_biops, &vol_bbps}) f->seldom_changes();
  for (const auto& [vol, c] : caps.volumes) {
    vol_info.add(1, {{"volume", vol}, {"name", c.name}, {"layout", std::string(to_string(c.layout))},
                     {"vm_bounded", c.vm_bounded ? "true" : "false"}});
    for (const auto& m : c.members) vol_member.add(1, {{"volume", vol}, {"member", m}});
    vol_iops.add(c.iops, {{"volume", vol}});
    vol_bps.add(c.bytes_per_second, {{"volume", vol}});
    if (c.burst_iops) vol_biops.add(*c.burst_iops, {{"volume", vol}});
    if (c.burst_bytes_per_second) vol_bbps.add(*c.burst_bytes_per_second, {{"volume", vol}});
  }
}

}  // namespace diskperf
