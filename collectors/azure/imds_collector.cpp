#include "collectors/azure/imds_collector.h"

#include <cmath>
#include <set>

#include "collectors/lazy_family.h"
#include "collectors/metric_families.h"

namespace diskperf {
namespace {

using prometheus::MetricType;

constexpr double kGiB = 1024.0 * 1024 * 1024;  // Azure's "GB" disk sizes are GiB
// Longest label value taken from the document (Azure resource names are at most 80 characters).
constexpr std::size_t kMaxLabelBytes = 256;

// A label value from the network. The exposition escapes \, " and newline and replaces invalid
// UTF-8, but writes other control characters as they are: those become U+FFFD here; and a value
// is cut (at a character boundary) so that a hostile document cannot bloat every scrape.
std::string label_value(std::string_view v) {
  if (v.size() > kMaxLabelBytes) {
    std::size_t cut = kMaxLabelBytes;
    while (cut > 0 && (static_cast<unsigned char>(v[cut]) & 0xc0) == 0x80) --cut;
    v = v.substr(0, cut);
  }
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += "\xEF\xBF\xBD";
    else out += c;
  }
  return out;
}

struct DocumentFamilies {
  LazyFamily vm, disk, size;
  explicit DocumentFamilies(Families& out)
      : vm(out, "diskperf_azure_imds_vm_info",
           "The VM as the Azure Instance Metadata Service describes it: vm_size (compute.vmSize), location and "
           "availability zone (empty when none).",
           MetricType::Gauge),
        disk(out, "diskperf_azure_imds_disk_info",
             "Each disk IMDS lists (storageProfile.osDisk: role=\"os\", lun empty; dataDisks[]: role=\"data\"): "
             "managed disk name, managedDisk.storageAccountType (Premium_LRS, UltraSSD_LRS, ...), caching "
             "(None/ReadOnly/ReadWrite) and write_accelerator (true/false).",
             MetricType::Gauge),
        size(out, "diskperf_azure_imds_disk_size_bytes",
             "Size of each disk IMDS lists, in bytes (diskSizeGB x 2^30).", MetricType::Gauge) {
    vm.seldom_changes();
    disk.seldom_changes();
    size.seldom_changes();
  }

  void add_disk(const ImdsDisk& d, std::string_view role) {
    const std::string lun = d.lun ? std::to_string(*d.lun) : "";
    disk.add(1, {{"role", role},
                 {"lun", lun},
                 {"name", label_value(d.name)},
                 {"storage_account_type", label_value(d.storage_account_type)},
                 {"caching", label_value(d.caching)},
                 {"write_accelerator", d.write_accelerator ? "true" : "false"}});
    if (d.disk_size_gb) size.add(std::round(*d.disk_size_gb * kGiB), {{"role", role}, {"lun", lun}});
  }
};

void emit_document(Families& out, const ImdsCompute& c) {
  DocumentFamilies f(out);
  f.vm.add(1, {{"vm_size", label_value(c.vm_size)},
               {"location", label_value(c.location)},
               {"zone", label_value(c.zone)}});
  if (c.os_disk) f.add_disk(*c.os_disk, "os");
  // A LUN listed twice would give two series with the same labels: the first one is kept.
  std::set<unsigned> seen;
  for (const ImdsDisk& d : c.data_disks) {
    if (d.lun && seen.insert(*d.lun).second) f.add_disk(d, "data");
  }
}

}  // namespace

std::optional<std::string> ImdsCollector::collect(Families& out) {
  const std::shared_ptr<const ImdsState> s = watcher_->state();
  // Health families, always there; add_family's reference is used before the next one is added.
  add_sample(add_family(out, "diskperf_azure_imds_up",
                        "Whether the last request to the Azure Instance Metadata Service succeeded and its "
                        "compute document parsed (1) or not (0; the last good document is still served).",
                        MetricType::Gauge),
             s->up ? 1 : 0, {});
  add_sample(add_family(out, "diskperf_azure_imds_last_success_timestamp_seconds",
                        "When a request to IMDS last succeeded, Unix seconds (0: never).", MetricType::Gauge),
             s->last_success_unix, {});
  add_sample(add_family(out, "diskperf_azure_imds_requests_total",
                        "Requests made to IMDS since the exporter started.", MetricType::Counter),
             static_cast<double>(s->requests), {});
  add_sample(add_family(out, "diskperf_azure_imds_request_failures_total",
                        "Requests to IMDS that failed (no answer, an HTTP error, or a document that does not "
                        "parse) since the exporter started.",
                        MetricType::Counter),
             static_cast<double>(s->failures), {});
  if (s->compute) emit_document(out, *s->compute);
  // IMDS being down is diskperf_azure_imds_up 0, not a failed collector: its last state was read.
  return std::nullopt;
}

}  // namespace diskperf
