#include "probes/probe_report.h"

#include <cstdio>

#include <fmt/format.h>

namespace diskperf {
namespace {

std::string pct_key(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

nlohmann::json lat_json(const LatencyHistogram& h) {
  nlohmann::json j = {{"min", h.min()}, {"max", h.max()}, {"mean", h.mean()}, {"N", h.count()}};
  nlohmann::json pct = nlohmann::json::object();
  if (h.count())
    for (double p : fio_percentiles()) pct[pct_key(p)] = h.percentile(p);
  j["percentile"] = pct;
  return j;
}

nlohmann::json op_json(const RunResult& r, const OpResult& op) {
  return {{"io_bytes", op.bytes},
          {"io_kbytes", op.bytes / 1024},
          {"bw_bytes", static_cast<std::uint64_t>(r.bytes_per_second(op))},
          {"bw", static_cast<std::uint64_t>(r.bytes_per_second(op) / 1024)},
          {"iops", r.iops(op)},
          {"runtime", op.ios ? r.runtime_ns / 1000000 : 0},
          {"total_ios", op.ios},
          {"short_ios", 0},
          {"drop_ios", 0},
          {"slat_ns", lat_json(op.slat)},
          {"clat_ns", lat_json(op.clat)},
          {"lat_ns", lat_json(op.lat)}};
}

// fio's unit choice for latency lines: usec below 10 ms... keep it simple: usec throughout.
std::string lat_line(const char* what, const LatencyHistogram& h) {
  return fmt::format("    {} (usec): min={:.1f}, max={:.1f}, avg={:.2f}\n", what, h.min() / 1e3, h.max() / 1e3,
                     h.mean() / 1e3);
}

std::string op_text(const char* name, const RunResult& r, const OpResult& op) {
  if (op.ios == 0) return "";
  std::string s = fmt::format("  {}: IOPS={:.0f}, BW={:.1f}MiB/s ({:.1f}MB/s)({:.1f}MiB/{}msec)\n", name, r.iops(op),
                              r.bytes_per_second(op) / 1048576.0, r.bytes_per_second(op) / 1e6,
                              op.bytes / 1048576.0, r.runtime_ns / 1000000);
  s += lat_line("slat", op.slat) + lat_line("clat", op.clat) + lat_line(" lat", op.lat);
  s += "    clat percentiles (usec):";
  for (double p : {50.0, 90.0, 99.0, 99.9}) s += fmt::format(" {:.2f}th=[{:.1f}]", p, op.clat.percentile(p) / 1e3);
  return s + "\n";
}

}  // namespace

const std::vector<double>& fio_percentiles() {
  static const std::vector<double> p = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  return p;
}

nlohmann::json fio_json(const ProbeJob& job, const RunResult& r) {
  nlohmann::json errors = nlohmann::json::object();
  for (const auto& [k, v] : r.errors) errors[k] = v;
  nlohmann::json j = {
      {"jobname", job.name},
      {"error", r.fatal.empty() ? 0 : 1},
      {"job options",
       {{"filename", job.target},
        {"rw", std::string(to_string(job.rw))},
        {"bs", std::to_string(job.bs)},
        {"iodepth", std::to_string(job.iodepth)},
        {"ioengine", "libaio"},
        {"direct", "1"}}},
      {"read", op_json(r, r.read)},
      {"write", op_json(r, r.write)},
      {"job_runtime", r.runtime_ns / 1000000},
      {"diskperf_errors", errors},
      {"diskperf_stalled", r.stalled},
  };
  if (!r.fatal.empty()) j["diskperf_fatal"] = r.fatal;
  return {{"fio version", "diskperf_exporter probe"}, {"jobs", nlohmann::json::array({j})}};
}

std::string fio_text(const ProbeJob& job, const RunResult& r) {
  std::string s = fmt::format("{}: (g=0): rw={}, bs={}B, ioengine=libaio, iodepth={}, target={}\n", job.name,
                              to_string(job.rw), job.bs, job.iodepth, job.target);
  if (!r.fatal.empty()) s += "  error: " + r.fatal + "\n";
  s += op_text("read", r, r.read) + op_text("write", r, r.write);
  for (const auto& [k, v] : r.errors) s += fmt::format("  errors: {}={}\n", k, v);
  if (r.stalled) s += "  stalled: an I/O outlived the timeout\n";
  return s;
}

}  // namespace diskperf
