#pragma once
// Small helpers to build prometheus::MetricFamily values at scrape time.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include <prometheus/metric_family.h>

#include "collectors/collector.h"

namespace diskperf {

using LabelPairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;

/// Appends an empty family to `out` and returns it. `name` must follow
/// Prometheus conventions (base units, counters end in _total); `help` is
/// required (promtool flags families without HELP).
prometheus::MetricFamily& add_family(Families& out, std::string name, std::string help,
                                     prometheus::MetricType type);

/// Appends one sample to `family`, setting the value field that matches the
/// family's type (counter, gauge or untyped).
void add_sample(prometheus::MetricFamily& family, double value, LabelPairs labels);

/// Same, with labels built at run time (info series with optional labels).
void add_sample(prometheus::MetricFamily& family, double value,
                std::vector<prometheus::ClientMetric::Label> labels);

}  // namespace diskperf
