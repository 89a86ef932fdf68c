#pragma once
// diskstats collector: /proc/diskstats (through --path.procfs) as
// diskperf_disk_* families, in base units (bytes, seconds). One file read per
// scrape, whatever the number of devices.

#include <atomic>
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
  /// Bytes of the last read, plus room to grow: read_file's size hint (procfs
  /// reports size 0; 130 KB on a 1,300-device host).
  std::atomic<std::size_t> size_hint_{0};
};

}  // namespace diskperf
