#include "probes/latency_histogram.h"

#include <algorithm>
#include <bit>

namespace diskperf {

std::size_t LatencyHistogram::index_of(std::uint64_t v) {
  if (v < kSub) return static_cast<std::size_t>(v);
  const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(v));
  const unsigned shift = msb - kBits;
  return static_cast<std::size_t>((shift + 1) * kSub + ((v >> shift) - kSub));
}

std::uint64_t LatencyHistogram::lower_bound(std::size_t i) {
  if (i < kSub) return i;
  const std::uint64_t shift = i / kSub - 1;
  return (kSub + i % kSub) << shift;
}

std::uint64_t LatencyHistogram::upper_bound(std::size_t i) {
  if (i < kSub) return i;
  const std::uint64_t shift = i / kSub - 1;
  return lower_bound(i) + ((std::uint64_t{1} << shift) - 1);
}

std::uint64_t LatencyHistogram::value_of(std::size_t i) {
  const std::uint64_t lo = lower_bound(i);
  return lo + (upper_bound(i) - lo) / 2;
}

void LatencyHistogram::add(std::uint64_t ns) {
  if (buckets_.empty()) buckets_.assign(kBuckets, 0);
  ++buckets_[index_of(ns)];
  if (count_ == 0 || ns < min_) min_ = ns;
  max_ = std::max(max_, ns);
  sum_ += static_cast<double>(ns);
  ++count_;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.count_ == 0) return;
  if (buckets_.empty()) buckets_.assign(kBuckets, 0);
  for (std::size_t i = 0; i < kBuckets; ++i) buckets_[i] += o.buckets_[i];
  min_ = count_ ? std::min(min_, o.min_) : o.min_;
  max_ = std::max(max_, o.max_);
  sum_ += o.sum_;
  count_ += o.count_;
}

std::uint64_t LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  const double want = p / 100.0 * static_cast<double>(count_);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    sum += buckets_[i];
    // Clamp to the exact extremes: a bucket's midpoint may lie outside them.
    if (buckets_[i] && static_cast<double>(sum) >= want) return std::clamp(value_of(i), min(), max_);
  }
  return max_;
}

}  // namespace diskperf
