#pragma once
// probe collector: the diskperf_probe_* families from the ProbeScheduler's
// published snapshots (probes/scheduler.h). Reads pointers only; never waits
// for a probe. Labels: probe (job name), target, op (read/write), and kind /
// quantile where noted. Terms are fio's (clat, rw, bs, iodepth).

#include <memory>

#include "collectors/collector.h"
#include "probes/scheduler.h"

namespace diskperf {

class ProbeCollector final : public Collector {
 public:
  explicit ProbeCollector(std::shared_ptr<ProbeScheduler> scheduler) : scheduler_(std::move(scheduler)) {}
  std::string_view name() const override { return "probe"; }
  std::optional<std::string> collect(Families& out) override;

 private:
  std::shared_ptr<ProbeScheduler> scheduler_;
};

}  // namespace diskperf
