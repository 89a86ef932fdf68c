#include "collectors/stable_names.h"

#include "collectors/host_fs.h"
#include "collectors/queue_parser.h"

namespace diskperf {

StableNames read_stable_names(const std::string& devfs) {
  StableNames s;
  const std::string by_id = join_path(devfs, "disk/by-id");
  std::map<std::string, std::set<std::string>> ids;
  for (const std::string& link : list_dir(by_id)) {
    std::string target = link_target_name(read_link(join_path(by_id, link)));
    if (!target.empty()) ids[target].insert(link);
  }
  for (const auto& [dev, names] : ids) s.by_id.emplace(dev, join_names(names));
  const std::string azure = join_path(devfs, "disk/azure/scsi1");
  for (const std::string& link : list_dir(azure)) {
    auto lun = parse_azure_lun(link);
    if (!lun) continue;
    std::string target = link_target_name(read_link(join_path(azure, link)));
    if (!target.empty()) s.azure_lun[target].insert(*lun);
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
