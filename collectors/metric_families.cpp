#include "collectors/metric_families.h"

namespace diskperf {

prometheus::MetricFamily& add_family(Families& out, std::string name, std::string help,
                                     prometheus::MetricType type) {
  prometheus::MetricFamily& f = out.emplace_back();
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

void add_sample(prometheus::MetricFamily& family, double value,
                std::vector<prometheus::ClientMetric::Label> labels) {
  prometheus::ClientMetric& m = family.metric.emplace_back();
  m.label = std::move(labels);
  switch (family.type) {
    case prometheus::MetricType::Counter: m.counter.value = value; break;
    case prometheus::MetricType::Gauge: m.gauge.value = value; break;
    default: m.untyped.value = value; break;
  }
}

void add_sample(prometheus::MetricFamily& family, double value, LabelPairs labels) {
  std::vector<prometheus::ClientMetric::Label> l;
  l.reserve(labels.size());
  for (const auto& [k, v] : labels) l.push_back({std::string(k), std::string(v)});
  add_sample(family, value, std::move(l));
}

}  // namespace diskperf
