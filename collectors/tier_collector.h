#pragma once
// tier collector: the caps each disk, the VM and each volume are sold with, as diskperf_tier_*
// families (metric table: docs/tiers.md). At every scrape it gathers the facts (whole disks in
// /sys/block and their stable names, volume topology and dm tables, the azure collector's current
// PerfCounters parse) and resolves the caps with config/cap_resolver.h.

#include <memory>
#include <mutex>
#include <set>

#include "collectors/azure/imds_watcher.h"
#include "collectors/azure_collector.h"
#include "collectors/block_view.h"
#include "collectors/collector.h"
#include "collectors/device_filter.h"
#include "collectors/dm_table_source.h"
#include "collectors/host_fs.h"
#include "config/tiers_config.h"
#include "probes/probe_job.h"
#include "config/cap_resolver.h"

namespace diskperf {

/// Gathers the facts for resolve_caps from the host (through `view`, shared with the queue and
/// topology collectors of the scrape): every whole disk of <sysfs>/block (volumes excluded), its
/// Azure LUNs and by-id names, the volumes, their layouts (dm tables of `view`'s volume scan, md/level),
/// the PerfCounters facts of `azure_parse` and the IMDS document `imds` (either may be null). Volumes are resolved when `filter`
/// accepts them (null: all). Fails only when /sys/block cannot be listed.
struct GatheredCaps {
  std::optional<std::string> error;
  ResolvedCaps caps;
  std::map<std::string, std::string> kernel_names;  ///< probe target path -> kernel name (see probe_device)
};
GatheredCaps gather_caps(BlockView& view, const DeviceFilter* filter,
                         std::shared_ptr<const PerfCountersParse> azure_parse, const TiersConfig& config,
                         const ImdsCompute* imds = nullptr);

/// Kernel name of the block device a path is on: the device itself for a block device node
/// (st_rdev), else the device holding the file (st_dev), through <sysfs>/dev/block/MAJ:MIN; a
/// partition resolves to its whole disk. Empty when it cannot be resolved.
std::string probe_device(const std::string& path, const HostPaths& paths);

/// A probe job is cap-seeking when nothing but the disk limits it: no rate_iops and an iodepth of
/// at least kCapSeekingIodepth (the presets cap_iops and cap_throughput are). Little's law: a job
/// with few I/Os in flight is bounded by latency, not by the caps.
inline constexpr unsigned kCapSeekingIodepth = 16;
bool is_cap_seeking(const ProbeJob& job);

/// The caps that apply to a probe job: its target's disk or volume caps.
struct ProbeCaps {
  const ProbeJob* job = nullptr;
  std::string device, tier, family;
  std::optional<double> iops, bytes_per_second;
};
std::vector<ProbeCaps> probe_caps(const std::vector<ProbeJob>& jobs, const ResolvedCaps& caps,
                                  const std::map<std::string, std::string>& kernel_names);

/// Logs once per disk that IMDS lists but gives no caps for (Premium SSD v2), so that the operator
/// knows to set them in tiers.disks, and once per VM size IMDS names that the table lacks; again
/// only after the disk or size was gone or got caps.
class ImdsNoCapsLog {
 public:
  void note(const ImdsCompute& imds, const ResolvedCaps& caps);

 private:
  std::mutex mu_;
  std::set<std::string> logged_;  // LUNs; guarded by mu_
  std::string vm_logged_;         // VM size; guarded by mu_
};

class TierCollector final : public Collector {
 public:
  /// `azure` and `imds` may be null (disabled). `view` is shared with the queue and topology
  /// collectors (its table source gives the dm tables); `paths` resolves probe targets to their
  /// devices.
  TierCollector(std::shared_ptr<BlockView> view, HostPaths paths, std::shared_ptr<const DeviceFilter> filter,
                std::shared_ptr<const AzureCollector> azure, TiersConfig config, std::vector<ProbeJob> probes = {},
                std::shared_ptr<const ImdsWatcher> imds = nullptr);
  /// On its own (a BlockView of its own, without a scrape epoch, reading dm tables from `tables`).
  TierCollector(HostPaths paths, std::shared_ptr<const DeviceFilter> filter, std::shared_ptr<DmTableSource> tables,
                std::shared_ptr<const AzureCollector> azure, TiersConfig config, std::vector<ProbeJob> probes = {});
  std::string_view name() const override { return "tier"; }
  std::optional<std::string> collect(Families& out) override;

 private:
  std::shared_ptr<BlockView> view_;
  HostPaths paths_;
  std::shared_ptr<const DeviceFilter> filter_;
  std::shared_ptr<const AzureCollector> azure_;
  TiersConfig config_;
  std::vector<ProbeJob> probes_;
  std::shared_ptr<const ImdsWatcher> imds_;
  ImdsNoCapsLog no_caps_log_;
};

/// Appends the diskperf_tier_* families for `caps` (exposed for tests and `check`).
void emit_caps(Families& out, const ResolvedCaps& caps);

/// Appends the diskperf_tier_probe_* families: per probe job its target's device, tier, whether
/// it is cap-seeking, the caps, bs and the meets fraction (tiers.meets_fraction).
void emit_probe_caps(Families& out, const std::vector<ProbeCaps>& probes, double meets_fraction);

}  // namespace diskperf
