#include "probes/scheduler.h"

#include <algorithm>
#include <random>

#include <spdlog/spdlog.h>

#include "probes/probe_target.h"

namespace diskperf {

const std::vector<double>& probe_latency_buckets() {
  static const std::vector<double> b = [] {
    std::vector<double> v;
    for (double x = 25e-6; x < 10.0; x *= 2) v.push_back(x);
    v.push_back(10.0);
    return v;
  }();
  return b;
}

namespace {

void fold_op(ProbeOpTotals& t, ProbeOpLast& last, const RunResult& run, const OpResult& op) {
  const auto& bounds = probe_latency_buckets();
  if (t.bucket_counts.empty()) t.bucket_counts.assign(bounds.size() + 1, 0);
  t.ios += op.ios;
  t.bytes += op.bytes;
  t.clat_sum_seconds += op.clat.mean() * static_cast<double>(op.clat.count()) / 1e9;
  op.clat.for_each_bucket([&](std::uint64_t ns, std::uint64_t n) {
    const double s = static_cast<double>(ns) / 1e9;
    const auto it = std::lower_bound(bounds.begin(), bounds.end(), s);  // first bound >= s (le)
    t.bucket_counts[static_cast<std::size_t>(it - bounds.begin())] += n;
  });
  last.ios = op.ios;
  last.iops = run.iops(op);
  last.clat_sum_seconds = op.clat.mean() * static_cast<double>(op.clat.count()) / 1e9;
  last.bytes_per_second = run.bytes_per_second(op);
  last.clat_p50 = static_cast<double>(op.clat.percentile(50)) / 1e9;
  last.clat_p90 = static_cast<double>(op.clat.percentile(90)) / 1e9;
  last.clat_p99 = static_cast<double>(op.clat.percentile(99)) / 1e9;
  last.clat_p999 = static_cast<double>(op.clat.percentile(99.9)) / 1e9;
}

}  // namespace

ProbeSnapshot fold_run(const ProbeSnapshot& prev, const RunResult& run) {
  ProbeSnapshot s = prev;
  s.error = run.fatal;
  ++s.runs;
  for (const auto& [k, v] : run.errors) s.errors[k] += v;
  if (!run.fatal.empty()) ++s.errors["fatal"];
  fold_op(s.read_totals, s.read_last, run, run.read);
  fold_op(s.write_totals, s.write_last, run, run.write);
  s.has_last = true;
  s.last_start_unix_seconds =
      std::chrono::duration<double>(run.start.time_since_epoch()).count();
  s.last_duration_seconds = static_cast<double>(run.runtime_ns) / 1e9;
  return s;
}

bool DiskLocks::acquire(const std::vector<std::string>& disks, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lk(mu_);
  auto free = [&] {
    return std::none_of(disks.begin(), disks.end(), [&](const std::string& d) { return busy_.count(d) > 0; });
  };
  while (!free()) {
    if (stop.load()) return false;
    cv_.wait_for(lk, std::chrono::milliseconds(100));
  }
  busy_.insert(disks.begin(), disks.end());
  return true;
}

void DiskLocks::release(const std::vector<std::string>& disks) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (const auto& d : disks) busy_.erase(d);
  }
  cv_.notify_all();
}

DutyBudget::time_point DutyBudget::next_allowed(const std::vector<std::string>& disks) const {
  std::lock_guard<std::mutex> lk(mu_);
  time_point t{};
  for (const auto& d : disks)
    if (auto it = next_.find(d); it != next_.end()) t = std::max(t, it->second);
  return t;
}

void DutyBudget::record(const std::vector<std::string>& disks, time_point start, time_point end,
                        double max_duty_cycle) {
  const auto busy = end - start;
  const auto idle = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      busy * (1.0 / std::clamp(max_duty_cycle, 1e-6, 1.0) - 1.0));
  std::lock_guard<std::mutex> lk(mu_);
  for (const auto& d : disks) next_[d] = std::max(next_[d], end + idle);
}

namespace {

// Whether two jobs have the same settings (where they stand in the file aside).
bool same_settings(const ProbeJob& a, const ProbeJob& b) {
  auto key = [](const ProbeJob& j) {
    return std::tie(j.name, j.target, j.rw, j.rwmixread, j.bs, j.iodepth, j.runtime, j.number_ios, j.rate_iops,
                    j.interval, j.jitter, j.timeout, j.offset, j.size, j.file_size, j.max_duty_cycle);
  };
  return key(a) == key(b);
}

}  // namespace

