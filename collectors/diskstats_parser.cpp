#include "collectors/diskstats_parser.h"

#include "collectors/text.h"

#include <algorithm>

#include <array>
#include <charconv>
#include <unordered_set>

namespace diskperf {
namespace {

constexpr std::size_t kMaxFields = 17;  // fields this parser understands
constexpr std::size_t kMaxDeviceNameLength = 128;  // kernel names are under 32 bytes

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits on runs of blanks into `tokens` (bounded by `cap`); returns the
// total number of tokens on the line.
std::size_t tokenize(std::string_view line, std::string_view* tokens, std::size_t cap) {
  std::size_t n = 0, i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (n < cap) tokens[n] = line.substr(start, i - start);
    ++n;
  }
  return n;
}

template <typename T>
bool parse_uint(std::string_view s, T& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<std::string> parse_line(std::string_view line, DiskstatsEntry& e) {
  constexpr std::size_t cap = 3 + kMaxFields;
  std::array<std::string_view, cap> tok;
  std::size_t n = tokenize(line, tok.data(), cap);
  if (n < 3) return "fewer than 3 tokens";
  std::size_t fields = n - 3;
  if (!(fields == 4 || fields == 11 || fields == 15 || fields >= 17)) {
    return "unexpected number of statistics fields: " + std::to_string(fields);
  }
  if (!parse_uint(tok[0], e.major) || !parse_uint(tok[1], e.minor)) return "bad major/minor number";
  if (tok[2].size() > kMaxDeviceNameLength) return "device name longer than 128 bytes";
  for (char c : tok[2]) {
    if (c < 0x21 || c > 0x7e) return "device name is not printable ASCII";
  }
  e.device.assign(tok[2]);
  e.field_count = fields;
  std::array<std::uint64_t, kMaxFields> v{};
  std::size_t used = std::min(fields, kMaxFields);
  for (std::size_t i = 0; i < used; ++i) {
    if (!parse_uint(tok[3 + i], v[i])) {
      return "field " + std::to_string(i + 1) + " is not an unsigned 64-bit number";
    }
  }
  if (fields == 4) {
    e.legacy_partition = LegacyPartitionStats{v[0], v[1], v[2], v[3]};
    return std::nullopt;
  }
  e.io = DiskIoStats{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]};
  if (fields >= 15) e.discard = DiskDiscardStats{v[11], v[12], v[13], v[14]};
  if (fields >= 17) e.flush = DiskFlushStats{v[15], v[16]};
  return std::nullopt;
}

}  // namespace

DiskstatsParse parse_diskstats(std::string_view text) {
  DiskstatsParse out;
  // One entry per line at most: room for them up front (a 1,300-line file made
  // the vector grow, and copy itself, eleven times); capped, so that a huge
  // file of garbage lines does not reserve gigabytes.
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  const std::size_t expected = std::min<std::size_t>(lines + 1, 16384);
  out.entries.reserve(expected);
  std::unordered_set<std::string> seen;
  seen.reserve(expected);
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    bool terminated = false;
    std::string_view line = next_line(text, &terminated);
    std::string_view tmp[1];
    if (tokenize(line, tmp, 1) == 0) continue;  // blank line
    if (!terminated) {
      out.rejected.push_back({line_no, "last line has no newline (truncated read)"});
      break;
    }
    DiskstatsEntry e;
    if (auto err = parse_line(line, e)) {
      out.rejected.push_back({line_no, std::move(*err)});
      continue;
    }
    if (!seen.insert(e.device).second) {  // two series with one label set would fail the scrape
      out.rejected.push_back({line_no, "duplicate device " + e.device});
      continue;
    }
    out.entries.push_back(std::move(e));
  }
  return out;
}

}  // namespace diskperf
