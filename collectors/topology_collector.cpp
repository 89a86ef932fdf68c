#include "collectors/topology_collector.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "collectors/dm_table_parser.h"
#include "collectors/lazy_family.h"
#include "collectors/metric_families.h"
#include "collectors/queue_parser.h"

namespace diskperf {
namespace {

using prometheus::MetricType;
constexpr std::size_t kMaxAttrBytes = 4096;
constexpr int kMaxDepth = 16;  // stacks deeper than this are cut (and loops cannot recurse forever)

struct Member {
  std::string name;  ///< kernel name in slaves/ ("sdc1")
  std::string disk;  ///< whole disk ("sdc"); == name when not a partition
};

struct Volume {
  std::string device;
  std::string kind;  ///< "dm", "md" or "other"
  std::string name;  ///< dm/name, or the md array name from <devfs>/md
  std::string uuid;  ///< dm/uuid or md/uuid
  std::optional<std::pair<unsigned, unsigned>> devno;
  std::vector<Member> members;
  // md
  std::string md_level, md_array_state;
  std::optional<std::uint64_t> md_raid_disks, md_chunk_bytes;
};

std::optional<std::string> read_attr(const HostDir& dir, std::string_view rel) {
  FileContent f = dir.read_file(rel, kMaxAttrBytes);
  if (!f.ok()) return std::nullopt;
  return trim_attr(f.data);
}

std::optional<std::pair<unsigned, unsigned>> parse_devno(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto maj = parse_u64(std::string_view(text).substr(0, colon));
  auto min = parse_u64(std::string_view(text).substr(colon + 1));
  if (!maj || !min || *maj > 0xfff || *min > 0xfffff) return std::nullopt;
  return std::pair<unsigned, unsigned>(static_cast<unsigned>(*maj), static_cast<unsigned>(*min));
}

// Parent directory's last component of a link target:
// "../../../../pci0000:00/.../block/sdc/sdc1" -> "sdc".
std::string parent_name(const std::string& target) {
  auto slash = target.rfind('/');
  if (slash == std::string::npos) return {};
  return link_target_name(std::string_view(target).substr(0, slash));
}

Volume read_volume(const HostDir& dir, const std::string& dev, std::vector<std::string> slaves) {
  Volume v;
  v.device = dev;
  std::sort(slaves.begin(), slaves.end());
  for (const std::string& s : slaves) {
    const std::string link = "slaves/" + s;
    Member m{s, s};
    if (dir.read_file(link + "/partition", kMaxAttrBytes).ok()) {
      std::string parent = parent_name(dir.read_link(link));
      if (!parent.empty()) m.disk = parent;
    }
    v.members.push_back(std::move(m));
  }
  if (auto d = read_attr(dir, "dev")) v.devno = parse_devno(*d);
  if (auto name = read_attr(dir, "dm/name")) {
    v.kind = "dm";
    v.name = *name;
    v.uuid = read_attr(dir, "dm/uuid").value_or("");
  } else if (auto level = read_attr(dir, "md/level")) {
    v.kind = "md";
    v.md_level = *level;
    v.uuid = read_attr(dir, "md/uuid").value_or("");
    v.md_array_state = read_attr(dir, "md/array_state").value_or("");
    if (auto n = read_attr(dir, "md/raid_disks")) v.md_raid_disks = parse_u64(*n);
    if (auto c = read_attr(dir, "md/chunk_size")) v.md_chunk_bytes = parse_u64(*c);
  } else {
    v.kind = "other";
  }
  return v;
}

// md array names: <devfs>/md/<name> -> ../md127.
std::map<std::string, std::string> read_md_names(const std::string& devfs) {
  std::map<std::string, std::string> out;
  const std::string dir = join_path(devfs, "md");
  std::vector<std::string> links = list_dir(dir);
  std::sort(links.begin(), links.end());
  for (const std::string& l : links) {
    std::string target = link_target_name(read_link(join_path(dir, l)));
    if (!target.empty() && target != l) out.emplace(target, l);
  }
  return out;
}

}  // namespace

TopologyCollector::TopologyCollector(HostPaths paths, std::shared_ptr<const DeviceFilter> filter,
                                     std::shared_ptr<DmTableSource> tables)
    : paths_(std::move(paths)), filter_(std::move(filter)), tables_(std::move(tables)) {}

std::optional<std::string> TopologyCollector::collect(Families& out) {
  ReadStatus st = ReadStatus::ok;
  const std::string block = join_path(paths_.sysfs, "block");
  std::vector<std::string> devices = list_dir(block, &st);
  if (st != ReadStatus::ok) return "list " + block + ": cannot read directory";
  std::sort(devices.begin(), devices.end());

  std::map<std::string, Volume> volumes;
  const HostDir block_dir(block);
  for (const std::string& dev : devices) {
    std::vector<std::string> slaves = block_dir.list_dir(dev + "/slaves");
    if (slaves.empty()) continue;
    volumes.emplace(dev, read_volume(HostDir(block_dir, dev), dev, std::move(slaves)));
  }
  if (std::any_of(volumes.begin(), volumes.end(), [](const auto& kv) { return kv.second.kind == "md"; })) {
    auto names = read_md_names(paths_.devfs);
    for (auto& [dev, v] : volumes)
      if (auto it = names.find(dev); v.kind == "md" && it != names.end()) v.name = it->second;
  }

  // Leaf disks: follow members (as whole disks) through other volumes.
  std::function<void(const std::string&, int, std::set<std::string>&)> leaves =
      [&](const std::string& dev, int depth, std::set<std::string>& acc) {
        auto it = volumes.find(dev);
        if (it == volumes.end() || depth > kMaxDepth) {
          acc.insert(dev);
          return;
        }
        for (const Member& m : it->second.members) {
          if (volumes.count(m.name) && m.name != dev) {
            leaves(m.name, depth + 1, acc);
          } else if (m.disk != dev) {
            leaves(m.disk, depth + 1, acc);
          }
        }
      };

  std::vector<const Volume*> kept;
  for (const auto& [dev, v] : volumes)
    if (filter_->accepts(dev)) kept.push_back(&v);
  if (kept.empty()) return std::nullopt;

  auto& member_info = add_family(out, "diskperf_volume_member_info",
                                 "Member of a volume (slaves/ in sysfs): volume kernel name, kind (dm, md), "
                                 "dm/name or md array name, dm/uuid or md/uuid, member kernel name and the "
                                 "member's whole disk when it is a partition.",
                                 MetricType::Gauge);
  for (const Volume* v : kept)
    for (const Member& m : v->members)
      add_sample(member_info, 1,
                 {{"volume", v->device}, {"kind", v->kind}, {"name", v->name}, {"uuid", v->uuid},
                  {"member", m.name}, {"member_disk", m.disk}});

  auto& leaf_info = add_family(out, "diskperf_volume_leaf_disk_info",
                               "Whole disk at the bottom of a volume's stack that carries its I/O "
                               "(members followed level by level through other volumes).",
                               MetricType::Gauge);
  for (const Volume* v : kept) {
    std::set<std::string> acc;
    leaves(v->device, 0, acc);
    for (const std::string& d : acc) add_sample(leaf_info, 1, {{"volume", v->device}, {"name", v->name}, {"disk", d}});
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
  for (const Volume* v : kept) {
    if (v->kind != "dm") continue;
    DmTableText t = v->devno ? tables_->read_table(v->device, v->devno->first, v->devno->second)
                             : DmTableText{DmTableText::Status::error, "", "unreadable dev number"};
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
  for (const Volume* v : kept) {
    if (v->kind != "md") continue;
    md_info.add(1, {{"volume", v->device}, {"name", v->name}, {"level", v->md_level},
                    {"array_state", v->md_array_state}, {"uuid", v->uuid}});
    if (v->md_raid_disks) md_disks.add(static_cast<double>(*v->md_raid_disks), {{"volume", v->device}});
    if (v->md_chunk_bytes) md_chunk.add(static_cast<double>(*v->md_chunk_bytes), {{"volume", v->device}});
  }
  return std::nullopt;
}

}  // namespace diskperf
