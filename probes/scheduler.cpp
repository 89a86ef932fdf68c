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

ProbeScheduler::ProbeScheduler(std::vector<ProbeJob> jobs, HostPaths paths) : paths_(std::move(paths)) {
  for (auto& j : jobs) {
    auto st = std::make_unique<JobState>();
    auto snap = std::make_shared<ProbeSnapshot>();
    snap->job = j;
    st->job = std::move(j);
    st->snapshot = std::move(snap);
    states_.push_back(std::move(st));
  }
}

ProbeScheduler::~ProbeScheduler() { stop(); }

void ProbeScheduler::start() {
  // One worker per target; first starts spread over up to 1 s per worker.
  std::map<std::string, std::vector<std::size_t>> by_target;
  for (std::size_t i = 0; i < states_.size(); ++i) by_target[states_[i]->job.target].push_back(i);
  std::size_t k = 0;
  for (auto& [target, idx] : by_target) {
    auto delay = std::chrono::milliseconds(250) * static_cast<long>(k++);
    threads_.emplace_back(&ProbeScheduler::worker, this, idx, delay);
  }
}

void ProbeScheduler::stop() {
  stop_ = true;
  sleep_cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

std::vector<std::shared_ptr<const ProbeSnapshot>> ProbeScheduler::snapshots() const {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<std::shared_ptr<const ProbeSnapshot>> out;
  out.reserve(states_.size());
  for (const auto& s : states_) out.push_back(s->snapshot);
  return out;
}

void ProbeScheduler::publish(std::size_t index, std::shared_ptr<const ProbeSnapshot> s) {
  std::lock_guard<std::mutex> lk(mu_);
  states_[index]->snapshot = std::move(s);
}

bool ProbeScheduler::sleep_until(std::chrono::steady_clock::time_point t) {
  std::unique_lock<std::mutex> lk(sleep_mu_);
  sleep_cv_.wait_until(lk, t, [&] { return stop_.load(); });
  return !stop_.load();
}

void ProbeScheduler::worker(std::vector<std::size_t> idx, std::chrono::nanoseconds first_delay) {
  using clock = std::chrono::steady_clock;
  std::mt19937_64 rng(std::random_device{}());
  std::vector<clock::time_point> next(idx.size(), clock::now() + first_delay);
  for (std::size_t k = 1; k < idx.size(); ++k) next[k] += std::chrono::milliseconds(100) * static_cast<long>(k);
  std::vector<clock::time_point> base = next;  // the schedule without jitter, so jitter does not drift
  while (!stop_) {
    const std::size_t k = static_cast<std::size_t>(std::min_element(next.begin(), next.end()) - next.begin());
    const std::size_t i = idx[k];
    JobState& st = *states_[i];
    const ProbeJob& job = st.job;
    if (!sleep_until(next[k])) break;

    ResolvedJob rj = resolve_job(job, paths_);
    if (!rj.ok()) {
      std::string msg;
      for (const auto& e : rj.errors) msg += (msg.empty() ? "" : "; ") + e;
      spdlog::error("config:{}:{}: {}", job.config_line, job.config_column, msg);
      std::shared_ptr<const ProbeSnapshot> prev;
      {
        std::lock_guard<std::mutex> lk(mu_);
        prev = st.snapshot;
      }
      auto s = std::make_shared<ProbeSnapshot>(*prev);
      s->error = msg;
      publish(i, std::move(s));
      base[k] = next[k] = clock::now() + job.interval;
      continue;
    }
    // The duty-cycle budget of every disk under the target, then exclusive use of them.
    if (!sleep_until(std::max(clock::now(), budget_.next_allowed(rj.disks)))) break;
    if (!locks_.acquire(rj.disks, stop_)) break;
    const auto t0 = clock::now();
    RunHooks hooks;
    hooks.stop = &stop_;
    hooks.on_stall = [&st](bool stalled) {
      st.stalled = stalled;
      if (stalled) spdlog::warn("probe '{}': an I/O on {} outlived the {} ms timeout", st.job.name, st.job.target,
                                std::chrono::duration_cast<std::chrono::milliseconds>(st.job.timeout).count());
    };
    RunResult r = run_probe(job, rj.path, rj.region.offset, rj.region.size, rj.alignment, hooks);
    const auto t1 = clock::now();
    locks_.release(rj.disks);
    budget_.record(rj.disks, t0, t1, job.max_duty_cycle);
    if (stop_) break;
    st.stalled = false;  // the run waited for every I/O it issued
    std::shared_ptr<const ProbeSnapshot> prev;
    {
      std::lock_guard<std::mutex> lk(mu_);
      prev = st.snapshot;
    }
    auto s = std::make_shared<ProbeSnapshot>(fold_run(*prev, r));
    s->disks = rj.disks;
    publish(i, std::move(s));
    if (!r.fatal.empty()) spdlog::warn("probe '{}': {}", job.name, r.fatal);

    std::uniform_int_distribution<std::int64_t> jit(0, std::max<std::int64_t>(0, job.jitter.count()));
    base[k] = std::max(base[k] + job.interval, t1);
    next[k] = base[k] + std::chrono::nanoseconds(jit(rng));
  }
}

}  // namespace diskperf
