#include "collectors/diskstats_unwrap.h"

#include <algorithm>
#include <limits>

namespace diskperf {
namespace {

constexpr std::uint64_t kWrap = std::uint64_t{1} << 32;

// The time fields of `e` in DiskstatsUnwrap's order; null where the kernel did not print them.
std::array<std::uint64_t*, 6> times_of(DiskstatsEntry& e) {
  std::array<std::uint64_t*, 6> t{};
  if (e.io) t = {&e.io->read_time_ms, &e.io->write_time_ms, &e.io->io_time_ms, &e.io->weighted_io_time_ms};
  if (e.discard) t[4] = &e.discard->discard_time_ms;
  if (e.flush) t[5] = &e.flush->flush_time_ms;
  return t;
}

// The completed-I/O counts of `e`: what only goes down when the device's statistics start anew.
std::array<std::uint64_t, 4> counts_of(const DiskstatsEntry& e) {
  std::array<std::uint64_t, 4> c{};
  if (e.io) c[0] = e.io->reads_completed, c[1] = e.io->writes_completed;
  if (e.discard) c[2] = e.discard->discards_completed;
  if (e.flush) c[3] = e.flush->flush_requests_completed;
  return c;
}

}  // namespace

void DiskstatsUnwrap::start_over(State& s, DiskstatsEntry& e, std::string uuid) {
  s.major = e.major;
  s.minor = e.minor;
  s.uuid = std::move(uuid);
  s.offset = {};
  s.counts = counts_of(e);
  const auto times = times_of(e);
  for (std::size_t i = 0; i < kTimes; ++i) s.raw[i] = times[i] ? *times[i] : 0;
}

void DiskstatsUnwrap::apply(const std::vector<DiskstatsEntry*>& entries, bool partial) {
  std::lock_guard lock(mu_);
  const std::uint64_t generation = ++generation_;
  for (DiskstatsEntry* e : entries) {
    if (!e->io) continue;  // the 4-field partition line of 2.6 kernels has no time fields
    auto [it, added] = devices_.try_emplace(e->device);
    State& s = it->second;
    s.seen = generation;
    if (added || s.major != e->major || s.minor != e->minor) {
      start_over(s, *e, uuid_of_(*e));
      continue;
    }
    const auto times = times_of(*e);
    const auto counts = counts_of(*e);
    bool reset = false, down = false;
    for (std::size_t i = 0; i < kCounts; ++i) reset = reset || counts[i] < s.counts[i];
    for (std::size_t i = 0; i < kTimes; ++i) {
      if (!times[i] || *times[i] >= s.raw[i]) continue;
      down = true;
      // A value the kernel printed above 32 bits cannot have wrapped at 2^32; nor can one that fell
      // by less than half the range (between two reads a field grows by far less than 2^31 ms).
      reset = reset || s.raw[i] > std::numeric_limits<std::uint32_t>::max() || s.raw[i] - *times[i] < kWrap / 2;
    }
    // A device created again under the same number with times above the old ones shows only in
    // its uuid: asked at every read once an offset would carry over to it.
    const bool carried = std::any_of(s.offset.begin(), s.offset.end(), [](std::uint64_t o) { return o != 0; });
    if (reset || down || carried) {
      std::string uuid = uuid_of_(*e);
      if (reset || uuid != s.uuid) {  // reset, or another device under the same number
        start_over(s, *e, std::move(uuid));
        continue;
      }
    }
    for (std::size_t i = 0; i < kTimes; ++i) {
      if (!times[i]) continue;
      if (*times[i] < s.raw[i]) s.offset[i] += kWrap;
      s.raw[i] = *times[i];
      *times[i] += s.offset[i];
    }
    s.counts = counts;
  }
  if (!partial) std::erase_if(devices_, [generation](const auto& kv) { return kv.second.seen != generation; });
}

std::size_t DiskstatsUnwrap::size() const {
  std::lock_guard lock(mu_);
  return devices_.size();
}

}  // namespace diskperf
