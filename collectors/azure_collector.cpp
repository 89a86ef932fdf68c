#include "collectors/azure_collector.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <map>

#include <spdlog/spdlog.h>

#include "collectors/azure_facts.h"
#include "collectors/metric_families.h"
#include "collectors/rewritten_file.h"

namespace diskperf {
namespace {

using prometheus::MetricType;

constexpr double kMB = 1e6;            // Azure disk and VM caps: MB/s = 10^6 B/s
constexpr double kMiB = 1024.0 * 1024;  // aem.py storageStat(): bytes / (1024*1024) / 60

double system_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The writer (aem.py EnhancedMonitor.run) writes the VM data source, then the
// storage data source (every disk), then the static data source, whose last
// counter always written is this one (only the optional VM SLA caps follow).
// A read that ends at a line boundary before it has lost lines, maybe disks.
bool has_end_marker(const PerfCountersParse& p) {
  return std::any_of(p.counters.begin(), p.counters.end(), [](const PerfCounter& c) {
    return c.category == "config" && c.name == "Virtualization Solution Version";
  });
}

// Per storage account counters: counter name -> (family index, op, scale).
struct StorageField {
  const char* counter;
  std::size_t family;
  const char* op;
  double scale;
};
constexpr std::array<StorageField, 10> kStorageFields{{
    {"Storage Read Ops", 0, "read", 1},
    {"Storage Write Ops", 0, "write", 1},
    {"Storage Read Bytes", 1, "read", 1},
    {"Storage Write Bytes", 1, "write", 1},
    {"Storage Read Op Latency E2E msec", 2, "read", 1e-3},
    {"Storage Write Op Latency E2E msec", 2, "write", 1e-3},
    {"Storage Read Op Latency Server msec", 3, "read", 1e-3},
    {"Storage Write Op Latency Server msec", 3, "write", 1e-3},
    {"Storage Read Throughput E2E MB/sec", 4, "read", kMiB},
    {"Storage Write Throughput E2E MB/sec", 4, "write", kMiB},
}};
struct StorageFamily {
  const char* name;
  const char* help;
};
constexpr std::array<StorageFamily, 5> kStorageFamilies{{
    {"diskperf_azure_storage_ops",
     "Operations (op=read|write) on the storage account in the writer's last one-minute window "
     "(PerfCounters storage;Storage Read/Write Ops; unmanaged Standard disks only)."},
    {"diskperf_azure_storage_bytes",
     "Bytes (ingress + egress) of the operations in the writer's last one-minute window "
     "(PerfCounters storage;Storage Read/Write Bytes)."},
    {"diskperf_azure_storage_e2e_latency_seconds",
     "Average end-to-end latency of the operations in the last one-minute window "
     "(PerfCounters storage;Storage Read/Write Op Latency E2E msec / 1000)."},
    {"diskperf_azure_storage_server_latency_seconds",
     "Average server latency of the operations in the last one-minute window "
     "(PerfCounters storage;Storage Read/Write Op Latency Server msec / 1000)."},
    {"diskperf_azure_storage_throughput_bytes_per_second",
     "Throughput of the last one-minute window (PerfCounters storage;Storage Read/Write Throughput E2E "
     "MB/sec, which aem.py computes in MiB/s, x 1048576)."},
}};

void emit_parse(Families& out, const PerfCountersParse& p) {
  const AzureFacts facts = azure_facts(p);
  const auto& disks = facts.disks;
  const PerfCounter* instance_type = facts.instance_type;
  const PerfCounter* provider_version = facts.provider_version;
  const PerfCounter* error = facts.error;
  const std::optional<double>& vm_iops = facts.vm_iops;
  const std::optional<double>& vm_mb_per_s = facts.vm_mb_per_s;
  std::map<std::string, std::array<std::map<std::string, double>, kStorageFamilies.size()>> accounts;
  for (const PerfCounter& c : p.counters) {  // later lines win over earlier duplicates
    if (c.category == "storage" && c.name != "Phys. Disc to Storage Mapping" && !c.instance.empty()) {
      for (const auto& f : kStorageFields) {
        if (c.name != f.counter) continue;
        auto& fam = accounts[c.instance][f.family];
        if (auto v = azure_quantity(c)) fam[f.op] = *v * f.scale;
        else fam.erase(f.op);
      }
    }
  }

  auto& info = add_family(out, "diskperf_azure_disk_info",
                          "Azure identity of a disk: storage_type (Premium/Standard), caching "
                          "(None/ReadOnly/ReadWrite), storage_account (empty for managed disks) and disk_name "
                          "(managed disk or VHD name; both empty for the temp disk). PerfCounters disk;Storage "
                          "Type, disk;Caching, storage;Phys. Disc to Storage Mapping.",
                          MetricType::Gauge);
  auto& iops = add_family(out, "diskperf_azure_disk_sla_iops",
                          "Provisioned IOPS cap of the disk (PerfCounters disk;SLA; Premium disks only).",
                          MetricType::Gauge);
  auto& tput = add_family(out, "diskperf_azure_disk_sla_throughput_bytes_per_second",
                          "Provisioned throughput cap of the disk in bytes per second (PerfCounters disk;SLA "
                          "Throughput MB/sec x 10^6; Premium disks only).",
                          MetricType::Gauge);
  for (const auto& [dev, d] : disks) {
    add_sample(info, 1, {{"device", dev}, {"storage_type", d.storage_type}, {"caching", d.caching},
                         {"storage_account", d.storage_account}, {"disk_name", d.disk_name}});
    if (d.sla_iops) add_sample(iops, *d.sla_iops, {{"device", dev}});
    if (d.sla_mb_per_s) add_sample(tput, *d.sla_mb_per_s * kMB, {{"device", dev}});
  }

  auto& vm = add_family(out, "diskperf_azure_vm_info",
                        "The VM size (PerfCounters config;Instance Type) and the extension's data provider "
                        "version (config;Data Provider Version).",
                        MetricType::Gauge);
  if (instance_type || provider_version) {
    add_sample(vm, 1, {{"instance_type", instance_type ? instance_type->value : ""},
                       {"data_provider_version", provider_version ? provider_version->value : ""}});
  }
  auto& vm_iops_f = add_family(out, "diskperf_azure_vm_sla_iops",
                               "VM-level disk IOPS cap (PerfCounters config;SLA Max Disk IOPS per VM).",
                               MetricType::Gauge);
  if (vm_iops) add_sample(vm_iops_f, *vm_iops, {});
  auto& vm_tput_f = add_family(out, "diskperf_azure_vm_sla_throughput_bytes_per_second",
                               "VM-level disk throughput cap in bytes per second (PerfCounters config;SLA Max "
                               "Disk Bandwidth per VM, in MB/s though its unit says Ops/sec, x 10^6).",
                               MetricType::Gauge);
  if (vm_mb_per_s) add_sample(vm_tput_f, *vm_mb_per_s * kMB, {});
  auto& err = add_family(out, "diskperf_azure_config_error",
                         "The extension's last error (PerfCounters config;Error): 0 healthy, 1 an error, "
                         "whose text is the error label.",
                         MetricType::Gauge);
  if (error && !error->value.empty()) {
    if (error->number && *error->number == 0) add_sample(err, 0, {});
    else add_sample(err, 1, {{"error", error->value}});
  }

  std::array<MetricFamily*, kStorageFamilies.size()> sf{};
  for (std::size_t i = 0; i < sf.size(); ++i) {
    sf[i] = &add_family(out, kStorageFamilies[i].name, kStorageFamilies[i].help, MetricType::Gauge);
  }
  for (const auto& [account, fams] : accounts) {
    for (std::size_t i = 0; i < fams.size(); ++i) {
      for (const auto& [op, v] : fams[i]) add_sample(*sf[i], v, {{"storage_account", account}, {"op", op}});
    }
  }
}

}  // namespace

AzureCollector::AzureCollector(std::string perfcounters_file, Clock now)
    : path_(std::move(perfcounters_file)), now_(now ? std::move(now) : Clock(system_now)) {}

std::shared_ptr<const PerfCountersParse> AzureCollector::last_parse() const {
  auto snap = last_good();
  if (!snap) return nullptr;
  return std::shared_ptr<const PerfCountersParse>(snap, &snap->parse);
}

std::shared_ptr<const AzureCollector::Snapshot> AzureCollector::last_good() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_good_;
}

