#include "collectors/due_time.h"

#include <cstdint>
#include <functional>

namespace diskperf {

std::chrono::steady_clock::time_point due_time(std::string_view device, std::chrono::steady_clock::time_point now,
                                               std::chrono::nanoseconds max_age) {
  std::uint64_t z = std::hash<std::string_view>{}(device) +
                    static_cast<std::uint64_t>(now.time_since_epoch().count()) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  const double factor = 0.75 + 0.25 * static_cast<double>(z >> 11) / static_cast<double>(1ULL << 53);
  return now + std::chrono::duration_cast<std::chrono::nanoseconds>(max_age * factor);
}

}  // namespace diskperf
