#include "probes/probe_job.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace diskperf {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "12.5ms" into 12.5 and "ms". False when there is no leading number.
bool split_number(std::string_view s, double& number, std::string& unit) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + i, number);
  if (ec != std::errc() || ptr != s.data() + i || !std::isfinite(number)) return false;
  unit = lower(s.substr(i));
  return true;
}

}  // namespace

std::optional<RwMode> parse_rw(std::string_view s) {
  if (s == "read") return RwMode::read;
  if (s == "randread") return RwMode::randread;
  if (s == "write") return RwMode::write;
  if (s == "randwrite") return RwMode::randwrite;
  if (s == "randrw") return RwMode::randrw;
  return std::nullopt;
}

std::string_view to_string(RwMode rw) {
  switch (rw) {
    case RwMode::read: return "read";
    case RwMode::randread: return "randread";
    case RwMode::write: return "write";
    case RwMode::randwrite: return "randwrite";
    case RwMode::randrw: return "randrw";
  }
  return "?";
}

bool is_random(RwMode rw) { return rw == RwMode::randread || rw == RwMode::randwrite || rw == RwMode::randrw; }
bool has_writes(RwMode rw) { return rw == RwMode::write || rw == RwMode::randwrite || rw == RwMode::randrw; }

std::optional<std::uint64_t> parse_size(std::string_view s) {
  double n = 0;
  std::string unit;
  if (!split_number(s, n, unit)) return std::nullopt;
  double mult = 1;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib") mult = 1024.0;
  else if (unit == "m" || unit == "mb" || unit == "mib") mult = 1024.0 * 1024;
  else if (unit == "g" || unit == "gb" || unit == "gib") mult = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tb" || unit == "tib") mult = 1024.0 * 1024 * 1024 * 1024;
  else return std::nullopt;
  double v = n * mult;
  if (v > 1.8e19 || v != std::floor(v)) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

std::string format_duration(std::chrono::nanoseconds d) {
  constexpr std::pair<std::int64_t, const char*> units[] = {
      {3'600'000'000'000, "h"}, {60'000'000'000, "m"}, {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}};
  for (const auto& [ns, unit] : units)
    if (d.count() != 0 && d.count() % ns == 0) return std::to_string(d.count() / ns) + unit;
  return std::to_string(d.count()) + "ns";
}

std::optional<std::chrono::nanoseconds> parse_duration(std::string_view s) {
  double n = 0;
  std::string unit;
  if (!split_number(s, n, unit)) return std::nullopt;
  double ns_per = 1e9;
  if (unit.empty() || unit == "s") ns_per = 1e9;
  else if (unit == "ns") ns_per = 1;
  else if (unit == "us") ns_per = 1e3;
  else if (unit == "ms") ns_per = 1e6;
  else if (unit == "m") ns_per = 60e9;
  else if (unit == "h") ns_per = 3600e9;
  else return std::nullopt;
  double v = n * ns_per;
  if (v > 9e18) return std::nullopt;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(v)));
}

const std::vector<ProbePreset>& probe_presets() {
  static const std::vector<ProbePreset> presets = {
      {"cap_iops", "Microsoft's cap-seeking IOPS shape: 4 KiB random read, iodepth 256", RwMode::randread, 4096,
       256},
      {"cap_throughput", "Microsoft's throughput shape: 64 KiB read, iodepth 128", RwMode::read, 65536, 128},
      {"db_page_8k", "database page read: 8 KiB random read, iodepth 1", RwMode::randread, 8192, 1},
      {"db_page_16k", "database page read: 16 KiB random read, iodepth 1", RwMode::randread, 16384, 1},
      {"log_write", "transaction-log write: 4 KiB sequential write, iodepth 1 (probe file only)", RwMode::write,
       4096, 1},
  };
  return presets;
}

const ProbePreset* find_preset(std::string_view name) {
  for (const auto& p : probe_presets())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace diskperf
