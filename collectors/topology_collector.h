#pragma once
// topology collector: which devices make up each volume. A volume is any
// device in /sys/block (through --path.sysfs) whose slaves/ directory is not
// empty (device-mapper: LVM, dm-crypt, multipath; md RAID). Per volume:
//   - one info series per (volume, member), members resolved to their whole
//     disk when they are partitions (slaves/<member>/partition exists);
//   - one info series per leaf disk, following stacks level by level
//     (dm-crypt on an LV on an md RAID0 -> the RAID's disks);
//   - device-mapper: dm/name, dm/uuid, and the table (target per segment,
//     stripes and chunk size) from the BlockView's DmTableSource, with a
//     series saying whether the table could be read;
//   - md: md/level, md/raid_disks, md/chunk_size, md/array_state, md/uuid,
//     and the array name from the <devfs>/md/<name> udev links.
// The /sys/block listing and the volume walk are shared with the queue and
// tier collectors of the same scrape (collectors/block_view.h). md arrays
// and every volume's slaves/ are read at every scrape; a dm volume's dm/name,
// dm/uuid and table are kept between scrapes until its members, its
// /sys/block entry or its size change, a block device or partition is added
// or removed, or it is --collector.topology.max-age old (DmVolumeCache,
// collectors/volume_topology.h).

#include <memory>

#include "collectors/block_view.h"
#include "collectors/collector.h"
#include "collectors/device_filter.h"
#include "collectors/dm_table_source.h"
#include "collectors/host_fs.h"

namespace diskperf {

class TopologyCollector final : public Collector {
 public:
  /// `filter` (the diskstats device filter) selects volumes by kernel name;
  /// members are never filtered. The dm tables come from `view`'s table source.
  TopologyCollector(std::shared_ptr<BlockView> view, std::shared_ptr<const DeviceFilter> filter);
  /// On its own (a BlockView of its own, without a scrape epoch, reading dm
  /// tables from `tables`).
  TopologyCollector(const HostPaths& paths, std::shared_ptr<const DeviceFilter> filter,
                    std::shared_ptr<DmTableSource> tables);
  std::string_view name() const override { return "topology"; }
  /// Fails only when /sys/block cannot be listed.
  std::optional<std::string> collect(Families& out) override;

 private:
  std::shared_ptr<BlockView> view_;
  std::shared_ptr<const DeviceFilter> filter_;
};

}  // namespace diskperf
