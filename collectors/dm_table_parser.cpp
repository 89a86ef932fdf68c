#include "collectors/dm_table_parser.h"

#include "collectors/text.h"

#include <charconv>
#include <limits>

namespace diskperf {
namespace {

// Words are split on white space, so parse_u64 sees no surrounding blanks.
std::optional<std::uint64_t> number(std::string_view s) { return parse_u64(s); }

// Fills the segment's target-specific fields; returns an error or nullopt.
std::optional<std::string> parse_target(DmSegment& seg, const std::vector<std::string_view>& a) {
  auto device_at = [&](std::size_t i) -> std::optional<std::string> {
    auto off = number(a[i + 1]);
    if (!off) return "bad offset '" + std::string(a[i + 1]) + "'";
    seg.devices.push_back({std::string(a[i]), *off});
    return std::nullopt;
  };
  if (seg.target == "linear") {
    if (a.size() != 2) return "linear: expected 2 arguments (dev offset), got " + std::to_string(a.size());
    return device_at(0);
  }
  if (seg.target == "striped") {
    if (a.size() < 2) return "striped: expected <#stripes> <chunk_sectors> then devices";
    auto n = number(a[0]);
    auto chunk = number(a[1]);
    if (!n || *n == 0 || *n > 1u << 20) return "striped: bad stripe count '" + std::string(a[0]) + "'";
    if (!chunk || *chunk == 0 || *chunk > std::numeric_limits<std::uint64_t>::max() / 512)
      return "striped: bad chunk size '" + std::string(a[1]) + "'";
    if (a.size() != 2 + 2 * *n)
      return "striped: expected 2 + 2 x " + std::to_string(*n) + " arguments, got " + std::to_string(a.size());
    seg.stripes = static_cast<std::uint32_t>(*n);
    seg.chunk_bytes = *chunk * 512;
    for (std::size_t i = 2; i < a.size(); i += 2)
      if (auto e = device_at(i)) return "striped: " + *e;
    return std::nullopt;
  }
  if (seg.target == "crypt") {
    if (a.size() < 5) return "crypt: expected at least 5 arguments (cipher key iv_offset dev offset)";
    if (!number(a[2])) return "crypt: bad iv_offset";
    seg.cipher = std::string(a[0]);
    if (auto e = device_at(3)) return "crypt: " + *e;
    return std::nullopt;
  }
  return std::nullopt;  // other targets: type and raw args only
}

}  // namespace

DmTableParse parse_dm_table(std::string_view text) {
  DmTableParse out;
  auto fail = [&](std::size_t line, const std::string& why) {
    out.segments.clear();
    out.error = "line " + std::to_string(line) + ": " + why;
    return out;
  };
  std::uint64_t next_start = 0;
  std::size_t line_no = 0;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    ++line_no;
    auto f = split_ws(line);
    if (f.empty()) continue;
    if (f.size() < 3) return fail(line_no, "expected <start> <length> <target> [args], got '" + std::string(line) + "'");
    DmSegment seg;
    auto start = number(f[0]), length = number(f[1]);
    if (!start) return fail(line_no, "bad start sector '" + std::string(f[0]) + "'");
    if (!length || *length == 0) return fail(line_no, "bad length '" + std::string(f[1]) + "'");
    if (*start != next_start)
      return fail(line_no, "segment starts at sector " + std::to_string(*start) + ", expected " +
                               std::to_string(next_start) + " (gap or overlap)");
    if (*length > std::numeric_limits<std::uint64_t>::max() - *start) return fail(line_no, "length overflows");
    seg.start_sectors = *start;
    seg.length_sectors = *length;
    next_start = *start + *length;
    seg.target = std::string(f[2]);
    std::vector<std::string_view> args(f.begin() + 3, f.end());
    if (!args.empty())
      seg.args = std::string(line.substr(static_cast<std::size_t>(args.front().data() - line.data())));
    while (!seg.args.empty() && is_ascii_space(seg.args.back())) seg.args.pop_back();
    if (auto e = parse_target(seg, args)) return fail(line_no, *e);
    out.segments.push_back(std::move(seg));
  }
  if (out.segments.empty()) {
    out.error = "empty table";
  }
  return out;
}

}  // namespace diskperf
