#pragma once
// diskstats collector: /proc/diskstats (through --path.procfs) as
// diskperf_disk_* families, in base units (bytes, seconds). One file read per
// scrape, whatever the number of devices.

#include <memory>

#include "collectors/collector.h"
#include "collectors/device_filter.h"
#include "collectors/host_fs.h"

namespace diskperf {

class DiskstatsCollector final : public Collector {
 public:
  DiskstatsCollector(HostPaths paths, std::shared_ptr<const DeviceFilter> filter);
  std::string_view name() const override { return "diskstats"; }
  std::optional<std::string> collect(Families& out) override;

 private:
  HostPaths paths_;
  std::shared_ptr<const DeviceFilter> filter_;
};

}  // namespace diskperf
