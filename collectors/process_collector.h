#pragma once
// process collector: the standard process_* metrics every Prometheus
// exporter serves, for this process, from /proc/self/stat (proc(5)),
// /proc/self/fd, /proc/stat (btime) and getrlimit(RLIMIT_NOFILE).

#include <string>

#include "collectors/collector.h"

namespace diskperf {

class ProcessCollector final : public Collector {
 public:
  /// `procfs` is the real procfs mount: this collector describes this
  /// process, so it never reads a fixture tree given by --path.procfs.
  explicit ProcessCollector(std::string procfs = "/proc");
  std::string_view name() const override { return "process"; }
  std::optional<std::string> collect(Families& out) override;

 private:
  std::string procfs_;
};

}  // namespace diskperf
