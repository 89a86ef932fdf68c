#pragma once
// Sharing a host reading between the collectors of one scrape. The Gatherer
// advances a ScrapeEpoch when a scrape starts; a PerScrape value read in the
// current epoch is handed to every collector that asks for it until the next
// scrape starts, so /sys/block is listed, and the volume topology walked,
// once per scrape instead of once per collector.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace diskperf {

/// Scrape counter: advanced by the Gatherer at the start of every scrape.
/// Readings shared in a scrape are kept alive by it until the scrape ends,
/// and no longer: none pins memory between scrapes.
class ScrapeEpoch {
 public:
  std::uint64_t current() const { return n_.load(std::memory_order_acquire); }
  /// A scrape starts: readings of earlier ones are no longer handed out.
  void advance() { n_.fetch_add(1, std::memory_order_acq_rel); }
  /// Keeps `reading` alive until end().
  void hold(std::shared_ptr<const void> reading) const {
    std::lock_guard lock(mu_);
    held_.push_back(std::move(reading));
  }
  /// A scrape ended: releases what was held (a scrape still running at the
  /// same time reads again what it asks for next).
  void end() {
    std::vector<std::shared_ptr<const void>> done;
    std::lock_guard lock(mu_);
    done.swap(held_);
  }

 private:
  std::atomic<std::uint64_t> n_{0};
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<const void>> held_;  // guarded by mu_
};

/// A value read from the host at most once per scrape epoch. Without an
/// epoch (null: a collector used on its own, as in `diskperf_exporter
/// metrics` or a test) every get() reads anew. A reading is reused only in
/// the epoch it started in, so every collector sees a reading taken after its
/// scrape began (a scrape that starts meanwhile makes the next get() read
/// again), and only while the epoch holds it (until the scrape ends).
/// Thread-safe; concurrent get()s of one epoch read once.
template <typename T>
class PerScrape {
 public:
  explicit PerScrape(std::shared_ptr<const ScrapeEpoch> epoch) : epoch_(std::move(epoch)) {}

  /// The value of this epoch, from `read()` (returns a T) if there is none yet.
  template <typename Read>
  std::shared_ptr<const T> get(Read&& read) {
    if (!epoch_) return std::make_shared<const T>(read());
    std::lock_guard lock(mu_);
    const std::uint64_t now = epoch_->current();
    std::shared_ptr<const T> value = value_.lock();
    if (!value || at_ != now) {
      value = std::make_shared<const T>(read());
      value_ = value;
      at_ = now;
      epoch_->hold(value);
    }
    return value;
  }

 private:
  std::shared_ptr<const ScrapeEpoch> epoch_;
  std::mutex mu_;
  std::weak_ptr<const T> value_;  // guarded by mu_; alive while the epoch holds it
  std::uint64_t at_ = 0;          // guarded by mu_
};

}  // namespace diskperf
