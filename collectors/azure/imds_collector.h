#pragma once
// imds collector: what the Azure Instance Metadata Service says, as diskperf_azure_imds_* families:
// whether the last request succeeded and when one last did, the VM's size and place, and each disk
// IMDS lists (LUN, name, storage account type, caching, write accelerator, size). Reads only the
// watcher's last state: a scrape never waits for IMDS.

#include <memory>

#include "collectors/azure/imds_watcher.h"
#include "collectors/collector.h"

namespace diskperf {

class ImdsCollector final : public Collector {
 public:
  explicit ImdsCollector(std::shared_ptr<const ImdsWatcher> watcher) : watcher_(std::move(watcher)) {}
  std::string_view name() const override { return "imds"; }
  std::optional<std::string> collect(Families& out) override;

 private:
  std::shared_ptr<const ImdsWatcher> watcher_;
};

}  // namespace diskperf