ProbeScheduler::ProbeScheduler(HostPaths paths) : paths_(std::move(paths)) {}

ProbeScheduler::ProbeScheduler(std::vector<ProbeJob> jobs, HostPaths paths) : paths_(std::move(paths)) {
  apply(std::move(jobs));
}

ProbeScheduler::~ProbeScheduler() { stop(); }

void ProbeScheduler::apply(std::vector<ProbeJob> jobs) {
  std::lock_guard<std::mutex> serial(apply_mu_);
  JobList old;
  {
    std::lock_guard<std::mutex> lk(mu_);
    old = states_;
  }
  JobList next;
  std::size_t kept = 0;
  for (auto& j : jobs) {
    auto same = std::find_if(old.begin(), old.end(), [&](const auto& st) { return same_settings(st->job, j); });
    if (same != old.end()) {
      next.push_back(*same);  // counters and snapshot carry over
      ++kept;
      continue;
    }
    auto st = std::make_shared<JobState>();
    auto snap = std::make_shared<ProbeSnapshot>();
    snap->job = j;
    st->job = std::move(j);
    st->snapshot = std::move(snap);
    next.push_back(std::move(st));
  }
  std::map<std::string, JobList> by_target;
  for (const auto& st : next) by_target[st->job.target].push_back(st);

  // Stop the workers whose target's job list changed or went away.
  std::vector<std::string> gone;
  for (auto& [target, w] : workers_) {
    auto it = by_target.find(target);
    if (it == by_target.end() || it->second != w.jobs) {
      w.stop->store(true);
      gone.push_back(target);
    }
  }
  sleep_cv_.notify_all();
  for (const auto& target : gone) {
    Worker& w = workers_[target];
    if (w.thread.joinable()) w.thread.join();
    workers_.erase(target);
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    states_ = std::move(next);
  }
  if (started_) start_workers();
  spdlog::info("probes: {} job(s), {} unchanged, {} worker(s) restarted or stopped", jobs.size(), kept,
               gone.size());
}

void ProbeScheduler::start() {
  std::lock_guard<std::mutex> serial(apply_mu_);
  started_ = true;
  start_workers();
}

void ProbeScheduler::start_workers() {
  // One worker per target; first starts spread 250 ms apart.
  std::map<std::string, JobList> by_target;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (const auto& st : states_) by_target[st->job.target].push_back(st);
  }
  std::size_t k = 0;
  for (auto& [target, jobs] : by_target) {
    if (workers_.count(target)) continue;
    Worker& w = workers_[target];
    w.jobs = jobs;
    auto delay = std::chrono::milliseconds(250) * static_cast<long>(k++);
    w.thread = std::thread(&ProbeScheduler::worker, this, jobs, w.stop, delay);
  }
}

void ProbeScheduler::stop() {
  std::lock_guard<std::mutex> serial(apply_mu_);
  started_ = false;
  for (auto& [target, w] : workers_) w.stop->store(true);
  sleep_cv_.notify_all();
  for (auto& [target, w] : workers_)
    if (w.thread.joinable()) w.thread.join();
  workers_.clear();
}

std::vector<ProbeScheduler::JobView> ProbeScheduler::jobs() const {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<JobView> out;
  out.reserve(states_.size());
  for (const auto& s : states_) out.push_back({s->snapshot, s->stalled.load(), s->waiting_for_drain.load()});
  return out;
}

std::vector<std::shared_ptr<const ProbeSnapshot>> ProbeScheduler::snapshots() const {
  std::vector<std::shared_ptr<const ProbeSnapshot>> out;
  for (auto& v : jobs()) out.push_back(std::move(v.snapshot));
  return out;
}

void ProbeScheduler::publish(JobState& st, std::shared_ptr<const ProbeSnapshot> s) {
  std::lock_guard<std::mutex> lk(mu_);
  st.snapshot = std::move(s);
}

std::shared_ptr<const ProbeSnapshot> ProbeScheduler::current(const JobState& st) const {
  std::lock_guard<std::mutex> lk(mu_);
  return st.snapshot;
}

