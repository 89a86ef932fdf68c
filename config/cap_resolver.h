#pragma once
// Resolves the caps of each disk, the VM and each volume from the config, the Azure PerfCounters
// facts and the built-in tables. Pure: facts in, caps out (collectors/tier_collector.* and the
// `check` command gather the facts). Rules (docs/tiers.md):
//  - disk: the first tiers.disks rule that matches (source `builtin` for a built-in tier, `config`
//    for a custom tier or per-disk Premium SSD v2 / Ultra caps); else the PerfCounters disk;SLA and
//    disk;SLA Throughput (source `perfcounters`, tier recognised from the built-in table when the
//    caps are a P tier's, e.g. "P40/P50"); else the IMDS disk of the same LUN, or the OS disk
//    (source `imds`, config/imds_caps.h); else no caps.
//  - bursting: credit tiers burst unless the rule says `bursting: false`; on-demand tiers (and
//    custom tiers) only with `bursting: true`. Burst caps are set only when bursting is on.
//  - VM: tiers.vm_size (a tiers.vm_sizes entry: source `config`; built in: `builtin`); else the
//    PerfCounters VM SLA lines (`perfcounters`); else the Instance Type looked up in the tables;
//    else the IMDS vmSize looked up in the tables (`imds`).
//  - volume (Microsoft "disks-performance": a striped volume can reach the sum of its members'
//    caps, bounded by the VM's uncached cap): striped (dm `striped`, md raid0) = sum of the
//    members' caps; linear (dm `linear` / `crypt` segments, md linear) = the smallest member's cap,
//    what any extent of the volume is served at (a single-member volume: exactly its member's);
//    mirror (md raid1) = the smallest member's (every write goes to all members). Every volume cap
//    is then bounded by the VM's uncached cap (burst: the VM's burst cap, else its uncached cap),
//    each cap only where the VM's is known.
//    Stacks are resolved level by level; a member without caps leaves the volume without caps.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectors/azure/imds_document.h"
#include "collectors/azure_facts.h"
#include "collectors/volume_topology.h"
#include "config/tiers_config.h"
#include "config/tier_catalog.h"

namespace diskperf {

/// Where a cap's numbers came from (the `source` label).
enum class CapSource { config, perfcounters, builtin, imds };
std::string_view to_string(CapSource s);

/// A whole disk and its stable names (collectors/stable_names.h).
struct DiskIdentity {
  std::string device;               ///< kernel name
  std::vector<unsigned> azure_luns;
  std::vector<std::string> by_id;
  bool azure_os_disk = false;
};

struct DiskCaps {
  std::string device;
  std::string tier;    ///< "P30", a custom name, the family for v2/Ultra, "P40/P50" or "" from PerfCounters
  std::string family;  ///< premium_ssd, ..., custom; "" when unknown
  CapSource source = CapSource::builtin;
  double iops = 0;
  double bytes_per_second = 0;
  BurstModel burst_model = BurstModel::none;
  bool bursting = false;  ///< burst caps apply (set only when true)
  std::optional<double> burst_iops, burst_bytes_per_second;
  std::string caching;    ///< tiers.disks caching, else PerfCounters disk;Caching, else ""
  std::string azure_lun;  ///< comma-separated LUNs, "" off Azure
  std::string azure_disk_name;  ///< PerfCounters, else IMDS, managed disk name
  std::string write_accelerator;  ///< IMDS writeAcceleratorEnabled: "true", "false"; "" unknown
};

/// The VM's size and its remote-disk caps; a cap the source does not give is unset (no bound).
struct VmCaps {
  std::string vm_size;
  CapSource source = CapSource::builtin;
  std::string disk_controller;           ///< "NVMe", "SCSI, NVMe", "" (SCSI or unknown)
  std::optional<double> iops;              ///< uncached
  std::optional<double> bytes_per_second;  ///< uncached
  std::optional<double> burst_iops, burst_bytes_per_second;
  std::optional<double> cached_iops, cached_bytes_per_second;
  std::optional<unsigned> max_data_disks;
};

/// How a volume spreads I/O over its members.
enum class VolumeLayout { striped, linear, mirror, unsupported };
std::string_view to_string(VolumeLayout l);

struct VolumeCaps {
  std::string volume, name;
  VolumeLayout layout = VolumeLayout::linear;
  std::vector<std::string> members;  ///< member whole disks or volumes, as combined
  double iops = 0, bytes_per_second = 0;
  std::optional<double> burst_iops, burst_bytes_per_second;
  bool vm_bounded = false;  ///< the VM's cap was lower than the members' combined caps
};

struct CapInputs {
  std::vector<DiskIdentity> disks;
  const AzureFacts* azure = nullptr;    ///< may be null (no PerfCounters)
  const TiersConfig* config = nullptr;  ///< may be null
  const ImdsCompute* imds = nullptr;    ///< may be null (IMDS off or not answered yet)
  std::map<std::string, VolumeInfo> volumes;
  std::map<std::string, VolumeLayout> layouts;  ///< per volume, from dm tables / md level
  std::vector<std::string> volumes_wanted;      ///< volumes to resolve (filtered); others only as members
};

struct ResolvedCaps {
  std::map<std::string, DiskCaps> disks;
  std::optional<VmCaps> vm;
  std::map<std::string, VolumeCaps> volumes;
};

ResolvedCaps resolve_caps(const CapInputs& in);

/// The layout of a dm table's segments: all `striped` -> striped; all `linear`/`crypt` -> linear;
/// anything else unsupported.
VolumeLayout dm_layout(const std::vector<std::string>& segment_targets);
/// md/level: raid0 -> striped, linear -> linear, raid1 -> mirror, else unsupported.
VolumeLayout md_layout(const std::string& level);

}  // namespace diskperf
