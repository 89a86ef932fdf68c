// libFuzzer target: parse_config (config/config.h), the YAML configuration
// file with collectors and probes. Checks its contract: a config only when
// there are no errors, and at least one error otherwise.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  diskperf::ConfigResult r = diskperf::parse_config(text);
  if (r.config.has_value() == !r.errors.empty()) std::abort();
  for (const auto& e : r.errors) (void)e.to_string("fuzz.yml");
  return 0;
}
