#include "config/cap_resolver.h"

#include <algorithm>
#include <functional>

#include "config/imds_caps.h"

namespace diskperf {
namespace {

constexpr double kMB = 1e6;
constexpr int kMaxDepth = 16;

std::string join_luns(const std::vector<unsigned>& luns) {
  std::string out;
  for (unsigned l : luns) out += (out.empty() ? "" : ",") + std::to_string(l);
  return out;
}

void set_burst(DiskCaps& c, const DiskTier& t, std::optional<bool> configured) {
  c.burst_model = t.burst_model;
  bool on = false;
  if (t.burst_model == BurstModel::credit) on = configured.value_or(true);
  else if (t.burst_model == BurstModel::on_demand) on = configured.value_or(false);
  if (on && t.burst_iops && t.burst_bytes_per_second) {
    c.bursting = true;
    c.burst_iops = t.burst_iops;
    c.burst_bytes_per_second = t.burst_bytes_per_second;
  }
}

// The disk IMDS lists for `d`: the OS disk, or the data disk of one of its LUNs.
const ImdsDisk* imds_disk_of(const DiskIdentity& d, const ImdsCompute* imds) {
  if (!imds) return nullptr;
  if (d.azure_os_disk) return imds->os_disk ? &*imds->os_disk : nullptr;
  for (const ImdsDisk& disk : imds->data_disks)
    for (unsigned lun : d.azure_luns)
      if (disk.lun == lun) return &disk;
  return nullptr;
}

bool set_from_imds(DiskCaps& c, const ImdsDisk& disk) {
  ImdsTier t = imds_disk_tier(disk);
  if (!t.tier) return false;
  c.tier = t.tier->name;
  c.family = t.tier->family;
  c.source = CapSource::imds;
  c.iops = t.tier->iops;
  c.bytes_per_second = t.tier->bytes_per_second;
  set_burst(c, *t.tier, std::nullopt);  // IMDS does not say whether on-demand bursting is enabled
  return true;
}

std::optional<DiskCaps> resolve_disk(const DiskIdentity& d, const CapInputs& in) {
  const AzureDiskFacts* az = nullptr;
  if (in.azure)
    if (auto it = in.azure->disks.find(d.device); it != in.azure->disks.end()) az = &it->second;
  const ImdsDisk* imds = imds_disk_of(d, in.imds);
  DiskCaps c;
  c.device = d.device;
  c.azure_lun = join_luns(d.azure_luns);
  if (imds) {
    c.caching = imds->caching;
    c.azure_disk_name = imds->name;
    c.write_accelerator = imds->write_accelerator ? "true" : "false";
  }
  if (az) {
    c.caching = az->caching;
    c.azure_disk_name = az->disk_name;
  }
  const DiskTierRule* rule = in.config ? match_disk_rule(in.config->disks, d.device, d.azure_luns, d.by_id) : nullptr;
  if (rule) {
    const DiskTier& t = rule->tier;
    c.tier = t.name;
    c.family = t.family;
    c.source = rule->tier_is_builtin ? CapSource::builtin : CapSource::config;
    c.iops = t.iops;
    c.bytes_per_second = t.bytes_per_second;
    set_burst(c, t, rule->bursting);
    if (rule->caching) c.caching = *rule->caching;
    return c;
  }
  if (az && az->sla_iops && az->sla_mb_per_s) {
    c.source = CapSource::perfcounters;
    c.iops = *az->sla_iops;
    c.bytes_per_second = *az->sla_mb_per_s * kMB;
    if (az->storage_type == "Premium") {
      auto matches = tiers_with_caps("premium_ssd", c.iops, c.bytes_per_second);
      for (const DiskTier* t : matches) c.tier += (c.tier.empty() ? "" : "/") + t->name;
      if (!matches.empty()) {
        c.family = "premium_ssd";
        set_burst(c, *matches.front(), std::nullopt);  // same burst caps for every match
      }
    }
    return c;
  }
  if (imds && set_from_imds(c, *imds)) return c;
  return std::nullopt;
}

std::optional<VmCaps> from_size(const VmSize& v, CapSource source) {
  VmCaps c;
  c.vm_size = v.name;
  c.source = source;
  c.disk_controller = v.disk_controller;
  c.iops = v.uncached_iops;
  c.bytes_per_second = v.uncached_bytes_per_second;
  c.burst_iops = v.burst_uncached_iops;
  c.burst_bytes_per_second = v.burst_uncached_bytes_per_second;
  c.cached_iops = v.cached_iops;
  c.cached_bytes_per_second = v.cached_bytes_per_second;
  c.max_data_disks = v.max_data_disks;
  return c;
}

std::optional<VmCaps> lookup_size(const std::string& name, const TiersConfig* cfg) {
  if (name.empty()) return std::nullopt;
  if (cfg)
    if (const VmSize* v = find_vm_size(cfg->vm_sizes, name)) return from_size(*v, CapSource::config);
  if (const VmSize* v = find_vm_size(builtin_vm_sizes(), name)) return from_size(*v, CapSource::builtin);
  return std::nullopt;
}

std::optional<VmCaps> resolve_vm(const CapInputs& in) {
  if (in.config && in.config->vm_size) return lookup_size(*in.config->vm_size, in.config);
  const std::string instance_type = in.azure && in.azure->instance_type ? in.azure->instance_type->value : "";
  const std::string imds_size = in.imds ? in.imds->vm_size : "";
  if (in.azure && in.azure->vm_iops && in.azure->vm_mb_per_s) {
    const std::string& size = instance_type.empty() ? imds_size : instance_type;
    VmCaps c;
    // PerfCounters gives only the uncached caps: the rest from the table row of the same size.
    if (auto known = lookup_size(size, in.config)) c = *known;
    c.vm_size = size;
    c.source = CapSource::perfcounters;
    c.iops = *in.azure->vm_iops;
    c.bytes_per_second = *in.azure->vm_mb_per_s * kMB;
    return c;
  }
  if (auto c = lookup_size(instance_type, in.config)) return c;
  if (auto c = lookup_size(imds_size, in.config)) {
    c->source = CapSource::imds;
    return c;
  }
  return std::nullopt;
}

// Caps of one member (disk or volume) as seen by a volume: provisioned and burst (burst falls back
// to provisioned when the member does not burst).
struct Pair {
  double iops = 0, bps = 0, burst_iops = 0, burst_bps = 0;
  bool bursts = false;
};

// Bounds a volume's caps by the VM's, each only where the VM's cap is known (burst: the VM's burst
// cap, else its uncached cap). True when a VM uncached cap is below the members' combined caps.
bool bound_by_vm(Pair& p, const VmCaps& vm) {
  bool bounded = false;
  if (vm.iops) {
    bounded = bounded || *vm.iops < p.iops;
    p.iops = std::min(p.iops, *vm.iops);
  }
  if (vm.bytes_per_second) {
    bounded = bounded || *vm.bytes_per_second < p.bps;
    p.bps = std::min(p.bps, *vm.bytes_per_second);
  }
  if (auto b = vm.burst_iops ? vm.burst_iops : vm.iops) p.burst_iops = std::min(p.burst_iops, *b);
  if (auto b = vm.burst_bytes_per_second ? vm.burst_bytes_per_second : vm.bytes_per_second)
    p.burst_bps = std::min(p.burst_bps, *b);
  return bounded;
}

}  // namespace

std::string_view to_string(CapSource s) {
  switch (s) {
    case CapSource::config: return "config";
    case CapSource::perfcounters: return "perfcounters";
    case CapSource::imds: return "imds";
    case CapSource::builtin: break;
  }
  return "builtin";
}

std::string_view to_string(VolumeLayout l) {
  switch (l) {
    case VolumeLayout::striped: return "striped";
    case VolumeLayout::linear: return "linear";
    case VolumeLayout::mirror: return "mirror";
    case VolumeLayout::unsupported: break;
  }
  return "unsupported";
}

VolumeLayout dm_layout(const std::vector<std::string>& targets) {
  if (targets.empty()) return VolumeLayout::unsupported;
  if (std::all_of(targets.begin(), targets.end(), [](const std::string& t) { return t == "striped"; }))
    return VolumeLayout::striped;
  if (std::all_of(targets.begin(), targets.end(),
                  [](const std::string& t) { return t == "linear" || t == "crypt"; }))
    return VolumeLayout::linear;
  return VolumeLayout::unsupported;
}

VolumeLayout md_layout(const std::string& level) {
  if (level == "raid0") return VolumeLayout::striped;
  if (level == "linear") return VolumeLayout::linear;
  if (level == "raid1") return VolumeLayout::mirror;
  return VolumeLayout::unsupported;
}

ResolvedCaps resolve_caps(const CapInputs& in) {
  ResolvedCaps out;
  for (const DiskIdentity& d : in.disks)
    if (auto c = resolve_disk(d, in)) out.disks.emplace(d.device, std::move(*c));
  out.vm = resolve_vm(in);

  std::map<std::string, std::optional<Pair>> memo;
  std::map<std::string, VolumeCaps> computed;
  std::function<std::optional<Pair>(const std::string&, int)> caps_of = [&](const std::string& dev,
                                                                            int depth) -> std::optional<Pair> {
    if (auto it = out.disks.find(dev); it != out.disks.end()) {
      const DiskCaps& c = it->second;
      Pair p{c.iops, c.bytes_per_second, c.burst_iops.value_or(c.iops),
             c.burst_bytes_per_second.value_or(c.bytes_per_second), c.bursting};
      return p;
    }
    auto vit = in.volumes.find(dev);
    if (vit == in.volumes.end() || depth > kMaxDepth) return std::nullopt;
    if (auto m = memo.find(dev); m != memo.end()) return m->second;
    memo[dev] = std::nullopt;  // a loop resolves to no caps
    const VolumeInfo& v = vit->second;
    auto lit = in.layouts.find(dev);
    const VolumeLayout layout = lit == in.layouts.end() ? VolumeLayout::unsupported : lit->second;
    if (layout == VolumeLayout::unsupported || v.members.empty()) return std::nullopt;
    VolumeCaps vc;
    vc.volume = dev;
    vc.name = v.name;
    vc.layout = layout;
    std::optional<Pair> acc;
    for (const VolumeMember& m : v.members) {
      const std::string& member = in.volumes.count(m.name) && m.name != dev ? m.name : m.disk;
      auto p = caps_of(member, depth + 1);
      if (!p) return std::nullopt;
      vc.members.push_back(member);
      if (!acc) {
        acc = p;
      } else if (layout == VolumeLayout::striped) {
        acc->iops += p->iops;
        acc->bps += p->bps;
        acc->burst_iops += p->burst_iops;
        acc->burst_bps += p->burst_bps;
        acc->bursts = acc->bursts || p->bursts;
      } else {
        acc->iops = std::min(acc->iops, p->iops);
        acc->bps = std::min(acc->bps, p->bps);
        acc->burst_iops = std::min(acc->burst_iops, p->burst_iops);
        acc->burst_bps = std::min(acc->burst_bps, p->burst_bps);
        acc->bursts = acc->bursts && p->bursts;
      }
    }
    if (out.vm) vc.vm_bounded = bound_by_vm(*acc, *out.vm);
    vc.iops = acc->iops;
    vc.bytes_per_second = acc->bps;
    if (acc->bursts) {
      vc.burst_iops = acc->burst_iops;
      vc.burst_bytes_per_second = acc->burst_bps;
    }
    computed[dev] = vc;
    memo[dev] = acc;
    return acc;
  };
  for (const std::string& v : in.volumes_wanted) {
    caps_of(v, 0);
    if (auto it = computed.find(v); it != computed.end()) out.volumes.emplace(v, it->second);
  }
  return out;
}

}  // namespace diskperf
