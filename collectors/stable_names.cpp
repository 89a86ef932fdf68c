#include "collectors/stable_names.h"

#include "collectors/host_fs.h"
#include "collectors/queue_parser.h"

namespace diskperf {

StableNames read_stable_names(const std::string& devfs) {
  StableNames s;
  const std::string by_id = join_path(devfs, "disk/by-id");
  for (const std::string& link : list_dir(by_id)) {
    std::string target = link_target_name(read_link(join_path(by_id, link)));
    if (!target.empty()) s.by_id[target].insert(link);
  }
  const std::string azure = join_path(devfs, "disk/azure/scsi1");
  for (const std::string& link : list_dir(azure)) {
    auto lun = parse_azure_lun(link);
    if (!lun) continue;
    std::string target = link_target_name(read_link(join_path(azure, link)));
    if (!target.empty()) s.azure_lun[target].insert(*lun);
  }
  return s;
}

}  // namespace diskperf
