#include "collectors/volume_topology.h"

#include <algorithm>
#include <functional>

#include "collectors/queue_parser.h"

namespace diskperf {
namespace {

constexpr std::size_t kMaxAttrBytes = 4096;
constexpr int kMaxDepth = 16;  // stacks deeper than this are cut (and loops cannot recurse forever)

// A volume attribute read at every scrape: through a descriptor kept by a
// held directory (HostDir::read_kept), else by opening it.
std::optional<std::string> read_attr(const BlockDevices::Device& d, const char* rel,
                                     const std::shared_ptr<FdBudget>& budget) {
  FileContent f = d.held && budget ? d.dir->read_kept(rel, budget, kMaxAttrBytes) : d.dir->read_file(rel, kMaxAttrBytes);
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

VolumeInfo read_volume(const BlockDevices::Listing& block, const BlockDevices::Device& device,
                       std::vector<std::string> slaves, const std::shared_ptr<FdBudget>& budget) {
  const HostDir& dir = *device.dir;
  VolumeInfo v;
  v.device = device.name;
  std::sort(slaves.begin(), slaves.end());
  for (const std::string& s : slaves) {
    const std::string link = "slaves/" + s;
    VolumeMember m{s, s};
    if (const BlockDevices::Partition* p = block.find_partition(s)) {
      m.disk = p->disk;
    } else if (block.find(s)) {
      // a whole device
    } else if (dir.read_file(link + "/partition", kMaxAttrBytes).ok()) {  // not listed: ask the member itself
      std::string parent = parent_name(dir.read_link(link));
      if (!parent.empty()) m.disk = parent;
    }
    v.members.push_back(std::move(m));
  }
  if (FileContent d = device.dev(); d.ok()) v.devno = parse_devno(trim_attr(d.data));
  if (auto name = read_attr(device, "dm/name", budget)) {
    v.kind = "dm";
    v.name = *name;
    v.uuid = read_attr(device, "dm/uuid", budget).value_or("");
  } else if (auto level = read_attr(device, "md/level", budget)) {
    v.kind = "md";
    v.md_level = *level;
    v.uuid = read_attr(device, "md/uuid", budget).value_or("");
    v.md_array_state = read_attr(device, "md/array_state", budget).value_or("");
    if (auto n = read_attr(device, "md/raid_disks", budget)) v.md_raid_disks = parse_u64(*n);
    if (auto c = read_attr(device, "md/chunk_size", budget)) v.md_chunk_bytes = parse_u64(*c);
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

VolumeScan read_volumes(const BlockDevices::Listing& block, const std::string& devfs,
                        const std::shared_ptr<FdBudget>& budget) {
  VolumeScan scan;
  if (block.error) {
    scan.ok = false;
    scan.error = *block.error;
    return scan;
  }
  auto& volumes = scan.volumes;
  for (const BlockDevices::Device& d : block.devices) {
    if (!d.may_stack) continue;
    std::vector<std::string> slaves = d.dir->list_dir("slaves");
    if (slaves.empty()) continue;
    volumes.emplace(d.name, read_volume(block, d, std::move(slaves), budget));
  }
  if (std::any_of(volumes.begin(), volumes.end(), [](const auto& kv) { return kv.second.kind == "md"; })) {
    auto names = read_md_names(devfs);
    for (auto& [dev, v] : volumes)
      if (auto it = names.find(dev); v.kind == "md" && it != names.end()) v.name = it->second;
  }
  return scan;
}

std::set<std::string> leaf_disks(const std::map<std::string, VolumeInfo>& volumes, const std::string& device) {
  // Each volume is expanded once: a stack is a DAG whose leaves are the union
  // of its members' leaves, and a crafted loop or fan-out in slaves/ must not
  // make this exponential.
  std::set<std::string> expanded;
  std::function<void(const std::string&, int, std::set<std::string>&)> leaves =
      [&](const std::string& dev, int depth, std::set<std::string>& acc) {
        auto it = volumes.find(dev);
        if (it == volumes.end() || depth > kMaxDepth) {
          acc.insert(dev);
          return;
        }
        if (!expanded.insert(dev).second) return;
        for (const VolumeMember& m : it->second.members) {
          if (volumes.count(m.name) && m.name != dev) {
            leaves(m.name, depth + 1, acc);
          } else if (m.disk != dev) {
            leaves(m.disk, depth + 1, acc);
          }
        }
      };
  std::set<std::string> acc;
  leaves(device, 0, acc);
  return acc;
}

}  // namespace diskperf
