// libFuzzer target: parse_diskstats (collectors/diskstats_parser.h) on arbitrary text.
// Besides crashes and sanitizer reports, it checks that every input line is
// either an entry or a rejected line, never both and never lost.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "collectors/diskstats_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  diskperf::DiskstatsParse p = diskperf::parse_diskstats(text);
  std::size_t lines = 0;
  for (std::size_t i = 0; i < size; ++i) lines += data[i] == '\n';
  if (size > 0 && data[size - 1] != '\n') ++lines;
  if (p.entries.size() + p.rejected.size() > lines) std::abort();
  for (const auto& e : p.entries) {
    if (e.device.empty()) std::abort();
  }
  return 0;
}
