#include "daemon/exposition.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>


namespace diskperf {

namespace {

// The text being written: a buffer filled through a pointer, with one check
// for room per line instead of one per piece of it (the rendering was a tenth
// of a 1,200-device scrape's CPU). Full pieces go to `sink` when the caller
// says a line ended (line_done).
class TextBuffer {
 public:
  TextBuffer(const TextSink& sink, std::size_t piece_bytes)
      : sink_(sink), piece_(piece_bytes), buf_(piece_bytes + kSlack, '\0') {}
  /// Room for `n` more bytes at the returned pointer; advance() says how many were written.
  char* room(std::size_t n) {
    if (buf_.size() - len_ < n) buf_.resize(std::max(buf_.size() * 2, len_ + n));
    return buf_.data() + len_;
  }
  void advance(char* end) { len_ = static_cast<std::size_t>(end - buf_.data()); }
  void append(std::string_view s) {
    char* p = room(s.size());
    std::memcpy(p, s.data(), s.size());
    advance(p + s.size());
  }
  void line_done() {
    if (len_ >= piece_) flush();
  }
  void flush() {
    if (len_) sink_(std::string_view(buf_.data(), len_));
    len_ = 0;
  }

 private:
  static constexpr std::size_t kSlack = 4096;
  const TextSink& sink_;
  std::size_t piece_;
  std::string buf_;
  std::size_t len_ = 0;
};

// Longest text of one value: to_chars' shortest double is at most 24
// characters ("-2.2250738585072014e-308"), the special values 4.
constexpr std::size_t kMaxValueChars = 32;

char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

// Shortest text that reads back as the same double (std::to_chars), and the
// spellings the format defines for the special values; at most
// kMaxValueChars bytes at `p`; returns the end.
char* put_value(char* p, double v) {
  if (std::isnan(v)) return put(p, "NaN");
  if (std::isinf(v)) return put(p, v > 0 ? "+Inf" : "-Inf");
  // Most values are counts: an integer below 1e15 is written from its
  // integer digits (several times faster than the shortest-double search),
  // unless std::to_chars would pick the shorter scientific form
  // (1000000 -> 1e+06); the output is the same as to_chars' either way.
  if (std::abs(v) < 1e15 && v == std::trunc(v) && !(v == 0 && std::signbit(v))) {
    auto r = std::to_chars(p, p + kMaxValueChars, static_cast<long long>(v));
    const std::size_t digits = static_cast<std::size_t>(r.ptr - p) - (v < 0 ? 1 : 0);
    std::size_t zeros = 0;
    while (zeros + 1 < digits && r.ptr[-1 - static_cast<std::ptrdiff_t>(zeros)] == '0') ++zeros;
    const std::size_t significant = digits - zeros;
    const std::size_t scientific = (significant == 1 ? 1 : significant + 1) + 4;  // d[.ddd]e+XX
    if (scientific >= digits) return r.ptr;
  }
  return std::to_chars(p, p + kMaxValueChars, v).ptr;
}

// Appends HELP text `s` with backslash and newline escaped (label values are
// escaped by MetricFamily when added); runs without such characters are
// appended whole.
void append_help(TextBuffer& out, std::string_view s) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char* escaped = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : nullptr;
    if (!escaped) continue;
    out.append(s.substr(start, i - start));
    out.append(escaped);
    start = i + 1;
  }
  out.append(s.substr(start));
}

// name{labels,extra="v"} value: `labels` as rendered by MetricFamily.
void append_sample(TextBuffer& out, std::string_view name, std::string_view suffix, std::string_view labels,
                   double v, const char* extra_name = nullptr, double extra_value = 0) {
  const std::string_view extra = extra_name ? std::string_view(extra_name) : std::string_view();
  char* p = out.room(name.size() + suffix.size() + labels.size() + extra.size() + 2 * kMaxValueChars + 8);
  p = put(p, name);
  p = put(p, suffix);
  if (!labels.empty() || extra_name) {
    *p++ = '{';
    p = put(p, labels);
    if (extra_name) {
      if (!labels.empty()) *p++ = ',';
      p = put(p, extra);
      p = put(p, "=\"");
      p = put_value(p, extra_value);
      *p++ = '"';
    }
    *p++ = '}';
  }
  *p++ = ' ';
  p = put_value(p, v);
  *p++ = '\n';
  out.advance(p);
}

