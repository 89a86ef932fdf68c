// libFuzzer target: parse_imds_compute (collectors/azure/imds_document.h), the Azure Instance
// Metadata Service compute document, which comes from the network.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/azure/imds_document.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  diskperf::ImdsParse p = diskperf::parse_imds_compute(text);
  // Either a document or an error, never both nor neither.
  if (p.compute.has_value() == !p.error.empty()) __builtin_trap();
  return 0;
}
