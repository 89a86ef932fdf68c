#include "collectors/metric_families.h"

namespace diskperf {

MetricFamily& add_family(Families& out, std::string name, std::string help, prometheus::MetricType type) {
  MetricFamily& f = out.emplace_back();
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

}  // namespace diskperf