const char* type_name(prometheus::MetricType t) {
  switch (t) {
    case prometheus::MetricType::Counter: return "counter";
    case prometheus::MetricType::Gauge: return "gauge";
    case prometheus::MetricType::Summary: return "summary";
    case prometheus::MetricType::Histogram: return "histogram";
    default: return "untyped";
  }
}

// Appends family f in the text format to `out`, handing out full pieces
// after each sample's lines.
void append_family(TextBuffer& out, const MetricFamily& f) {
  out.append("# HELP ");
  out.append(f.name);
  out.append(" ");
  append_help(out, f.help);
  out.append("\n# TYPE ");
  out.append(f.name);
  out.append(" ");
  out.append(type_name(f.type));
  out.append("\n");
  const auto& samples = f.samples();
  const auto& dists = f.distributions();
  const bool distribution = f.type == prometheus::MetricType::Summary || f.type == prometheus::MetricType::Histogram;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::string_view labels = f.rendered_labels(i);
    if (!distribution) {
      append_sample(out, f.name, "", labels, samples[i].value);
      out.line_done();
      continue;
    }
    if (i >= dists.size()) continue;  // a plain sample in a histogram or summary family: nothing to write
    const Distribution& d = dists[i];
    if (f.type == prometheus::MetricType::Summary) {
      for (const auto& [q, v] : d.points) append_sample(out, f.name, "", labels, v, "quantile", q);
    } else {
      bool has_inf = false;
      for (const auto& [le, cum] : d.points) {
        has_inf = has_inf || std::isinf(le);
        append_sample(out, f.name, "_bucket", labels, cum, "le", le);
      }
      if (!has_inf) {
        append_sample(out, f.name, "_bucket", labels, static_cast<double>(d.count), "le",
                      std::numeric_limits<double>::infinity());
      }
    }
    append_sample(out, f.name, "_sum", labels, d.sum);
    append_sample(out, f.name, "_count", labels, static_cast<double>(d.count));
    out.line_done();
  }
}

}  // namespace

std::string to_text(const Families& families, std::size_t expected_bytes) {
  std::string out;
  out.reserve(std::max<std::size_t>(4096, expected_bytes));
  write_text(families, [&](std::string_view piece) { out.append(piece); });
  return out;
}

void write_text(const Families& families, const TextSink& sink, std::size_t piece_bytes) {
  TextBuffer buf(sink, piece_bytes);
  for (const auto& f : families) append_family(buf, f);
  buf.flush();
}

std::size_t write_gzip(const Families& families, GzipWriter& z, DeflatedSegments& segments,
                       std::size_t piece_bytes) {
  const TextSink to_z = [&](std::string_view piece) { z.write(piece); };
  TextBuffer buf(to_z, piece_bytes);
  std::string family_text;
  const TextSink to_family = [&](std::string_view piece) { family_text.append(piece); };
  TextBuffer family_buf(to_family, piece_bytes);
  std::size_t reused = 0;
  for (const auto& f : families) {
    if (!f.seldom_changes) {
      append_family(buf, f);
      continue;
    }
    buf.flush();
    family_text.clear();
    append_family(family_buf, f);
    family_buf.flush();
    if (z.write_segment(f.name, family_text, segments)) ++reused;
  }
  buf.flush();
  return reused;
}

bool accepts_gzip(const char* accept_encoding) {
  if (!accept_encoding) return false;
  auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
  };
  auto equals_ci = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  bool star = false;  // "*" (any coding not named) with a q above 0
  std::string_view rest(accept_encoding);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
    const std::size_t semi = item.find(';');
    const std::string_view coding = trim(item.substr(0, semi));
    // Weight: ";q=0", ";q=0.0", ... refuse the coding (RFC 9110 12.4.2); any other q, or none, allows it.
    bool refused = false;
    for (std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi + 1); !params.empty();) {
      const std::size_t next = params.find(';');
      const std::string_view param = trim(params.substr(0, next));
      params.remove_prefix(next == std::string_view::npos ? params.size() : next + 1);
      if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
        const std::string_view q = trim(param.substr(2));
        refused = !q.empty() && q.front() == '0' && q.find_first_not_of("0.") == std::string_view::npos;
      }
    }
    if (equals_ci(coding, "gzip")) return !refused;  // named: its own weight decides
    if (coding == "*") star = !refused;
  }
  return star;
}

}  // namespace diskperf
