#include "daemon/collector_set.h"

#include "collectors/azure/imds_collector.h"
#include "collectors/azure_collector.h"
#include "collectors/block_view.h"
#include "collectors/diskstats_collector.h"
#include "collectors/dm_table_source.h"
#include "collectors/probe_collector.h"
#include "collectors/queue_collector.h"
#include "collectors/tier_collector.h"
#include "collectors/topology_collector.h"
#include "probes/probe_target.h"
#include "collectors/process_collector.h"

namespace diskperf {

std::vector<std::shared_ptr<Collector>> build_collectors(const Options& o, const Config& cfg,
                                                         const std::shared_ptr<ProbeScheduler>& probes,
                                                         std::shared_ptr<const ScrapeEpoch> epoch,
                                                         std::size_t scrape_threads, ImdsSlot* imds_slot) {
  auto include = o.diskstats_device_include ? o.diskstats_device_include : cfg.diskstats.device_include;
  auto exclude = o.diskstats_device_exclude ? o.diskstats_device_exclude : cfg.diskstats.device_exclude;
  auto filter = std::make_shared<const DeviceFilter>(include, exclude);
  std::vector<std::shared_ptr<Collector>> collectors;
  const CollectorSwitches& on = o.collectors;
  if (on.diskstats) collectors.push_back(std::make_shared<DiskstatsCollector>(o.paths, filter));
  std::shared_ptr<DmTableSource> dm_tables;
  if (o.dm_table_dir.empty()) {
    dm_tables = std::make_shared<LibDevmapperTableSource>(o.paths.devfs);
  } else {
    dm_tables = std::make_shared<DirectoryDmTableSource>(o.dm_table_dir);
  }
  // One view for the queue, topology and tier collectors: each reading once per scrape, the dm
  // volumes (and their tables) kept between scrapes.
  auto view = std::make_shared<BlockView>(o.paths, epoch, nullptr, std::move(dm_tables), o.topology_max_age);
  if (on.queue)
    collectors.push_back(std::make_shared<QueueCollector>(view, filter, scrape_threads, o.queue_settings_max_age));
  if (on.topology) collectors.push_back(std::make_shared<TopologyCollector>(view, filter));
  collectors.push_back(std::make_shared<ProcessCollector>());
  const std::string perfcounters = o.azure_perfcounters_file ? *o.azure_perfcounters_file
                                   : cfg.azure.perfcounters_file ? *cfg.azure.perfcounters_file
                                                                 : kDefaultPerfCountersFile;
  std::shared_ptr<AzureCollector> azure;
  if (on.azure && !perfcounters.empty()) {
    azure = std::make_shared<AzureCollector>(perfcounters);
    collectors.push_back(azure);
  }
  std::shared_ptr<const ImdsWatcher> imds;
  if (imds_slot) imds = imds_slot->apply(imds_options(o, cfg), o.paths.sysfs);
  if (imds) collectors.push_back(std::make_shared<ImdsCollector>(imds));
  // After azure, whose fresh parse it reads in the same scrape.
  if (on.tier)
    collectors.push_back(
        std::make_shared<TierCollector>(view, o.paths, filter, azure, cfg.tiers, cfg.probes, std::move(imds)));
  probes->apply(cfg.probes);
  if (!cfg.probes.empty()) collectors.push_back(std::make_shared<ProbeCollector>(probes));
  return collectors;
}

std::vector<ConfigError> check_config_on_host(const Options& o, const Config& cfg) {
  std::vector<ConfigError> errors;
  for (const ProbeJob& job : cfg.probes) {
    TargetInfo target = inspect_target(job.target, o.paths);
    std::vector<std::string> problems;
    if (!target.error.empty()) problems.push_back(target.error);
    else problems = check_job_against_target(job, target);
    if (std::string foreign = existing_probe_file_error(job, target.kind); !foreign.empty())
      problems.push_back(foreign);
    for (auto& p : problems)
      errors.push_back({job.config_line, job.config_column, "probe '" + job.name + "': " + p});
  }
  return errors;
}

}  // namespace diskperf
