#include "collectors/azure_facts.h"

namespace diskperf {
namespace {

// "storage;Phys. Disc to Storage Mapping" value: "<account> <disk or vhd>";
// managed disks have the account "None"; the temp disk "not mapped to vhd".
void set_mapping(AzureDiskFacts& d, const std::string& v) {
  if (v == "not mapped to vhd") return;
  const auto sp = v.find(' ');
  if (sp == std::string::npos) {
    d.disk_name = v;
    return;
  }
  const std::string account = v.substr(0, sp);
  d.storage_account = account == "None" ? "" : account;
  d.disk_name = v.substr(sp + 1);
}

}  // namespace

// The parser already refused nan, inf and out-of-range text; negatives such as
// the "-1" some writers use for "unknown" are refused here.
std::optional<double> azure_quantity(const PerfCounter& c) {
  if (!c.number || *c.number < 0) return std::nullopt;
  return c.number;
}

AzureFacts azure_facts(const PerfCountersParse& p) {
  AzureFacts f;
  for (const PerfCounter& c : p.counters) {
    if (c.category == "disk" && !c.instance.empty()) {
      AzureDiskFacts& d = f.disks[c.instance];
      if (c.name == "Storage Type") d.storage_type = c.value;
      else if (c.name == "Caching") d.caching = c.value;
      else if (c.name == "SLA") d.sla_iops = azure_quantity(c);
      else if (c.name == "SLA Throughput") d.sla_mb_per_s = azure_quantity(c);
    } else if (c.category == "storage" && c.name == "Phys. Disc to Storage Mapping" && !c.instance.empty()) {
      set_mapping(f.disks[c.instance], c.value);
    } else if (c.category == "config") {
      if (c.name == "Instance Type") f.instance_type = &c;
      else if (c.name == "Data Provider Version") f.provider_version = &c;
      else if (c.name == "Error") f.error = &c;
      else if (c.name == "SLA Max Disk IOPS per VM") f.vm_iops = azure_quantity(c);
      else if (c.name == "SLA Max Disk Bandwidth per VM") f.vm_mb_per_s = azure_quantity(c);
    }
  }
  return f;
}

}  // namespace diskperf
