#include "collectors/volume_topology.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "collectors/dm_table_parser.h"
#include "collectors/due_time.h"
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

// `slaves`: the entries of its slaves/, sorted. The dm/ files are read through descriptors kept
// while `dm_budget` allows (null: opened and closed), the md/ files while `md_budget` does.
VolumeInfo read_volume(const BlockDevices::Listing& block, const BlockDevices::Device& device,
                       const std::vector<std::string>& slaves, const std::shared_ptr<FdBudget>& dm_budget,
                       const std::shared_ptr<FdBudget>& md_budget) {
  const HostDir& dir = *device.dir;
  VolumeInfo v;
  v.device = device.name;
  for (const std::string& s : slaves) {
    const std::string link = "slaves/" + s;  // entries in sysfs spelling, labels in the kernel's
    VolumeMember m{kernel_name(s), kernel_name(s)};
    if (const BlockDevices::Partition* p = block.find_partition(m.name)) {
      m.disk = p->disk;
    } else if (block.find(m.name)) {
      // a whole device
    } else if (dir.read_file(link + "/partition", kMaxAttrBytes).ok()) {  // not listed: ask the member itself
      std::string parent = parent_name(dir.read_link(link));
      if (!parent.empty()) m.disk = kernel_name(parent);
    }
    v.members.push_back(std::move(m));
  }
  if (FileContent d = device.dev(); d.ok()) v.devno = parse_devno(trim_attr(d.data));
  if (auto name = read_attr(device, "dm/name", dm_budget)) {
    v.kind = "dm";
    v.name = *name;
    v.uuid = read_attr(device, "dm/uuid", dm_budget).value_or("");
  } else if (auto level = read_attr(device, "md/level", md_budget)) {
    v.kind = "md";
    v.md_level = *level;
    v.uuid = read_attr(device, "md/uuid", md_budget).value_or("");
    v.md_array_state = read_attr(device, "md/array_state", md_budget).value_or("");
    if (auto n = read_attr(device, "md/raid_disks", md_budget)) v.md_raid_disks = parse_u64(*n);
    if (auto c = read_attr(device, "md/chunk_size", md_budget)) v.md_chunk_bytes = parse_u64(*c);
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

// What identifies a listing: every /sys/block entry and partition, by name and inode (FNV-1a
// over them, 64 bits). A device or partition added, removed or replaced changes it.
std::uint64_t listing_hash(const BlockDevices::Listing& block) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  };
  auto mix_entry = [&](std::string_view name, std::uint64_t ino) {
    mix(name);
    mix(std::string_view(reinterpret_cast<const char*>(&ino), sizeof ino));
    mix(std::string_view("\0", 1));  // name and inode bytes cannot run into the next entry's
  };
  for (const BlockDevices::Device& d : block.devices) mix_entry(d.name, d.ino);
  mix("|");
  for (const BlockDevices::Partition& p : block.partitions) mix_entry(p.name, p.ino);
  return h;
}

}  // namespace

std::shared_ptr<const VolumeInfo> DmVolumeCache::find(const std::string& device, const Key& key,
                                                      std::chrono::steady_clock::time_point now) const {
  std::lock_guard lock(mu_);
  auto it = kept_.find(device);
  if (it == kept_.end() || !(it->second.key == key) || now >= it->second.expires) return nullptr;
  return it->second.volume;
}

void DmVolumeCache::keep(const Key& key, std::shared_ptr<const VolumeInfo> v, std::chrono::steady_clock::time_point now) {
  if (!enabled() || !v) return;
  std::lock_guard lock(mu_);
  const std::string device = v->device;
  kept_.insert_or_assign(device, Entry{key, std::move(v), due_time(device, now, max_age_)});
}

void DmVolumeCache::retain(const std::vector<std::string>& names) {
  std::lock_guard lock(mu_);
  std::erase_if(kept_, [&](const auto& kv) { return !std::binary_search(names.begin(), names.end(), kv.first); });
}

std::size_t DmVolumeCache::size() const {
  std::lock_guard lock(mu_);
  return kept_.size();
}

VolumeScan read_volumes(const BlockDevices::Listing& block, const VolumeSources& src) {
  VolumeScan scan;
  if (block.error) {
    scan.ok = false;
    scan.error = *block.error;
    return scan;
  }
  const std::uint64_t listing = src.cache ? listing_hash(block) : 0;
  auto& volumes = scan.volumes;
  std::vector<std::string> kept_names;  // sorted, as the listing
  for (const BlockDevices::Device& d : block.devices) {
    if (!d.may_stack) continue;
    // Listed at every scrape, kept volumes' too: a change of members (pvmove, lvconvert, a table
    // wiped) shows at once, also when the devices that came with it are gone again.
    std::vector<std::string> slaves = d.dir->list_dir("slaves");
    if (slaves.empty()) continue;
    std::sort(slaves.begin(), slaves.end());
    // A volume kept from an earlier scan, still valid: nothing more read.
    std::optional<DmVolumeCache::Key> key;
    if (src.cache) {
      // A dm volume with its size listed (what tells a resize) and its `dev`.
      std::optional<std::uint64_t> kib;
      if (src.sizes && d.name.starts_with("dm-"))
        if (auto it = src.sizes->find(d.name); it != src.sizes->end()) kib = it->second;
      FileContent dev;
      if (kib) dev = d.dev();
      if (kib && dev.ok()) {
        key = DmVolumeCache::Key{d.ino, trim_attr(dev.data), *kib, listing, slaves};
        if (auto kept = src.cache->find(d.name, *key, src.now)) {
          volumes.emplace(d.name, *kept);
          kept_names.push_back(d.name);
          continue;
        }
      }
    }
    // With the cache on, the dm/ files are opened, read and closed rather than held (read seldom;
    // a held sysfs file keeps ~4.4 KB of kernel memory); md arrays' are read at every scrape.
    VolumeInfo v = read_volume(block, d, slaves, src.cache ? nullptr : src.budget, src.budget);
    if (v.kind == "dm" && src.tables) {
      v.dm_table = v.devno ? src.tables->read_table(v.device, v.devno->first, v.devno->second)
                           : DmTableText{DmTableText::Status::error, "", "unreadable dev number"};
    }
    // Kept when its table was read and parses (one caught being set up, or half written, is read
    // again at the next scrape).
    if (key && v.kind == "dm" && v.dm_table && v.dm_table->status == DmTableText::Status::ok &&
        !parse_dm_table(v.dm_table->text).error) {
      src.cache->keep(*key, std::make_shared<const VolumeInfo>(v), src.now);
      kept_names.push_back(d.name);
    }
    volumes.emplace(d.name, std::move(v));
  }
  if (src.cache) src.cache->retain(kept_names);  // the rest is gone, changed, or not to be kept
  if (std::any_of(volumes.begin(), volumes.end(), [](const auto& kv) { return kv.second.kind == "md"; })) {
    auto names = read_md_names(src.devfs);
    for (auto& [dev, v] : volumes)
      if (auto it = names.find(dev); v.kind == "md" && it != names.end()) v.name = it->second;
  }
  return scan;
}

VolumeScan read_volumes(const BlockDevices::Listing& block, const std::string& devfs,
                        const std::shared_ptr<FdBudget>& budget) {
  VolumeSources src;
  src.devfs = devfs;
  src.budget = budget;
  return read_volumes(block, src);
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
