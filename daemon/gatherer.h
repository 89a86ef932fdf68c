#pragma once
// The Gatherer runs every enabled collector at scrape time and adds the
// framework's own series, as node_exporter's collector framework does:
//   diskperf_scrape_collector_success{collector}          1 ok, 0 failed
//   diskperf_scrape_collector_duration_seconds{collector}
//   diskperf_build_info{version,revision,compiler}        1
// A collector that starts failing is logged once (warn), and once again
// when it recovers (info), never on every scrape.

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "collectors/collector.h"
#include "collectors/scrape_epoch.h"

namespace diskperf {

class Gatherer final {
 public:
  /// Below this, a thread start (~50 us) is not worth it: on a small host the
  /// queue collector takes a fraction of a millisecond.
  static constexpr double kApartSeconds = 0.005;

  /// `epoch` (may be null) is advanced at the start of every Collect(), so
  /// that collectors sharing a PerScrape reading (collectors/scrape_epoch.h)
  /// read the host once per scrape. A collector that runs apart
  /// (Collector::runs_apart) and took at least kApartSeconds at its last run
  /// runs beside the others, on up to `scrape_threads` threads in all (the
  /// calling one and threads started per scrape, with 8 MiB stacks:
  /// collectors/large_stack.h); 1 runs all one after the other.
  explicit Gatherer(std::vector<std::unique_ptr<Collector>> collectors,
                    std::shared_ptr<ScrapeEpoch> epoch = nullptr, std::size_t scrape_threads = 1);

  /// Runs all collectors now. Thread-safe; concurrent calls each read the
  /// host themselves (a reading shared within one scrape is read again when
  /// another scrape starts meanwhile). Families without samples are dropped.
  Families Collect() const;

  /// Replaces the collector set (on config reload). Scrapes already running
  /// finish with the old set; a collector keeps its failing/ok log state
  /// across the swap when the new set has one of the same name.
  void set_collectors(std::vector<std::shared_ptr<Collector>> collectors);

 private:
  enum State : int { kUnknown = 0, kOk = 1, kFailed = 2 };
  struct Entry {
    std::shared_ptr<Collector> collector;
    std::shared_ptr<std::atomic<int>> state = std::make_shared<std::atomic<int>>(kUnknown);
    /// Duration of the collector's last run, in seconds (0 before the first).
    std::shared_ptr<std::atomic<double>> last_seconds = std::make_shared<std::atomic<double>>(0);
  };
  using EntryList = std::vector<Entry>;
  std::shared_ptr<const EntryList> entries() const;

  std::shared_ptr<ScrapeEpoch> epoch_;
  std::size_t scrape_threads_;
  mutable std::mutex mu_;  // guards entries_ (the pointer, not the list)
  std::shared_ptr<const EntryList> entries_;
};

}  // namespace diskperf
