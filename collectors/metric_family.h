#pragma once
// A metric family as the collectors build it at every scrape and the exposition
// (daemon/exposition.h) writes it: name, help, type, and its samples. Compact
// on purpose: a scrape of a 1,200-device host builds ~40,000 samples, and
// prometheus::ClientMetric (136 bytes plus a heap-allocated label vector each)
// cost a fifth of the scrape's CPU and most of its page faults (bench/RESULTS.md,
// issue 9). Here a sample is its value and a span of the family's label text:
// the labels are escaped and rendered once, when the sample is added, in the
// exposition format's own spelling (name="value",name2="value2"; backslash,
// double quote and newline escaped, Prometheus text format 0.0.4).
// prometheus-cpp's MetricType names the types.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <prometheus/metric_type.h>

namespace diskperf {

/// One label of a sample.
struct Label {
  std::string name, value;
  bool operator==(const Label&) const = default;
};

/// Labels as collectors usually pass them: {{"device", dev}, {"op", "read"}}.
using LabelPairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;

/// Counts and sum of a histogram or summary sample. `points`: (upper bound,
/// cumulative count) per bucket for a histogram (a +Inf bucket equal to
/// `count` is written when absent), (quantile, value) for a summary.
struct Distribution {
  std::uint64_t count = 0;
  double sum = 0;
  std::vector<std::pair<double, double>> points;
};

/// `labels` as MetricFamily renders them (name="escaped value",...), for
/// MetricFamily::add_rendered.
std::string render_labels(LabelPairs labels);

class MetricFamily {
 public:
  /// One sample: where its rendered labels are in labels_text(), and its
  /// value (counter, gauge, untyped; unused for histograms and summaries,
  /// whose Distribution has the same index in distributions()).
  struct Sample {
    std::uint32_t labels_at = 0, labels_size = 0;
    double value = 0;
  };

  std::string name, help;
  prometheus::MetricType type = prometheus::MetricType::Untyped;
  /// Set by a collector for a family whose text is usually the same from one
  /// scrape to the next (settings, device facts, topology, caps): a gzip
  /// response then sends the compressed bytes of the last response that had the
  /// same text (daemon/gzip_stream.h). A hint only: the text is compared anyway.
  bool seldom_changes = false;

  /// Appends a counter, gauge or untyped sample.
  void add(double value, LabelPairs labels);
  void add(double value, const std::vector<Label>& labels);
  /// Appends a histogram or summary sample (see Distribution).
  void add(Distribution d, const std::vector<Label>& labels);
  /// Appends a counter, gauge or untyped sample whose labels render_labels
  /// rendered: for labels shared by many families (a device's), rendered
  /// once instead of once per family.
  void add_rendered(double value, std::string_view rendered_labels);

  /// Room for `samples` samples with about `label_bytes` of rendered labels each.
  void reserve(std::size_t samples, std::size_t label_bytes = 24);

  std::size_t size() const { return samples_.size(); }
  bool empty() const { return samples_.empty(); }
  const std::vector<Sample>& samples() const { return samples_; }
  const std::vector<Distribution>& distributions() const { return distributions_; }
  /// Sample i's labels as written: name="escaped value",... ("" when none).
  std::string_view rendered_labels(std::size_t i) const {
    return std::string_view(labels_).substr(samples_[i].labels_at, samples_[i].labels_size);
  }
  /// Sample i's labels, unescaped (for tests and readers; not used to write).
  std::vector<Label> labels(std::size_t i) const;

 private:
  void begin_sample();
  void append_label(std::string_view name, std::string_view value);
  void end_sample(double value);

  std::string labels_;
  std::vector<Sample> samples_;
  std::vector<Distribution> distributions_;
  std::size_t open_at_ = 0;
};

}  // namespace diskperf
