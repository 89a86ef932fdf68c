#include "probes/probe_run.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "probes/depth_ramp.h"
#include "probes/io_engine.h"

namespace diskperf {
namespace {

constexpr std::uint64_t kPollNs = 100'000'000;  // longest wait between checks of stop and timeouts
constexpr std::uint64_t kStopGraceNs = 100'000'000;  // I/O in flight awaited after a stop

std::string error_kind(long res, bool write, std::uint64_t bs) {
  if (res == -EIO) return "eio";
  if (res < 0) return "errno_" + std::to_string(-res);
  if (static_cast<std::uint64_t>(res) < bs) return write ? "short_write" : "short_read";
  return "";
}

}  // namespace

RunResult run_probe(const ProbeJob& job, const std::string& path, std::uint64_t region_offset,
                    std::uint64_t region_size, std::uint32_t alignment, const RunHooks& hooks) {
  RunResult r;
  r.start = std::chrono::system_clock::now();
  const std::uint64_t blocks = job.bs ? region_size / job.bs : 0;
  if (blocks == 0) {
    r.fatal = "region of " + std::to_string(region_size) + " bytes holds no block of bs=" + std::to_string(job.bs);
    return r;
  }
  std::string err;
  auto engine = IoEngine::open(path, has_writes(job.rw), job.iodepth, job.bs, alignment, err);
  if (!engine) {
    r.fatal = err;
    return r;
  }

  std::mt19937_64 rng(std::random_device{}());
  std::uniform_int_distribution<std::uint64_t> pick_block(0, blocks - 1);
  std::uniform_int_distribution<unsigned> pick_pct(0, 99);
  std::uint64_t next_seq = 0;

  const std::uint64_t t0 = monotonic_ns();
  const std::uint64_t deadline =
      job.number_ios ? UINT64_MAX : t0 + static_cast<std::uint64_t>(job.runtime.count());
  std::uint64_t issued = 0, last_done = t0;
  bool draining = false, abandoned = false, stall_reported = false;
  std::uint64_t stop_by = 0;  // when stopping: the end of the grace for the I/O in flight
  std::set<unsigned> overdue;  // slots in flight past the timeout
  const auto timeout_ns = static_cast<std::uint64_t>(job.timeout.count());
  // The I/O in flight grows to iodepth only as fast as the disk shows it completes it: what is in
  // flight when a disk hangs is what the kernel makes stop (and exit) wait for.
  DepthRamp ramp(job.iodepth, timeout_ns, t0);
  std::vector<IoCompletion> done;

  auto pace_allows = [&](std::uint64_t now) -> std::uint64_t {  // how many more I/Os may start now
    if (!job.rate_iops || *job.rate_iops <= 0) return UINT64_MAX;
    const double allowed = (static_cast<double>(now - t0) / 1e9) * *job.rate_iops + 1.0;
    return allowed > static_cast<double>(issued) ? static_cast<std::uint64_t>(allowed) - issued : 0;
  };

  while (true) {
    std::uint64_t now = monotonic_ns();
    if (hooks.stop && hooks.stop->load()) {
      // Stopping (a reload, SIGTERM): no new I/O. What a healthy disk completes within a short
      // grace is awaited (its engine is freed here); the rest goes to the caller in `unfinished`,
      // so a reload never waits for a slow disk.
      if (!stop_by) stop_by = now + std::min(kStopGraceNs, timeout_ns);
      draining = true;
      if (now >= stop_by || !overdue.empty()) {
        abandoned = true;
        break;
      }
    }
    if (now >= deadline || (job.number_ios && issued >= job.number_ios)) draining = true;
    if (!draining) {
      std::vector<unsigned> slots = engine->free_slots();
      std::uint64_t n = std::min<std::uint64_t>(slots.size(), pace_allows(now));
      n = std::min<std::uint64_t>(n, ramp.allowed() > engine->in_flight() ? ramp.allowed() - engine->in_flight() : 0);
      if (job.number_ios) n = std::min<std::uint64_t>(n, job.number_ios - issued);
      slots.resize(static_cast<std::size_t>(n));
      for (unsigned s : slots) {
        bool write = false;
        if (job.rw == RwMode::write || job.rw == RwMode::randwrite) write = true;
        else if (job.rw == RwMode::randrw) write = pick_pct(rng) >= job.rwmixread;
        const std::uint64_t block = is_random(job.rw) ? pick_block(rng) : (next_seq++ % blocks);
        engine->prepare(s, region_offset + block * job.bs, write);
      }
      if (!slots.empty()) {
        const unsigned before = engine->in_flight();
        int rc = engine->submit(slots);
        issued += engine->in_flight() - before;  // what the kernel accepted
        if (rc < 0) {
          ++r.errors["submit"];
          if (engine->in_flight() == 0) {
            r.fatal = std::string("io_submit: ") + std::strerror(-rc);
            break;
          }
          draining = true;
        }
      }
    }
    if (engine->in_flight() == 0) {
      if (draining) break;
      // Paced and nothing in flight: sleep until the next I/O may start.
      const double next = static_cast<double>(issued) / *job.rate_iops * 1e9;
      const std::uint64_t at = t0 + static_cast<std::uint64_t>(next);
      now = monotonic_ns();
      if (at > now) {
        const std::uint64_t wait = std::min(at - now, kPollNs);
        timespec ts{static_cast<time_t>(wait / 1000000000ull), static_cast<long>(wait % 1000000000ull)};
        nanosleep(&ts, nullptr);
      }
      continue;
    }
    // Wait for completions, but wake for the pacing, the deadline, the next timeout and stop.
    std::uint64_t wait = kPollNs;
    now = monotonic_ns();
    if (!draining && deadline != UINT64_MAX) wait = std::min(wait, deadline > now ? deadline - now : 0);
    if (!draining && job.rate_iops && engine->in_flight() < ramp.allowed()) {
      const std::uint64_t at = t0 + static_cast<std::uint64_t>(static_cast<double>(issued) / *job.rate_iops * 1e9);
      wait = std::min(wait, at > now ? at - now : 0);
    }
    // Reap as fio does with its defaults (backend.c do_io, wait_for_completions; io_u.c
    // io_u_queued_complete): while running, one completion per io_getevents
    // (iodepth_batch_complete_min = max = 1), and the freed slot is refilled before the next one
    // is reaped, so each completion is stamped when the loop gets to it; once the runtime is over,
    // all the I/O in flight at once (cleanup_pending_aio), stamped together.
    done.clear();
    const unsigned in_flight = engine->in_flight();
    int rc = draining ? engine->reap(in_flight, wait, done, in_flight) : engine->reap(1, wait, done, 1);
    if (rc < 0) {
      r.fatal = std::string("io_getevents: ") + std::strerror(-rc);
      abandoned = true;
      break;
    }
    for (const IoCompletion& c : done) {
      last_done = std::max(last_done, c.done_ns);
      overdue.erase(c.slot);
      const std::string kind = error_kind(c.result, c.write, job.bs);
      if (!kind.empty()) {
        ++r.errors[kind];
        continue;
      }
      OpResult& op = c.write ? r.write : r.read;
      ++op.ios;
      op.bytes += job.bs;
      op.slat.add(c.issue_ns - c.start_ns);
      op.clat.add(c.done_ns - c.issue_ns);
      op.lat.add(c.done_ns - c.start_ns);
    }
    // Timeouts: an I/O in flight longer than the timeout is counted once and stops the run.
    now = monotonic_ns();
    ramp.on_completions(static_cast<unsigned>(done.size()), now);
    ramp.tick(now);
    for (unsigned s = 0; s < engine->iodepth(); ++s) {
      const std::uint64_t issue = engine->issue_ns(s);
      if (issue && now - issue > timeout_ns && !overdue.count(s)) {
        overdue.insert(s);
        ++r.errors["timeout"];
        r.stalled = true;
        draining = true;
      }
    }
    if (!overdue.empty() && !stall_reported) {
      stall_reported = true;
      if (hooks.on_stall) hooks.on_stall(true);
    } else if (overdue.empty() && stall_reported) {
      stall_reported = false;
      if (hooks.on_stall) hooks.on_stall(false);
    }
  }
  if (abandoned && engine->in_flight() > 0) {
    engine->abandon();  // the kernel still writes into its buffers: they go with the engine
    r.unfinished = std::shared_ptr<IoEngine>(std::move(engine));
  }
  r.runtime_ns = last_done - t0;
  return r;
}

}  // namespace diskperf
