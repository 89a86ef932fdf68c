// libFuzzer target: parse_dm_table (collectors/dm_table_parser.h). Checks the
// documented contract: exactly one of segments (non-empty) and error is set,
// and accepted segments are contiguous from sector 0.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "collectors/dm_table_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  diskperf::DmTableParse p = diskperf::parse_dm_table(text);
  if (p.error.has_value() == !p.segments.empty()) std::abort();
  std::uint64_t next = 0;
  for (const auto& s : p.segments) {
    if (s.start_sectors != next || s.length_sectors == 0) std::abort();
    next = s.start_sectors + s.length_sectors;
    if (s.stripes && s.devices.size() != *s.stripes) std::abort();
  }
  return 0;
}
