#include "collectors/probe_collector.h"

#include <limits>

#include "collectors/metric_families.h"

namespace diskperf {
namespace {

using prometheus::MetricType;
using Labels = std::vector<Label>;

Labels labels(const ProbeSnapshot& s, std::initializer_list<std::pair<std::string, std::string>> more = {}) {
  Labels l{{"probe", s.job.name}, {"target", s.job.target}};
  for (const auto& [k, v] : more) l.push_back({k, v});
  return l;
}

void add_histogram(MetricFamily& f, const ProbeOpTotals& t, const Labels& l) {
  Distribution d;
  const auto& bounds = probe_latency_buckets();
  std::uint64_t cum = 0;
  for (std::size_t i = 0; i <= bounds.size(); ++i) {
    cum += t.bucket_counts.empty() ? 0 : t.bucket_counts[i];
    d.points.emplace_back(i < bounds.size() ? bounds[i] : std::numeric_limits<double>::infinity(),
                          static_cast<double>(cum));
  }
  d.count = cum;
  d.sum = t.clat_sum_seconds;
  f.add(std::move(d), l);
}

// The ops a job's rw issues.
std::vector<std::string> ops(RwMode rw) {
  if (rw == RwMode::randrw) return {"read", "write"};
  return {has_writes(rw) ? "write" : "read"};
}

}  // namespace

std::optional<std::string> ProbeCollector::collect(Families& out) {
  const auto jobs = scheduler_->jobs();
  out.reserve(out.size() + 14);  // the references below must survive the next add_family calls
  auto& info = add_family(out, "diskperf_probe_info",
                          "Shape of a probe job (fio terms: rw, bs in bytes, iodepth); value 1", MetricType::Gauge);
  auto& ok = add_family(out, "diskperf_probe_target_ok",
                        "1 when the probe job's target passed its checks and the last run started, 0 when not "
                        "(see the log for why)",
                        MetricType::Gauge);
  auto& stalled = add_family(out, "diskperf_probe_stalled",
                             "1 while an I/O of the probe is outstanding longer than its timeout", MetricType::Gauge);
  auto& drain = add_family(out, "diskperf_probe_waiting_for_drain",
                           "1 while the probe job's next run waits for I/O that a stopped run left in flight on its "
                           "disks (no run starts until the disk has finished it)",
                           MetricType::Gauge);
  auto& runs = add_family(out, "diskperf_probe_runs_total", "Probe runs finished", MetricType::Counter);
  auto& errors = add_family(out, "diskperf_probe_errors_total",
                            "Probe I/O errors by kind: eio, timeout, short_read, short_write, submit, fatal, errno_N",
                            MetricType::Counter);
  auto& start = add_family(out, "diskperf_probe_last_run_start_timestamp_seconds",
                           "Unix time the last probe run started", MetricType::Gauge);
  auto& dur = add_family(out, "diskperf_probe_last_run_duration_seconds",
                         "Duration of the last probe run, first submit to last completion (fio's runtime)",
                         MetricType::Gauge);
  auto& ios = add_family(out, "diskperf_probe_ios_total", "Probe I/Os completed in full", MetricType::Counter);
  auto& bytes = add_family(out, "diskperf_probe_bytes_total", "Bytes transferred by probe I/Os", MetricType::Counter);
  auto& iops = add_family(out, "diskperf_probe_last_iops", "I/Os per second of the last probe run",
                          MetricType::Gauge);
  auto& bps = add_family(out, "diskperf_probe_last_bytes_per_second", "Bytes per second of the last probe run",
                         MetricType::Gauge);
  auto& pct = add_family(out, "diskperf_probe_last_clat_seconds",
                         "Completion latency (fio clat) of the last probe run: percentiles from the run's own samples "
                         "(log-linear histogram, error under 0.4%), count and sum of that run",
                         MetricType::Summary);
  auto& hist = add_family(out, "diskperf_probe_clat_seconds",
                          "Completion latency (fio clat: submission done to completion) of probe I/Os",
                          MetricType::Histogram);

  for (const auto& job : jobs) {
    const ProbeSnapshot& s = *job.snapshot;
    add_sample(info, 1,
               labels(s, {{"rw", std::string(to_string(s.job.rw))},
                          {"bs", std::to_string(s.job.bs)},
                          {"iodepth", std::to_string(s.job.iodepth)}}));
    add_sample(ok, s.error.empty() ? 1 : 0, labels(s));
    add_sample(stalled, job.stalled ? 1 : 0, labels(s));
    add_sample(drain, job.waiting_for_drain ? 1 : 0, labels(s));
    add_sample(runs, static_cast<double>(s.runs), labels(s));
    for (const char* kind : {"eio", "timeout", "short_read", "short_write"}) {
      auto it = s.errors.find(kind);
      add_sample(errors, it == s.errors.end() ? 0.0 : static_cast<double>(it->second), labels(s, {{"kind", kind}}));
    }
    for (const auto& [kind, n] : s.errors)
      if (kind != "eio" && kind != "timeout" && kind != "short_read" && kind != "short_write")
        add_sample(errors, static_cast<double>(n), labels(s, {{"kind", kind}}));
    for (const std::string& op : ops(s.job.rw)) {
      const ProbeOpTotals& t = op == "read" ? s.read_totals : s.write_totals;
      const ProbeOpLast& l = op == "read" ? s.read_last : s.write_last;
      add_sample(ios, static_cast<double>(t.ios), labels(s, {{"op", op}}));
      add_sample(bytes, static_cast<double>(t.bytes), labels(s, {{"op", op}}));
      add_histogram(hist, t, labels(s, {{"op", op}}));
      if (!s.has_last) continue;
      add_sample(iops, l.iops, labels(s, {{"op", op}}));
      add_sample(bps, l.bytes_per_second, labels(s, {{"op", op}}));
      if (l.ios == 0) continue;  // no samples, no percentiles
      Distribution d;
      d.count = l.ios;
      d.sum = l.clat_sum_seconds;
      d.points = {{0.5, l.clat_p50}, {0.9, l.clat_p90}, {0.99, l.clat_p99}, {0.999, l.clat_p999}};
      pct.add(std::move(d), labels(s, {{"op", op}}));
    }
    if (s.has_last) {
      add_sample(start, s.last_start_unix_seconds, labels(s));
      add_sample(dur, s.last_duration_seconds, labels(s));
    }
  }
  return std::nullopt;
}

}  // namespace diskperf
