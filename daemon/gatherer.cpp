#include "daemon/gatherer.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "collectors/metric_families.h"
#include "version.h"

namespace diskperf {

Gatherer::Gatherer(std::vector<std::unique_ptr<Collector>> collectors, std::shared_ptr<ScrapeEpoch> epoch)
    : epoch_(std::move(epoch)) {
  set_collectors({std::make_move_iterator(collectors.begin()), std::make_move_iterator(collectors.end())});
}

void Gatherer::set_collectors(std::vector<std::shared_ptr<Collector>> collectors) {
  auto old = entries();
  auto list = std::make_shared<EntryList>();
  for (auto& c : collectors) {
    Entry e;
    e.collector = std::move(c);
    if (old) {
      for (const auto& o : *old)
        if (o.collector->name() == e.collector->name()) e.state = o.state;
    }
    list->push_back(std::move(e));
  }
  std::lock_guard lock(mu_);
  entries_ = std::move(list);
}

std::shared_ptr<const Gatherer::EntryList> Gatherer::entries() const {
  std::lock_guard lock(mu_);
  return entries_;
}

Families Gatherer::Collect() const {
  if (epoch_) epoch_->advance();
  Families out;
  out.reserve(64);
  Families self;
  self.reserve(3);  // references below must stay valid
  auto& success = add_family(self, "diskperf_scrape_collector_success",
                             "Whether the collector succeeded in this scrape (1) or not (0).",
                             prometheus::MetricType::Gauge);
  auto& duration = add_family(self, "diskperf_scrape_collector_duration_seconds",
                              "Time the collector took in this scrape.", prometheus::MetricType::Gauge);
  const auto list = entries();
  for (const auto& e : *list) {
    const std::string name(e.collector->name());
    auto start = std::chrono::steady_clock::now();
    std::optional<std::string> err;
    try {
      err = e.collector->collect(out);
    } catch (const std::exception& ex) {  // collectors should not throw; never let one end a scrape
      err = std::string("unexpected exception: ") + ex.what();
    }
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    add_sample(success, err ? 0.0 : 1.0, {{"collector", name}});
    add_sample(duration, took.count(), {{"collector", name}});

    int now = err ? kFailed : kOk;
    int before = e.state->exchange(now);
    if (err && before != kFailed) {
      spdlog::warn("collector {} failed: {}", name, *err);
    } else if (!err && before == kFailed) {
      spdlog::info("collector {} recovered", name);
    }
  }
  auto& build = add_family(self, "diskperf_build_info",
                           "A metric with a constant '1' value labeled by version, revision and compiler "
                           "from which diskperf_exporter was built.",
                           prometheus::MetricType::Gauge);
  add_sample(build, 1.0, {{"version", build::kVersion}, {"revision", build::kRevision},
                          {"compiler", build::kCompiler}});
  if (epoch_) epoch_->end();  // shared readings are not kept between scrapes
  for (auto& f : self) out.push_back(std::move(f));
  out.erase(std::remove_if(out.begin(), out.end(), [](const auto& f) { return f.empty(); }), out.end());
  return out;
}

}  // namespace diskperf
