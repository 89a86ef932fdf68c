#pragma once
// Builds the collector set from the command line and the config. Called at
// start and on every successful config reload.

#include <memory>
#include <vector>

#include "collectors/collector.h"
#include "config/config.h"
#include "daemon/cli.h"

namespace diskperf {

/// The host collectors for `options` and `config` (a flag wins over the same
/// setting in the config). Regexes must already be validated (CLI check and
/// config validation); throws std::regex_error otherwise.
std::vector<std::shared_ptr<Collector>> build_collectors(const Options& options, const Config& config);

}  // namespace diskperf