std::optional<std::string> AzureCollector::collect(Families& out) {
  RewrittenFileRead file = read_rewritten_file(path_, kMaxFileBytes);
  const double now = now_();
  // References returned by add_family are held while later families are
  // added: reserve room for all of this collector's families first.
  constexpr std::size_t kMaxFamilies = 24;
  out.reserve(out.size() + kMaxFamilies);
  [[maybe_unused]] const std::size_t capacity = out.capacity();

  auto& present = add_family(out, "diskperf_azure_perfcounters_present",
                             "Whether the PerfCounters file exists (1) or not (0; normal off Azure and with the "
                             "newer Azure Extension for SAP).",
                             MetricType::Gauge);
  auto& torn = add_family(out, "diskperf_azure_perfcounters_torn_reads_total",
                          "Reads of the PerfCounters file that caught it empty or half written (the extension "
                          "rewrites it in place); the last good parse was served instead.",
                          MetricType::Counter);
  if (file.status == ReadStatus::absent) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_good_.reset();  // the extension is gone: its disks go too
    }
    spdlog::debug("azure: {} absent", path_);
    add_sample(present, 0, {});
    add_sample(torn, static_cast<double>(torn_reads_.load()), {});
    return std::nullopt;
  }
  add_sample(present, 1, {});

  std::shared_ptr<const Snapshot> snap;
  std::optional<std::string> failure;
  if (!file.ok()) {
    failure = file.error;
    snap = last_good();
  } else {
    auto fresh = std::make_shared<Snapshot>();
    fresh->parse = parse_perfcounters(file.data);
    fresh->has_end_marker = has_end_marker(fresh->parse);
    std::lock_guard<std::mutex> lock(mu_);
    // Content without the writer's last block is a read that ended at a line
    // boundary mid-write, unless no complete file was ever seen (a writer
    // version without that block) and the writer is not at work right now.
    const bool settled = now - file.mtime_s >= kSettleSeconds;
    const bool lost_lines =
        !fresh->has_end_marker && ((last_good_ && last_good_->has_end_marker) || !settled);
    if (file.data.empty() || fresh->parse.ends_mid_line || file.changed_during_read || lost_lines) {
      torn_reads_.fetch_add(1);
      snap = last_good_;
      spdlog::debug("azure: torn read of {} ({} bytes), serving the last good parse", path_, file.data.size());
    } else {
      if (fresh->parse.rejected_lines > 0) {
        spdlog::debug("azure: {} rejected line(s) in {}, first: line {}: {}", fresh->parse.rejected_lines, path_,
                      fresh->parse.rejected.front().line_number, fresh->parse.rejected.front().reason);
      }
      last_good_ = fresh;
      snap = std::move(fresh);
    }
  }
  add_sample(torn, static_cast<double>(torn_reads_.load()), {});

  double refresh = 0;
  std::optional<double> newest;
  if (snap) {
    for (const auto& c : snap->parse.counters) {
      refresh = std::max(refresh, static_cast<double>(c.refresh_interval_s));
      const auto ts = static_cast<double>(c.timestamp);
      if (!newest || ts > *newest) newest = ts;
    }
  }
  if (refresh <= 0) refresh = kDefaultRefreshSeconds;
  double oldest_age = -1;
  if (file.ok()) {
    add_sample(add_family(out, "diskperf_azure_perfcounters_mtime_seconds",
                          "Modification time of the PerfCounters file, Unix seconds.", MetricType::Gauge),
               file.mtime_s, {});
    add_sample(add_family(out, "diskperf_azure_perfcounters_mtime_age_seconds",
                          "Seconds since the PerfCounters file was last modified.", MetricType::Gauge),
               now - file.mtime_s, {});
    oldest_age = now - file.mtime_s;
  }
  if (snap) {
    const auto& p = snap->parse;
    add_sample(add_family(out, "diskperf_azure_perfcounters_counters",
                          "Counters parsed in the PerfCounters content being served.", MetricType::Gauge),
               static_cast<double>(p.counters.size()), {});
    add_sample(add_family(out, "diskperf_azure_perfcounters_rejected_lines",
                          "Malformed lines skipped in the PerfCounters content being served.", MetricType::Gauge),
               static_cast<double>(p.rejected_lines), {});
    if (newest) {
      add_sample(add_family(out, "diskperf_azure_perfcounters_timestamp_seconds",
                            "Newest counter timestamp (field 9) in the PerfCounters content being served, Unix "
                            "seconds.",
                            MetricType::Gauge),
                 *newest, {});
      add_sample(add_family(out, "diskperf_azure_perfcounters_timestamp_age_seconds",
                            "Seconds since the newest counter timestamp in the PerfCounters content served.",
                            MetricType::Gauge),
                 now - *newest, {});
      oldest_age = std::max(oldest_age, now - *newest);
    }
  }
  if (oldest_age >= 0) {
    add_sample(add_family(out, "diskperf_azure_perfcounters_stale",
                          "1 when the PerfCounters content is older (by file mtime or by the newest counter "
                          "timestamp) than 3 refresh intervals (180 s): the extension stopped updating it. "
                          "Still served.",
                          MetricType::Gauge),
               oldest_age > kStaleIntervals * refresh ? 1 : 0, {});
  }
  if (snap) emit_parse(out, snap->parse);
  assert(out.capacity() == capacity);  // no reallocation: kMaxFamilies is enough
  return failure;
}

}  // namespace diskperf
