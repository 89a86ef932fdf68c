#pragma once
// Log-linear latency histogram in nanoseconds, the scheme of fio's
// stat.h (FIO_IO_U_PLAT_BITS) with 7 bits instead of 6: values below 128 ns
// are exact; above, every power of two is split into 128 equal buckets, so a
// bucket's midpoint is within 1/256 (0.4%) of any value in it. Also keeps the
// exact min, max and sum. Percentiles use fio's rule (stat.c
// calc_clat_percentiles): the first bucket whose cumulative count reaches
// p/100 x samples.

#include <cstdint>
#include <vector>

namespace diskperf {

class LatencyHistogram {
 public:
  static constexpr unsigned kBits = 7;
  static constexpr std::uint64_t kSub = 1u << kBits;      ///< buckets per power of two
  static constexpr std::size_t kBuckets = (64 - kBits + 1) * kSub;

  void add(std::uint64_t ns);
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }  ///< 0 when empty
  std::uint64_t max() const { return max_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  /// p in (0, 100]; 0 when empty. Within 0.4% of the exact order statistic.
  std::uint64_t percentile(double p) const;

  /// Bucket index of a value and the [lower, upper] value range of a bucket.
  static std::size_t index_of(std::uint64_t ns);
  static std::uint64_t lower_bound(std::size_t index);
  static std::uint64_t upper_bound(std::size_t index);
  /// The value reported for a bucket (its midpoint).
  static std::uint64_t value_of(std::size_t index);

  /// Non-empty buckets: calls f(bucket_value_ns, count) in increasing order.
  template <typename F>
  void for_each_bucket(F f) const {
    for (std::size_t i = 0; i < buckets_.size(); ++i)
      if (buckets_[i]) f(value_of(i), buckets_[i]);
  }

 private:
  std::vector<std::uint64_t> buckets_;  // allocated on first add
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  double sum_ = 0;
};

}  // namespace diskperf
