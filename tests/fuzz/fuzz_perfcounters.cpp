// libFuzzer target: parse_perfcounters and normalise_instance
// (collectors/perfcounters_parser.h), the Azure Enhanced Monitoring file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/perfcounters_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  diskperf::PerfCountersParse p = diskperf::parse_perfcounters(text);
  for (const auto& c : p.counters) (void)diskperf::normalise_instance(c.instance);
  (void)diskperf::normalise_instance(text);
  return 0;
}
