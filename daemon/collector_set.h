#pragma once
// Builds the collector set from the command line and the config. Called at
// start and on every successful config reload.

#include <memory>
#include <vector>

#include "collectors/collector.h"
#include "collectors/scrape_epoch.h"
#include "config/config.h"
#include "daemon/cli.h"
#include "daemon/imds_slot.h"
#include "probes/scheduler.h"

namespace diskperf {

/// The host collectors for `options` and `config` (a flag wins over the same
/// setting in the config). The probe jobs of `config` are applied to
/// `probes`, which lives across reloads so that unchanged jobs keep running
/// and keep their counters. Regexes must already be validated (CLI check
/// and config validation); throws RegexError otherwise. The queue,
/// topology and tier collectors share one BlockView (collectors/block_view.h)
/// that reads /sys/block once per `epoch` (the Gatherer's; may be null).
/// `scrape_threads`: the Gatherer's; the queue collector reads its devices'
/// files on as many threads. `imds` (may be null: no IMDS) keeps the IMDS
/// watcher across reloads.
std::vector<std::shared_ptr<Collector>> build_collectors(const Options& options, const Config& config,
                                                         const std::shared_ptr<ProbeScheduler>& probes,
                                                         std::shared_ptr<const ScrapeEpoch> epoch = nullptr,
                                                         std::size_t scrape_threads = 1, ImdsSlot* imds = nullptr);

/// Checks `config` against this host: every probe job's target exists and
/// the job is safe and fits it (probes/probe_target.h: no writes to a block
/// device, bs a multiple of the logical block size, region inside the
/// target), and what is already at a write job's probe file path is the
/// exporter's own file. Reads nothing but metadata and writes nothing.
std::vector<ConfigError> check_config_on_host(const Options& options, const Config& config);

}  // namespace diskperf
