#pragma once
// Small helpers to build metric families (collectors/metric_family.h) at scrape time.

#include <string>
#include <vector>

#include "collectors/collector.h"

namespace diskperf {

/// Appends an empty family to `out` and returns it. `name` must follow
/// Prometheus conventions (base units, counters end in _total); `help` is
/// required (promtool flags families without HELP).
MetricFamily& add_family(Families& out, std::string name, std::string help, prometheus::MetricType type);

/// Appends one sample to `family` (counter, gauge or untyped).
inline void add_sample(MetricFamily& family, double value, LabelPairs labels) { family.add(value, labels); }
/// Same, with labels built at run time (info series with optional labels).
inline void add_sample(MetricFamily& family, double value, const std::vector<Label>& labels) {
  family.add(value, labels);
}

}  // namespace diskperf
