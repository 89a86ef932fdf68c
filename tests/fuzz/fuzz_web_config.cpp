// libFuzzer target: parse_web_config (config/web_config.h), exporter-toolkit's
// web configuration file (TLS, basic auth users, headers). Checks its
// contract: a config only when there are no errors.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  diskperf::WebConfigResult r = diskperf::parse_web_config(text);
  if (r.config.has_value() == !r.errors.empty()) std::abort();
  for (const auto& e : r.errors) (void)e.to_string("web.yml");
  return 0;
}
