#pragma once
// Runs the configured probe jobs on a schedule: one worker thread per target
// (a hung disk stalls only its own worker), staggered first starts, `interval`
// plus random `jitter` between starts, never two probes on one physical disk
// at once (DiskLocks), and a duty-cycle budget per disk (DutyBudget). Each
// finished run is folded into an immutable ProbeSnapshot published by a
// shared_ptr swap: scrapes copy pointers and never wait for a probe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collectors/host_fs.h"
#include "probes/drain_list.h"
#include "probes/probe_job.h"
#include "probes/probe_run.h"

namespace diskperf {

/// Upper bounds (seconds) of the Prometheus clat histogram: 25 us x 2^k up to 6.5536 s, then 10 s.
const std::vector<double>& probe_latency_buckets();

/// Totals of one op (read/write) over all runs of a job.
struct ProbeOpTotals {
  std::uint64_t ios = 0, bytes = 0;
  std::vector<std::uint64_t> bucket_counts;  ///< per probe_latency_buckets() bound, not cumulative; +Inf last
  double clat_sum_seconds = 0;
};

/// Last run's figures for one op.
struct ProbeOpLast {
  std::uint64_t ios = 0;
  double iops = 0, bytes_per_second = 0;
  double clat_p50 = 0, clat_p90 = 0, clat_p99 = 0, clat_p999 = 0;  ///< seconds, from the run's own histogram
  double clat_sum_seconds = 0;                                     ///< of the run's clat samples
};

/// What the collector shows for one job. Immutable once published.
struct ProbeSnapshot {
  ProbeJob job;
  std::vector<std::string> disks;
  std::string error;  ///< the job cannot run (target check failed); empty when fine
  std::uint64_t runs = 0;
  std::map<std::string, std::uint64_t> errors;  ///< by kind, over all runs
  ProbeOpTotals read_totals, write_totals;
  bool has_last = false;
  double last_start_unix_seconds = 0, last_duration_seconds = 0;
  ProbeOpLast read_last, write_last;
};

/// Folds one run into the previous snapshot (pure).
ProbeSnapshot fold_run(const ProbeSnapshot& previous, const RunResult& run);

/// Mutual exclusion of probes by physical disk: acquire() waits until none of the disks is in
/// use by another probe, then takes them all at once (no lock-order deadlock).
class DiskLocks {
 public:
  /// False when `stop` became true while waiting.
  bool acquire(const std::vector<std::string>& disks, const std::atomic<bool>& stop);
  void release(const std::vector<std::string>& disks);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> busy_;
};

/// Duty-cycle budget per disk: after a run that kept disks busy for d, none of them may start
/// another run before end + d x (1/max_duty_cycle - 1), so busy time / wall time <= max_duty_cycle.
class DutyBudget {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  /// Earliest start allowed for a run on `disks`.
  time_point next_allowed(const std::vector<std::string>& disks) const;
  void record(const std::vector<std::string>& disks, time_point start, time_point end, double max_duty_cycle);

 private:
  mutable std::mutex mu_;
  std::map<std::string, time_point> next_;
};

class ProbeScheduler {
 public:
  explicit ProbeScheduler(HostPaths paths);
  /// Same as ProbeScheduler(paths) then apply(jobs).
  ProbeScheduler(std::vector<ProbeJob> jobs, HostPaths paths);
  ~ProbeScheduler();  ///< stops and joins the workers (a worker on a hung disk abandons its I/O)
  ProbeScheduler(const ProbeScheduler&) = delete;
  ProbeScheduler& operator=(const ProbeScheduler&) = delete;

  /// Sets the job list (at start and on every config reload). A job whose
  /// name and settings are unchanged keeps its counters; a target whose jobs
  /// are all unchanged keeps its worker and schedule. Workers of targets
  /// whose jobs changed or went away are stopped (a run in flight issues no
  /// new I/O and waits for its I/O, at most until the job's timeout) and,
  /// once started, new ones start. Never blocks a scrape.
  void apply(std::vector<ProbeJob> jobs);
  /// Starts the workers (for the jobs applied so far and later).
  void start();
  /// Stops every worker and waits for them: no run starts afterwards, and a
  /// run in flight waits for its I/O at most until the job's timeout.
  void stop();

  /// One job as the collector shows it.
  struct JobView {
    std::shared_ptr<const ProbeSnapshot> snapshot;
    bool stalled = false;  ///< an I/O is outstanding past its timeout now (live, not per run)
    /// The next run waits for I/O that a stopped run left in flight on the job's disks.
    bool waiting_for_drain = false;
  };
  /// The current jobs, in config order. Never blocks on a probe.
  std::vector<JobView> jobs() const;
  /// Snapshots of jobs(), for tests.
  std::vector<std::shared_ptr<const ProbeSnapshot>> snapshots() const;

 private:
  struct JobState {
    ProbeJob job;
    std::atomic<bool> stalled{false};
    std::atomic<bool> waiting_for_drain{false};
    std::shared_ptr<const ProbeSnapshot> snapshot;  // guarded by ProbeScheduler::mu_
  };
  using JobList = std::vector<std::shared_ptr<JobState>>;
  struct Worker {
    JobList jobs;
    std::shared_ptr<std::atomic<bool>> stop = std::make_shared<std::atomic<bool>>(false);
    std::thread thread;
  };
  void start_workers();  // for targets without a running worker; needs apply_mu_
  void worker(JobList jobs, std::shared_ptr<std::atomic<bool>> stop, std::chrono::nanoseconds first_delay);
  void publish(JobState& st, std::shared_ptr<const ProbeSnapshot> s);
  std::shared_ptr<const ProbeSnapshot> current(const JobState& st) const;
  bool sleep_until(std::chrono::steady_clock::time_point t, const std::atomic<bool>& stop);
  // Waits until no I/O of a stopped run is in flight on `disks`; false when stopped meanwhile.
  bool wait_for_drain(JobState& st, const std::vector<std::string>& disks, const std::atomic<bool>& stop);

  HostPaths paths_;
  mutable std::mutex mu_;  // guards states_ and every JobState::snapshot
  JobList states_;         // the current jobs in config order
  std::mutex apply_mu_;    // serialises apply/start/stop; guards workers_ and started_
  std::map<std::string, Worker> workers_;  // by target
  bool started_ = false;
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
  DiskLocks locks_;
  DutyBudget budget_;
  DrainList drains_;  // I/O that stopped runs left in flight
};

}  // namespace diskperf
