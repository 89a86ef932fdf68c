#pragma once
// diskstats collector: /proc/diskstats (through --path.procfs) as
// diskperf_disk_* families, in base units (bytes, seconds), the 32-bit time fields
// unwrapped (collectors/diskstats_unwrap.h). One file read per scrape, whatever the
// number of devices; sysfs (--path.sysfs) is asked only about devices it has not seen.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "collectors/collector.h"
#include "collectors/device_filter.h"
#include "collectors/diskstats_unwrap.h"
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
  /// Whether `e` is a partition, from sysfs when it was first seen under its major:minor.
  DeviceKind kind_of(const DiskstatsEntry& e, std::uint64_t generation);

  /// Bytes of the last read, plus room to grow: read_file's size hint (procfs
  /// reports size 0; 130 KB on a 1,300-device host).
  std::atomic<std::size_t> size_hint_{0};
  /// Held from the read to the unwrapping: reads are compared with the one before, in order.
  std::mutex read_mu_;
  DiskstatsUnwrap unwrap_;
  struct Kind {
    std::uint32_t major = 0, minor = 0;
    DeviceKind kind = DeviceKind::unknown;
    std::uint64_t seen = 0;
  };
  std::unordered_map<std::string, Kind> kinds_;  // guarded by read_mu_, by kernel name
  std::uint64_t generation_ = 0;                 // guarded by read_mu_
};

}  // namespace diskperf
