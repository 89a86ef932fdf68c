#include "daemon/collector_set.h"

#include "collectors/azure_collector.h"
#include "collectors/diskstats_collector.h"
#include "collectors/process_collector.h"

namespace diskperf {

std::vector<std::shared_ptr<Collector>> build_collectors(const Options& o, const Config& cfg) {
  auto include = o.diskstats_device_include ? o.diskstats_device_include : cfg.diskstats.device_include;
  auto exclude = o.diskstats_device_exclude ? o.diskstats_device_exclude : cfg.diskstats.device_exclude;
  auto filter = std::make_shared<const DeviceFilter>(include, exclude);
  std::vector<std::shared_ptr<Collector>> collectors;
  collectors.push_back(std::make_shared<DiskstatsCollector>(o.paths, filter));
  collectors.push_back(std::make_shared<ProcessCollector>());
  const std::string perfcounters = o.azure_perfcounters_file ? *o.azure_perfcounters_file
                                   : cfg.azure.perfcounters_file ? *cfg.azure.perfcounters_file
                                                                 : kDefaultPerfCountersFile;
  if (!perfcounters.empty()) collectors.push_back(std::make_shared<AzureCollector>(perfcounters));
  return collectors;
}

}  // namespace diskperf
