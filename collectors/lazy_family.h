#pragma once
// A family appended to `out` on its first sample only, so a family with no
// samples is never served. Holds an index, not a pointer: `out` may grow
// (and reallocate) while several families are being filled.

#include <optional>
#include <string>

#include "collectors/metric_families.h"

namespace diskperf {

class LazyFamily {
 public:
  LazyFamily(Families& out, std::string name, std::string help, prometheus::MetricType type)
      : out_(out), name_(std::move(name)), help_(std::move(help)), type_(type) {}

  void add(double value, LabelPairs labels) { add_sample(get(), value, labels); }
  /// As MetricFamily::add_rendered.
  void add_rendered(double value, std::string_view rendered_labels) { get().add_rendered(value, rendered_labels); }
  /// Room for `n` samples once the family exists (saves moving samples as it grows).
  void reserve(std::size_t n) { reserve_ = n; }
  /// Marks the family MetricFamily::seldom_changes once it exists.
  void seldom_changes() { seldom_changes_ = true; }

 private:
  MetricFamily& get() {
    if (!index_) {
      index_ = out_.size();
      MetricFamily& f = add_family(out_, name_, help_, type_);
      f.reserve(reserve_);
      f.seldom_changes = seldom_changes_;
    }
    return out_[*index_];
  }
  Families& out_;
  std::string name_, help_;
  prometheus::MetricType type_;
  std::optional<std::size_t> index_;
  std::size_t reserve_ = 0;
  bool seldom_changes_ = false;
};

}  // namespace diskperf
