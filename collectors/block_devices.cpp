#include "collectors/block_devices.h"

#include <algorithm>
#include <unordered_set>

namespace diskperf {
namespace {

constexpr std::size_t kMaxDevBytes = 4096;

// `dev` of a held directory, once it reads ok.
std::optional<FileContent> read_dev(const HostDir& dir) {
  FileContent f = dir.read_file("dev", kMaxDevBytes);
  if (!f.ok()) return std::nullopt;
  return f;
}

// ".../block/sda/sda1" -> "sda" when the last component is `name`; else "".
std::string disk_of_partition_link(std::string_view target, std::string_view name) {
  auto slash = target.rfind('/');
  if (slash == std::string_view::npos || target.substr(slash + 1) != name) return {};
  std::string_view parent = target.substr(0, slash);
  auto pslash = parent.rfind('/');
  return std::string(pslash == std::string_view::npos ? parent : parent.substr(pslash + 1));
}

// What the /sys/block link's target tells about the device.
struct LinkFacts {
  // A plain directory or an unreadable link (may be anything), or a virtual
  // device of a driver that registers members (see Device::may_stack).
  bool may_stack = true;
  // A link into /sys/devices/virtual: no parent device.
  bool is_virtual = false;
};

// Kernel names of the virtual devices whose drivers register their members as holders
// (bd_link_disk_holder, block/holder.c; drivers/md/dm.c, md.c, bcache/super.c): dm-N, mdN and
// md_NAME, bcacheN.
bool stacking_driver_name(std::string_view name) {
  return name.starts_with("dm-") || name.starts_with("md") || name.starts_with("bcache");
}

LinkFacts link_facts(const HostDir& block, const std::string& name) {
  const std::string target = block.read_link(name);
  const bool is_virtual = target.find("devices/virtual/") != std::string::npos;
  const bool unknown = target.empty() || target.find("devices/") == std::string::npos;
  return {unknown || (is_virtual && stacking_driver_name(name)), is_virtual};
}

// Replaces every `from` of `name` with `to`.
std::string respell(std::string_view name, char from, char to) {
  std::string out(name);
  std::replace(out.begin(), out.end(), from, to);
  return out;
}

}  // namespace

std::string kernel_name(std::string_view sysfs_name) { return respell(sysfs_name, '!', '/'); }
std::string sysfs_name(std::string_view kernel_name) { return respell(kernel_name, '/', '!'); }

BlockDevices::BlockDevices(std::string sysfs, std::shared_ptr<FdBudget> budget)
    : sysfs_(std::move(sysfs)), budget_(std::move(budget)) {}

FileContent BlockDevices::Device::dev() const {
  return held_dev ? *held_dev : dir->read_file("dev", kMaxDevBytes);
}

const BlockDevices::Device* BlockDevices::Listing::find(std::string_view name) const {
  auto it = std::lower_bound(devices.begin(), devices.end(), name,
                             [](const Device& d, std::string_view n) { return d.name < n; });
  return it != devices.end() && it->name == name ? &*it : nullptr;
}

const BlockDevices::Partition* BlockDevices::Listing::find_partition(std::string_view name) const {
  auto it = std::lower_bound(partitions.begin(), partitions.end(), name,
                             [](const Partition& p, std::string_view n) { return p.name < n; });
  return it != partitions.end() && it->name == name ? &*it : nullptr;
}

void BlockDevices::forget(const std::string& name, const HostDir* dir) {
  std::lock_guard lock(mu_);
  if (auto it = held_.find(sysfs_name(name)); it != held_.end() && it->second.dir.get() == dir) held_.erase(it);
}

std::size_t BlockDevices::held() const {
  std::lock_guard lock(mu_);
  return held_.size();
}

BlockDevices::Listing BlockDevices::list() {
  Listing out;
  const HostDir sys(sysfs_);
  const HostDir block(sys, "block");
  ReadStatus st = ReadStatus::ok;
  std::vector<DirEntry> entries = block.entries({}, &st);
  if (st != ReadStatus::ok) {
    out.error = "list " + block.path() + ": cannot read directory";
    return out;
  }
  std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  std::unordered_set<std::string_view> names;
  out.devices.reserve(entries.size());
  {
    std::lock_guard lock(mu_);
    for (const DirEntry& e : entries) {
      names.insert(e.name);
      auto it = held_.find(e.name);
      if (it != held_.end() && it->second.ino == e.ino) {
        Held& h = it->second;
        if (!h.dev) h.dev = read_dev(*h.dir);  // could not be read when the directory was opened
        out.devices.push_back({kernel_name(e.name), e.name, h.dir, true, h.may_stack, e.ino, h.is_virtual, h.dev});
        continue;
      }
      if (it != held_.end()) held_.erase(it);  // a new entry under the same name: a new device
      const LinkFacts facts = link_facts(block, e.name);
      if (!budget_->try_take(1)) {  // beyond the budget: no descriptor kept, files opened by path
        out.devices.push_back({kernel_name(e.name), e.name,
                               std::make_shared<const HostDir>(HostDir::by_path(join_path(block.path(), e.name))),
                               false, facts.may_stack, e.ino, facts.is_virtual, std::nullopt});
        continue;
      }
      auto opened = std::make_unique<HostDir>(block, e.name);
      if (!opened->ok()) {  // gone or unreadable: every read says why
        budget_->give_back(1);
        out.devices.push_back(
            {kernel_name(e.name), e.name, std::move(opened), false, facts.may_stack, e.ino, facts.is_virtual, std::nullopt});
        continue;
      }
      // Held: its descriptor counts until the last user drops it.
      std::shared_ptr<const HostDir> dir(opened.release(), [budget = budget_](const HostDir* d) {
        delete d;
        budget->give_back(1);
      });
      std::optional<FileContent> dev = read_dev(*dir);
      held_.emplace(e.name, Held{e.ino, dir, facts.may_stack, facts.is_virtual, dev});
      out.devices.push_back(
          {kernel_name(e.name), e.name, std::move(dir), true, facts.may_stack, e.ino, facts.is_virtual, std::move(dev)});
    }
    std::erase_if(held_, [&](const auto& kv) { return !names.count(kv.first); });
  }
  // A translated name ('!' -> '/') may sort elsewhere than its sysfs spelling.
  std::sort(out.devices.begin(), out.devices.end(), [](const Device& a, const Device& b) { return a.name < b.name; });
  list_partitions(sys, names, out);
  std::sort(out.partitions.begin(), out.partitions.end(),
            [](const Partition& a, const Partition& b) { return a.name < b.name; });
  return out;
}

void BlockDevices::list_partitions(const HostDir& sys, const std::unordered_set<std::string_view>& names,
                                   Listing& out) {
  const HostDir cls(sys, "class/block");
  ReadStatus st = ReadStatus::ok;
  std::vector<DirEntry> links = cls.entries({}, &st);
  if (st != ReadStatus::ok) {
    // No class/block (a captured tree, CONFIG_SYSFS_DEPRECATED): partitions are the
    // subdirectories of a disk named after it that have a `partition` file.
    for (const Device& d : out.devices) {
      std::vector<DirEntry> sub = d.dir->entries();
      const std::string& disk = d.sysfs_name;
      for (const DirEntry& e : sub)
        if (e.name.size() > disk.size() && e.name.compare(0, disk.size(), disk) == 0 &&
            d.dir->exists(e.name + "/partition") == ReadStatus::ok)
          out.partitions.push_back({kernel_name(e.name), d.name, e.name, e.ino});
    }
    return;
  }
  std::unordered_set<std::string_view> seen;
  std::lock_guard lock(mu_);
  for (const DirEntry& l : links) {
    if (names.count(l.name)) continue;  // a whole device
    seen.insert(l.name);
    auto it = partitions_.find(l.name);
    if (it == partitions_.end() || it->second.ino != l.ino)
      it = partitions_.insert_or_assign(l.name, PartitionLink{l.ino, disk_of_partition_link(cls.read_link(l.name), l.name)})
               .first;
    if (!it->second.disk.empty() && names.count(it->second.disk))
      out.partitions.push_back({kernel_name(l.name), kernel_name(it->second.disk), l.name, l.ino});
  }
  std::erase_if(partitions_, [&](const auto& kv) { return !seen.count(kv.first); });
}

}  // namespace diskperf
