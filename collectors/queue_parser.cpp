#include "collectors/queue_parser.h"

#include <charconv>
#include <limits>
#include <vector>

namespace diskperf {

std::optional<std::uint64_t> scale_u64(std::optional<std::uint64_t> value, std::uint64_t factor) {
  if (!value) return std::nullopt;
  if (factor != 0 && *value > std::numeric_limits<std::uint64_t>::max() / factor) return std::nullopt;
  return *value * factor;
}

std::string trim_attr(std::string_view text) { return std::string(trim(text)); }

std::optional<std::string> parse_active_scheduler(std::string_view text) {
  auto entries = split_ws(text);
  if (entries.empty()) return std::nullopt;
  std::optional<std::string> active;
  for (std::string_view e : entries) {
    bool open = e.front() == '[', close = e.back() == ']';
    if (open != close) return std::nullopt;
    if (open) {
      if (e.size() < 3 || active) return std::nullopt;  // "[]" or two active entries
      active = std::string(e.substr(1, e.size() - 2));
    } else if (e.find_first_of("[]") != std::string_view::npos) {
      return std::nullopt;
    }
  }
  if (active) return active;
  if (entries.size() == 1) return std::string(entries.front());
  return std::nullopt;
}

std::optional<Inflight> parse_inflight(std::string_view text) {
  auto f = split_ws(text);
  if (f.size() != 2) return std::nullopt;
  auto r = parse_u64(f[0]), w = parse_u64(f[1]);
  if (!r || !w) return std::nullopt;
  return Inflight{*r, *w};
}

std::optional<unsigned> parse_azure_lun(std::string_view link_name) {
  if (link_name.size() < 4 || link_name.substr(0, 3) != "lun") return std::nullopt;
  std::string_view digits = link_name.substr(3);
  unsigned v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 10);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::string link_target_name(std::string_view target) {
  while (!target.empty() && target.back() == '/') target.remove_suffix(1);
  auto slash = target.rfind('/');
  return std::string(slash == std::string_view::npos ? target : target.substr(slash + 1));
}

std::vector<ProcPartition> parse_proc_partitions(std::string_view text) {
  std::vector<ProcPartition> out;
  while (!text.empty()) {
    auto f = split_ws(next_line(text));
    if (f.size() != 4 || !parse_u64(f[0]) || !parse_u64(f[1])) continue;
    auto kib = parse_u64(f[2]);
    if (!kib) continue;
    out.push_back({std::string(f[3]), *kib});
  }
  return out;
}

QueueSettings parse_queue_settings(const SysfsAttrs& attrs) {
  QueueSettings q;
  for (const auto& [name, text] : attrs) parse_queue_attr(name, text, q);
  return q;
}

void parse_queue_attr(std::string_view name, std::string_view text, QueueSettings& q) {
  struct U64Field {
    std::string_view name;
    std::optional<std::uint64_t> QueueSettings::*field;
    std::uint64_t scale;
  };
  static constexpr U64Field kU64[] = {
      {"device/queue_depth", &QueueSettings::queue_depth, 1},
      {"queue/nr_requests", &QueueSettings::nr_requests, 1},
      {"queue/max_sectors_kb", &QueueSettings::max_sectors_bytes, 1024},
      {"queue/max_hw_sectors_kb", &QueueSettings::max_hw_sectors_bytes, 1024},
      {"queue/read_ahead_kb", &QueueSettings::read_ahead_bytes, 1024},
      {"queue/logical_block_size", &QueueSettings::logical_block_size, 1},
      {"queue/physical_block_size", &QueueSettings::physical_block_size, 1},
      {"queue/minimum_io_size", &QueueSettings::minimum_io_size, 1},
      {"queue/optimal_io_size", &QueueSettings::optimal_io_size, 1},
      {"queue/rotational", &QueueSettings::rotational, 1},
      {"size", &QueueSettings::size_bytes, 512},
  };
  for (const U64Field& f : kU64) {
    if (name != f.name) continue;
    std::optional<std::uint64_t> v = scale_u64(parse_u64(text), f.scale);
    if (f.field == &QueueSettings::rotational && v && *v > 1) v.reset();
    q.*f.field = v;
    return;
  }
  auto trimmed = [&]() -> std::optional<std::string> {
    std::string t = trim_attr(text);
    if (t.empty()) return std::nullopt;
    return t;
  };
  if (name == "inflight") {
    q.inflight = parse_inflight(text);
  } else if (name == "queue/scheduler") {
    q.scheduler = parse_active_scheduler(text);
  } else if (name == "queue/write_cache") {
    q.write_cache = trimmed();
  } else if (name == "device/model") {
    q.model = trimmed();
  } else if (name == "device/vendor") {
    q.vendor = trimmed();
  } else if (name == "wwid") {
    if (auto v = trimmed()) q.wwid = std::move(v);
  } else if (name == "device/wwid") {
    if (!q.wwid) q.wwid = trimmed();
  }
}

}  // namespace diskperf
