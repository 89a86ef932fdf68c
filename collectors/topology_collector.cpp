#include "collectors/topology_collector.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "collectors/dm_table_parser.h"
#include "collectors/lazy_family.h"
#include "collectors/metric_families.h"
#include "collectors/queue_parser.h"
#include "collectors/volume_topology.h"

namespace diskperf {
namespace {

using prometheus::MetricType;

}  // namespace

TopologyCollector::TopologyCollector(std::shared_ptr<BlockView> view, std::shared_ptr<const DeviceFilter> filter)
    : view_(std::move(view)), filter_(std::move(filter)) {}

TopologyCollector::TopologyCollector(const HostPaths& paths, std::shared_ptr<const DeviceFilter> filter,
                                     std::shared_ptr<DmTableSource> tables)
    : TopologyCollector(std::make_shared<BlockView>(paths, nullptr, nullptr, std::move(tables)), std::move(filter)) {}

std::optional<std::string> TopologyCollector::collect(Families& out) {
  const std::shared_ptr<const VolumeScan> scan = view_->volumes();
  if (!scan->ok) return scan->error;
  const std::map<std::string, VolumeInfo>& volumes = scan->volumes;

  std::vector<const VolumeInfo*> kept;
  for (const auto& [dev, v] : volumes)
    if (filter_->accepts(dev)) kept.push_back(&v);
  if (kept.empty()) return std::nullopt;

  auto& member_info = add_family(out, "diskperf_volume_member_info",
                                 "Member of a volume (slaves/ in sysfs): volume kernel name, kind (dm, md, other), "
                                 "dm/name or md array name, dm/uuid or md/uuid, member kernel name and the "
                                 "member's whole disk when it is a partition.",
                                 MetricType::Gauge);
  member_info.seldom_changes = true;
  for (const VolumeInfo* v : kept)
    for (const VolumeMember& m : v->members)
      add_sample(member_info, 1,
                 {{"volume", v->device}, {"kind", v->kind}, {"name", v->name}, {"uuid", v->uuid},
                  {"member", m.name}, {"member_disk", m.disk}});

  auto& leaf_info = add_family(out, "diskperf_volume_leaf_disk_info",
                               "Whole disk at the bottom of a volume's stack that carries its I/O "
                               "(members followed level by level through other volumes).",
                               MetricType::Gauge);
  leaf_info.seldom_changes = true;
  for (const VolumeInfo* v : kept) {
    for (const std::string& d : leaf_disks(volumes, v->device)) add_sample(leaf_info, 1, {{"volume", v->device}, {"name", v->name}, {"disk", d}});
  }

  // Device-mapper tables.
  const auto G = MetricType::Gauge;
  LazyFamily available(out, "diskperf_volume_dm_table_available",
                       "1 when the device-mapper table of the volume was read and parsed, 0 when it is "
                       "unavailable (no device-mapper control node) or failed (reason label).",
                       G);
  LazyFamily segment(out, "diskperf_volume_dm_segment_info",
                     "Segment of a device-mapper table: its target type (linear, striped, crypt, ...).", G);
  LazyFamily seg_size(out, "diskperf_volume_dm_segment_size_bytes",
                      "Length of a device-mapper table segment in bytes (length x 512).", G);
  LazyFamily stripes(out, "diskperf_volume_dm_stripes", "Stripe count of a striped device-mapper segment.", G);
  LazyFamily chunk(out, "diskperf_volume_dm_stripe_chunk_bytes",
                   "Chunk size of a striped device-mapper segment in bytes (chunk_sectors x 512).", G);
  for (LazyFamily* f : {&available, &segment, &seg_size, &stripes, &chunk}) f->seldom_changes();
  for (const VolumeInfo* v : kept) {
    if (v->kind != "dm") continue;
    static const DmTableText kNoSource{DmTableText::Status::unavailable, "", "no table source"};
    const DmTableText& t = v->dm_table ? *v->dm_table : kNoSource;  // not a copy of each table
    DmTableParse parsed;
    std::string reason = t.reason;
    if (t.status == DmTableText::Status::ok) {
      parsed = parse_dm_table(t.text);
      if (parsed.error) reason = "parse: " + *parsed.error;
    }
    bool ok = t.status == DmTableText::Status::ok && !parsed.error;
    available.add(ok ? 1 : 0, {{"volume", v->device}, {"reason", ok ? "" : reason}});
    if (!ok) continue;
    for (std::size_t i = 0; i < parsed.segments.size(); ++i) {
      const DmSegment& s = parsed.segments[i];
      const std::string idx = std::to_string(i);
      segment.add(1, {{"volume", v->device}, {"segment", idx}, {"target", s.target}});
      seg_size.add(static_cast<double>(s.length_sectors) * 512.0, {{"volume", v->device}, {"segment", idx}});
      if (s.stripes) {
        stripes.add(*s.stripes, {{"volume", v->device}, {"segment", idx}});
        chunk.add(static_cast<double>(*s.chunk_bytes), {{"volume", v->device}, {"segment", idx}});
      }
    }
  }

  // md RAID.
  LazyFamily md_info(out, "diskperf_volume_md_info",
                     "md RAID array facts: md/level, md/array_state, array name (<devfs>/md/<name>), md/uuid.", G);
  LazyFamily md_disks(out, "diskperf_volume_md_raid_disks", "Number of devices in a full md array (md/raid_disks).",
                      G);
  LazyFamily md_chunk(out, "diskperf_volume_md_chunk_bytes",
                      "md array chunk size in bytes (md/chunk_size; 0 for levels without chunks).", G);
  for (LazyFamily* f : {&md_info, &md_disks, &md_chunk}) f->seldom_changes();
  for (const VolumeInfo* v : kept) {
    if (v->kind != "md") continue;
    md_info.add(1, {{"volume", v->device}, {"name", v->name}, {"level", v->md_level},
                    {"array_state", v->md_array_state}, {"uuid", v->uuid}});
    if (v->md_raid_disks) md_disks.add(static_cast<double>(*v->md_raid_disks), {{"volume", v->device}});
    if (v->md_chunk_bytes) md_chunk.add(static_cast<double>(*v->md_chunk_bytes), {{"volume", v->device}});
  }
  return std::nullopt;
}

}  // namespace diskperf
