#include "collectors/stable_names.h"

#include <charconv>
#include <filesystem>

#include "collectors/host_fs.h"
#include "collectors/queue_parser.h"

namespace diskperf {
namespace {

using LunMap = std::map<std::string, std::set<unsigned>>;

// A number as udev and the kernel write it: decimal digits, no sign, no leading zero ("00" is not
// LUN 0, or two links would name one LUN).
std::optional<unsigned> parse_unsigned(std::string_view s) {
  if (s.size() > 1 && s.front() == '0') return std::nullopt;
  unsigned v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The kernel name a udev link under <devfs> names: its target's path below <devfs>
// ("../../cciss/c0d0" -> "cciss/c0d0"), else the target's last component.
std::string linked_device(const std::string& devfs, const std::string& dir, const std::string& link) {
  const std::string target = read_link(join_path(dir, link));
  if (target.empty()) return {};
  const std::filesystem::path full = (std::filesystem::path(dir) / target).lexically_normal();
  const std::filesystem::path root = std::filesystem::path(devfs).lexically_normal();
  const std::filesystem::path below = full.lexically_relative(root);
  if (!below.empty() && *below.begin() != "..") return below.string();
  return link_target_name(target);
}

// Links in `dir` whose name gives a LUN (`lun_of`), by the kernel name they point at.
template <typename LunOf>
LunMap read_lun_links(const std::string& devfs, const std::string& rel, LunOf lun_of) {
  LunMap out;
  const std::string dir = join_path(devfs, rel);
  for (const std::string& link : list_dir(dir)) {
    const auto lun = lun_of(link);
    if (!lun) continue;
    std::string target = linked_device(devfs, dir, link);
    if (!target.empty()) out[target].insert(*lun);
  }
  return out;
}

// The NVMe namespaces of <sysfs>/block on Azure's remote controller: LUNs, and the OS disk.
void read_nvme_roles(const std::string& sysfs, LunMap& luns, std::set<std::string>& os_disk) {
  const std::string block = join_path(sysfs, "block");
  for (const std::string& dev : list_dir(block)) {
    if (dev.rfind("nvme", 0) != 0) continue;
    FileContent nsid = read_file(join_path(block, dev + "/nsid"), 64);
    FileContent model = read_file(join_path(block, dev + "/device/model"), 256);
    if (!nsid.ok() || !model.ok()) continue;
    const auto id = parse_unsigned(trim_blanks(nsid.data));
    if (!id) continue;
    const AzureNvmeRole role = azure_nvme_role(model.data, *id);
    if (role.os_disk) os_disk.insert(dev);
    if (role.lun) luns[dev].insert(*role.lun);
  }
}

}  // namespace

AzureNvmeRole azure_nvme_role(std::string_view controller_model, unsigned nsid) {
  AzureNvmeRole r;
  if (trim_blanks(controller_model) != kAzureRemoteNvmeModel || nsid == 0) return r;
  r.os_disk = nsid == 1;
  if (nsid >= 2) r.lun = nsid - 2;
  return r;
}

StableNames read_stable_names(const std::string& devfs, const std::string& sysfs) {
  StableNames s;
  const std::string by_id = join_path(devfs, "disk/by-id");
  std::map<std::string, std::set<std::string>> ids;
  for (const std::string& link : list_dir(by_id)) {
    std::string target = linked_device(devfs, by_id, link);
    if (!target.empty()) ids[target].insert(link);
  }
  for (const auto& [dev, names] : ids) s.by_id.emplace(dev, join_names(names));
  // Sources in order of trust: a device named by an earlier one is not looked up in a later one.
  LunMap nvme;
  if (!sysfs.empty()) read_nvme_roles(sysfs, nvme, s.azure_os_disk);
  const LunMap sources[] = {
      read_lun_links(devfs, "disk/azure/data/by-lun", parse_unsigned),
      read_lun_links(devfs, "disk/azure/scsi1", parse_azure_lun),
      std::move(nvme),
  };
  for (const LunMap& source : sources)
    for (const auto& [dev, luns] : source) s.azure_lun.emplace(dev, luns);  // emplace: the first source wins
  for (const char* os : {"os", "root"}) {
    std::string target = linked_device(devfs, join_path(devfs, "disk/azure"), os);
    if (!target.empty()) s.azure_os_disk.insert(std::move(target));
  }
  return s;
}

std::vector<std::string> split_by_id(std::string_view joined) {
  std::vector<std::string> out;
  while (!joined.empty()) {
    const std::size_t comma = joined.find(',');
    out.emplace_back(joined.substr(0, comma));
    joined.remove_prefix(comma == std::string_view::npos ? joined.size() : comma + 1);
  }
  return out;
}

}  // namespace diskperf
