#include "probes/drain_list.h"

#include <algorithm>

#include "probes/io_engine.h"

namespace diskperf {

void DrainList::add(const std::vector<std::string>& disks, std::shared_ptr<IoEngine> engine) {
  if (!engine || engine->in_flight() == 0) return;
  std::lock_guard<std::mutex> lk(mu_);
  entries_.push_back({disks, std::move(engine)});
}

unsigned DrainList::pending(const std::vector<std::string>& disks) {
  std::lock_guard<std::mutex> lk(mu_);
  unsigned n = 0;
  std::vector<IoCompletion> done;
  for (auto it = entries_.begin(); it != entries_.end();) {
    IoEngine& e = *it->engine;
    while (e.in_flight() > 0 && e.reap(0, 0, done) > 0) done.clear();
    if (e.in_flight() == 0) {
      it = entries_.erase(it);  // nothing in flight: the engine frees its context and buffers
      continue;
    }
    const bool shared = std::any_of(it->disks.begin(), it->disks.end(), [&](const std::string& d) {
      return std::find(disks.begin(), disks.end(), d) != disks.end();
    });
    if (shared) n += e.in_flight();
    ++it;
  }
  return n;
}

}  // namespace diskperf
