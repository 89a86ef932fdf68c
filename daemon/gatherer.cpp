#include "daemon/gatherer.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "collectors/metric_families.h"
#include "collectors/large_stack.h"
#include "version.h"

namespace diskperf {

Gatherer::Gatherer(std::vector<std::unique_ptr<Collector>> collectors, std::shared_ptr<ScrapeEpoch> epoch,
                   std::size_t scrape_threads)
    : epoch_(std::move(epoch)), scrape_threads_(scrape_threads == 0 ? 1 : scrape_threads) {
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
        if (o.collector->name() == e.collector->name()) {
          e.state = o.state;
          e.last_seconds = o.last_seconds;
        }
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
  // Each collector fills its own families. Those that may run apart do, each
  // on a thread of its own, beside the others, which run one after the other
  // on this thread (as node_exporter runs each collector in a goroutine; here
  // at most scrape_threads_ threads); the families are then put together in
  // the collectors' order.
  struct Result {
    Families families;
    std::optional<std::string> err;
    double seconds = 0;
  };
  std::vector<Result> results(list->size());
  std::vector<std::vector<std::size_t>> lanes(1);
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Entry& e = (*list)[i];
    if (e.collector->runs_apart() && e.last_seconds->load(std::memory_order_relaxed) >= kApartSeconds) {
      lanes.push_back({i});
    } else {
      lanes.front().push_back(i);
    }
  }
  run_spread(lanes.size(), scrape_threads_, [&](std::size_t lane) {
    for (std::size_t i : lanes[lane]) {
      Result& r = results[i];
      auto start = std::chrono::steady_clock::now();
      try {
        r.err = (*list)[i].collector->collect(r.families);
      } catch (const std::exception& ex) {  // collectors should not throw; never let one end a scrape
        r.err = std::string("unexpected exception: ") + ex.what();
      } catch (...) {
        r.err = "unexpected exception";
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      (*list)[i].last_seconds->store(r.seconds, std::memory_order_relaxed);
    }
  });
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& e = (*list)[i];
    const std::string name(e.collector->name());
    const std::optional<std::string>& err = results[i].err;
    for (auto& f : results[i].families) out.push_back(std::move(f));
    add_sample(success, err ? 0.0 : 1.0, {{"collector", name}});
    add_sample(duration, results[i].seconds, {{"collector", name}});

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
