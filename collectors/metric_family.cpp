#include "collectors/metric_family.h"

#include <algorithm>
#include <limits>

namespace diskperf {

void MetricFamily::reserve(std::size_t samples, std::size_t label_bytes) {
  samples_.reserve(samples);
  labels_.reserve(samples * label_bytes);
}

void MetricFamily::begin_sample() { open_at_ = labels_.size(); }

namespace {

// Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
// surrogates, at most U+10FFFF) that starts at s[i] with a byte >= 0x80, or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // bounds of the second byte
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c == 0xe0) n = 3, lo = 0xa0;
  else if (c == 0xed) n = 3, hi = 0x9f;
  else if (c >= 0xe1 && c <= 0xef) n = 3;
  else if (c == 0xf0) n = 4, lo = 0x90;
  else if (c == 0xf4) n = 4, hi = 0x8f;
  else if (c >= 0xf1 && c <= 0xf3) n = 4;
  if (n == 0 || i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = i + 2; k < i + n; ++k)
    if (b(k) < 0x80 || b(k) > 0xbf) return 0;
  return n;
}

// A C1 control (U+0080-U+009F) or U+2028 / U+2029: readers that split lines on them would cut
// the sample, so they are replaced as the C0 controls are.
bool is_line_breaking(std::string_view seq) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(seq[k]); };
  if (seq.size() == 2) return b(0) == 0xc2 && b(1) <= 0x9f;
  return seq.size() == 3 && b(0) == 0xe2 && b(1) == 0x80 && (b(2) == 0xa8 || b(2) == 0xa9);
}

// Appends name="value" to `out` (with a ',' first unless `first`), the value
// escaped as the text format requires.
void append_label_text(std::string& out, bool first, std::string_view name, std::string_view value) {
  if (!first) out += ',';
  out += name;
  out += "=\"";
  // Runs without a character to escape are appended whole. A byte that is not
  // part of well-formed UTF-8 (a device name or model string can hold any
  // byte) is written as U+FFFD: the format requires UTF-8, and Prometheus
  // rejects the whole scrape at one invalid label value. So is a control
  // character other than the newline the format escapes (a NUL in a sysfs
  // vendor string): raw, it would cut or garble the value for readers.
  std::size_t start = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    const auto u = static_cast<unsigned char>(c);
    const char* escaped = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '"' ? "\\\"" : nullptr;
    if (!escaped && (u < 0x20 || u == 0x7f)) escaped = "\xEF\xBF\xBD";
    if (!escaped && u >= 0x80) {
      if (const std::size_t n = utf8_sequence(value, i)) {
        if (!is_line_breaking(value.substr(i, n))) {
          i += n - 1;
          continue;
        }
        out.append(value.data() + start, i - start);
        out += "\xEF\xBF\xBD";
        i += n - 1;
        start = i + 1;
        continue;
      }
      escaped = "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
    }
    if (!escaped) continue;
    out.append(value.data() + start, i - start);
    out += escaped;
    start = i + 1;
  }
  out.append(value.data() + start, value.size() - start);
  out += '"';
}

}  // namespace

std::string render_labels(LabelPairs labels) {
  std::string out;
  for (const auto& [k, v] : labels) append_label_text(out, out.empty(), k, v);
  return out;
}

void MetricFamily::append_label(std::string_view name, std::string_view value) {
  append_label_text(labels_, labels_.size() == open_at_, name, value);
}

void MetricFamily::add_rendered(double value, std::string_view rendered_labels) {
  begin_sample();
  labels_ += rendered_labels;
  end_sample(value);
}

void MetricFamily::end_sample(double value) {
  // Offsets are 32-bit: a family's label text stays far below 4 GiB (40,000
  // samples of a 1,200-device host take ~1 MB).
  Sample s;
  s.labels_at = static_cast<std::uint32_t>(open_at_);
  s.labels_size = static_cast<std::uint32_t>(labels_.size() - open_at_);
  s.value = value;
  samples_.push_back(s);
}

void MetricFamily::add(double value, LabelPairs labels) {
  begin_sample();
  for (const auto& [k, v] : labels) append_label(k, v);
  end_sample(value);
}

void MetricFamily::add(double value, const std::vector<Label>& labels) {
  begin_sample();
  for (const Label& l : labels) append_label(l.name, l.value);
  end_sample(value);
}

void MetricFamily::add(Distribution d, const std::vector<Label>& labels) {
  add(std::numeric_limits<double>::quiet_NaN(), labels);
  distributions_.resize(samples_.size() - 1);  // samples added without one have an empty one
  distributions_.push_back(std::move(d));
}

std::vector<Label> MetricFamily::labels(std::size_t i) const {
  std::vector<Label> out;
  std::string_view text = rendered_labels(i);
  while (!text.empty()) {
    Label l;
    std::size_t eq = text.find("=\"");
    if (eq == std::string_view::npos) break;
    l.name = std::string(text.substr(0, eq));
    std::size_t j = eq + 2;
    for (; j < text.size() && text[j] != '"'; ++j) {
      if (text[j] == '\\' && j + 1 < text.size()) {
        ++j;
        l.value += text[j] == 'n' ? '\n' : text[j];
      } else {
        l.value += text[j];
      }
    }
    out.push_back(std::move(l));
    text.remove_prefix(std::min(text.size(), j + 2));  // past '"' and ','
  }
  return out;
}

}  // namespace diskperf
