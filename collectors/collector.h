#pragma once
// The one interface every collector implements. Modelled on node_exporter's
// collector.Collector: a collector only produces metric families; the
// Gatherer (daemon/gatherer.h) times each call and exports
// diskperf_scrape_collector_success / _duration_seconds for it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/metric_family.h"

namespace diskperf {

/// The families of one scrape, in the order they are written.
using Families = std::vector<MetricFamily>;

class Collector {
 public:
  virtual ~Collector() = default;

  /// Stable collector name, used as the `collector` label ("diskstats").
  virtual std::string_view name() const = 0;

  /// Reads the host now and appends fresh families to `out`. Returns
  /// std::nullopt on success, or a one-line error (the source could not be
  /// read at all). Families appended before a failure are still served.
  /// Must be safe to call from several scrape threads at once and must not
  /// throw.
  virtual std::optional<std::string> collect(Families& out) = 0;
  /// Whether the Gatherer may run this collector on a thread of its own,
  /// beside the others. The others run one after the other, in their order,
  /// so that one can use what an earlier one read in the same scrape (tier
  /// uses azure's parse). For a collector that takes most of a scrape on a
  /// large host and that no other one waits for (queue).
  virtual bool runs_apart() const { return false; }
};

}  // namespace diskperf
