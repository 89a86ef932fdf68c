#pragma once
// When a cached reading of a device is read again: spread over scrapes, so
// that the devices of a large host read in one scrape (all of them, at the
// daemon's start) do not all come due in the same later one.

#include <chrono>
#include <string_view>

namespace diskperf {

/// `now` + `max_age` scaled by a factor between 3/4 and 1 drawn from `device`
/// and `now` (splitmix64). Used by the queue collector's settings and the
/// volume scan's device-mapper cache.
std::chrono::steady_clock::time_point due_time(std::string_view device, std::chrono::steady_clock::time_point now,
                                               std::chrono::nanoseconds max_age);

}  // namespace diskperf
