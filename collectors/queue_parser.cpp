#include "collectors/queue_parser.h"

#include <charconv>
#include <limits>
#include <vector>

namespace diskperf {
namespace {

const std::string* find(const SysfsAttrs& attrs, std::string_view key) {
  auto it = attrs.find(key);
  return it == attrs.end() ? nullptr : &it->second;
}

std::optional<std::uint64_t> u64_attr(const SysfsAttrs& attrs, std::string_view key) {
  const std::string* v = find(attrs, key);
  return v ? parse_u64(*v) : std::nullopt;
}

std::optional<std::string> string_attr(const SysfsAttrs& attrs, std::string_view key) {
  const std::string* v = find(attrs, key);
  if (!v) return std::nullopt;
  std::string t = trim_attr(*v);
  if (t.empty()) return std::nullopt;
  return t;
}

}  // namespace

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

QueueSettings parse_queue_settings(const SysfsAttrs& attrs) {
  QueueSettings q;
  q.queue_depth = u64_attr(attrs, "device/queue_depth");
  q.nr_requests = u64_attr(attrs, "queue/nr_requests");
  q.max_sectors_bytes = scale_u64(u64_attr(attrs, "queue/max_sectors_kb"), 1024);
  q.max_hw_sectors_bytes = scale_u64(u64_attr(attrs, "queue/max_hw_sectors_kb"), 1024);
  q.read_ahead_bytes = scale_u64(u64_attr(attrs, "queue/read_ahead_kb"), 1024);
  q.logical_block_size = u64_attr(attrs, "queue/logical_block_size");
  q.physical_block_size = u64_attr(attrs, "queue/physical_block_size");
  q.minimum_io_size = u64_attr(attrs, "queue/minimum_io_size");
  q.optimal_io_size = u64_attr(attrs, "queue/optimal_io_size");
  q.rotational = u64_attr(attrs, "queue/rotational");
  if (q.rotational && *q.rotational > 1) q.rotational.reset();
  q.size_bytes = scale_u64(u64_attr(attrs, "size"), 512);
  if (const std::string* v = find(attrs, "inflight")) q.inflight = parse_inflight(*v);
  if (const std::string* v = find(attrs, "queue/scheduler")) q.scheduler = parse_active_scheduler(*v);
  q.write_cache = string_attr(attrs, "queue/write_cache");
  q.model = string_attr(attrs, "device/model");
  q.vendor = string_attr(attrs, "device/vendor");
  q.wwid = string_attr(attrs, "wwid");
  if (!q.wwid) q.wwid = string_attr(attrs, "device/wwid");
  return q;
}

}  // namespace diskperf