bool ProbeScheduler::sleep_until(std::chrono::steady_clock::time_point t, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lk(sleep_mu_);
  sleep_cv_.wait_until(lk, t, [&] { return stop.load(); });
  return !stop.load();
}

bool ProbeScheduler::wait_for_drain(JobState& st, const std::vector<std::string>& disks,
                                    const std::atomic<bool>& stop) {
  unsigned n = drains_.pending(disks);
  if (n == 0) return true;
  std::string names;
  for (const auto& d : disks) names += (names.empty() ? "" : ",") + d;
  spdlog::warn("probe '{}': waiting for {} I/O(s) that a stopped run left in flight on {} to finish before it runs",
               st.job.name, n, names);
  st.waiting_for_drain = true;
  while (drains_.pending(disks) > 0) {
    if (!sleep_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(200), stop)) {
      st.waiting_for_drain = false;
      return false;
    }
  }
  st.waiting_for_drain = false;
  spdlog::info("probe '{}': the earlier I/O on {} has finished; the job runs again", st.job.name, names);
  return true;
}

void ProbeScheduler::worker(JobList jobs, std::shared_ptr<std::atomic<bool>> stop_flag,
                            std::chrono::nanoseconds first_delay) {
  using clock = std::chrono::steady_clock;
  const std::atomic<bool>& stopping = *stop_flag;
  std::mt19937_64 rng(std::random_device{}());
  std::vector<clock::time_point> next(jobs.size(), clock::now() + first_delay);
  for (std::size_t k = 1; k < jobs.size(); ++k) next[k] += std::chrono::milliseconds(100) * static_cast<long>(k);
  std::vector<clock::time_point> base = next;  // the schedule without jitter, so jitter does not drift
  while (!stopping) {
    const std::size_t k = static_cast<std::size_t>(std::min_element(next.begin(), next.end()) - next.begin());
    JobState& st = *jobs[k];
    const ProbeJob& job = st.job;
    if (!sleep_until(next[k], stopping)) break;

    ResolvedJob rj = resolve_job(job, paths_);
    if (!rj.ok()) {
      std::string msg;
      for (const auto& e : rj.errors) msg += (msg.empty() ? "" : "; ") + e;
      spdlog::error("config:{}:{}: {}", job.config_line, job.config_column, msg);
      auto s = std::make_shared<ProbeSnapshot>(*current(st));
      s->error = msg;
      publish(st, std::move(s));
      base[k] = next[k] = clock::now() + job.interval;
      continue;
    }
    if (!wait_for_drain(st, rj.disks, stopping)) break;
    // The duty-cycle budget of every disk under the target, then exclusive use of them.
    if (!sleep_until(std::max(clock::now(), budget_.next_allowed(rj.disks)), stopping)) break;
    if (!locks_.acquire(rj.disks, stopping)) break;
    const auto t0 = clock::now();
    RunHooks hooks;
    hooks.stop = stop_flag.get();
    hooks.on_stall = [&st](bool stalled) {
      st.stalled = stalled;
      if (stalled) spdlog::warn("probe '{}': an I/O on {} outlived the {} ms timeout", st.job.name, st.job.target,
                                std::chrono::duration_cast<std::chrono::milliseconds>(st.job.timeout).count());
    };
    RunResult r = run_probe(job, rj.path, rj.region.offset, rj.region.size, rj.alignment, hooks);
    const auto t1 = clock::now();
    locks_.release(rj.disks);
    budget_.record(rj.disks, t0, t1, job.max_duty_cycle);
    drains_.add(rj.disks, std::move(r.unfinished));
    if (stopping) break;
    st.stalled = false;  // the run waited for every I/O it issued
    auto s = std::make_shared<ProbeSnapshot>(fold_run(*current(st), r));
    s->disks = rj.disks;
    publish(st, std::move(s));
    if (!r.fatal.empty()) spdlog::warn("probe '{}': {}", job.name, r.fatal);

    std::uniform_int_distribution<std::int64_t> jit(0, std::max<std::int64_t>(0, job.jitter.count()));
    base[k] = std::max(base[k] + job.interval, t1);
    next[k] = base[k] + std::chrono::nanoseconds(jit(rng));
  }
}

}  // namespace diskperf
