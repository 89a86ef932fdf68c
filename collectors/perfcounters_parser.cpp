#include "collectors/perfcounters_parser.h"

#include "collectors/text.h"

#include <array>
#include <charconv>
#include <cmath>

namespace diskperf {
namespace {

constexpr std::size_t kFields = 10;

// True when `s` is valid UTF-8 without control characters (C0, DEL).
bool is_clean_text(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) return false;
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and code points above U+10FFFF.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
      return false;
    }
    i += len;
  }
  return true;
}

bool parse_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<double> parse_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);  // no "+", no spaces, no hex
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::string> parse_line(std::string_view line, PerfCounter& c) {
  if (!is_clean_text(line)) return "control characters or invalid UTF-8";
  if (line.back() != ';') return "no trailing ';'";
  line.remove_suffix(1);
  std::array<std::string_view, kFields> f;
  std::size_t n = 0;
  for (;;) {
    std::size_t semi = line.find(';');
    if (n < kFields) f[n] = line.substr(0, semi);
    ++n;
    if (semi == std::string_view::npos) break;
    line.remove_prefix(semi + 1);
  }
  if (n != kFields) return std::to_string(n) + " fields, expected " + std::to_string(kFields);
  std::int64_t type = 0;
  if (!parse_int(f[0], type) || type < 0 || type > 4) return "type is not 0-4";
  if (f[1].empty()) return "empty category";
  if (f[2].empty()) return "empty counter name";
  if (f[4] != "0" && f[4] != "1") return "empty flag is not 0 or 1";
  if (!parse_int(f[7], c.refresh_interval_s) || c.refresh_interval_s < 0) return "bad refresh interval";
  if (!parse_int(f[8], c.timestamp) || c.timestamp < 0) return "bad timestamp";
  c.type = static_cast<PerfCounterType>(type);
  c.category.assign(f[1]);
  c.name.assign(f[2]);
  c.instance = normalise_instance(f[3]);
  c.empty = f[4] == "1";
  if (!c.empty) {
    c.value.assign(f[5]);
    c.number = parse_number(f[5]);
  }
  c.unit.assign(f[6]);
  c.machine.assign(f[9]);
  return std::nullopt;
}

}  // namespace

std::string normalise_instance(std::string_view instance) {
  constexpr std::string_view dev = "/dev/";
  if (instance.substr(0, dev.size()) == dev) instance.remove_prefix(dev.size());
  return std::string(instance);
}

PerfCountersParse parse_perfcounters(std::string_view text) {
  PerfCountersParse out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    bool terminated = false;
    std::string_view line = next_line(text, &terminated);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    PerfCounter c;
    if (auto err = parse_line(line, c)) {
      if (!terminated) {  // a partial last line: the read caught the file half written
        out.ends_mid_line = true;
        break;
      }
      ++out.rejected_lines;
      if (out.rejected.size() < PerfCountersParse::kMaxRejectedReasons) {
        out.rejected.push_back({line_no, std::move(*err)});
      }
      continue;
    }
    out.counters.push_back(std::move(c));
  }
  return out;
}

}  // namespace diskperf
