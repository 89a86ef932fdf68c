#pragma once
// What the Azure Enhanced Monitoring PerfCounters file says about each disk and the VM, read from
// a parse (collectors/perfcounters_parser.h): storage type, caching, managed disk name, SLA caps;
// the VM size and its caps. Pure. Source: aem.py's StorageDataSource / StaticDataSource counters
// (disk;Storage Type, disk;Caching, disk;SLA, disk;SLA Throughput, storage;Phys. Disc to Storage
// Mapping, config;Instance Type, config;SLA Max Disk IOPS per VM, config;SLA Max Disk Bandwidth
// per VM). Used by the azure collector (export) and the tier resolver (caps by source).

#include <map>
#include <optional>
#include <string>

#include "collectors/perfcounters_parser.h"

namespace diskperf {

struct AzureDiskFacts {
  std::string storage_type;     ///< "Premium", "Standard"
  std::string caching;          ///< "None", "ReadOnly", "ReadWrite"
  std::string storage_account;  ///< empty for managed disks ("None" in the file)
  std::string disk_name;        ///< managed disk or VHD name
  std::optional<double> sla_iops;     ///< disk;SLA (Premium only)
  std::optional<double> sla_mb_per_s;  ///< disk;SLA Throughput, MB/s (10^6 B/s)
};

struct AzureFacts {
  std::map<std::string, AzureDiskFacts> disks;  ///< by kernel name ("sdc")
  const PerfCounter* instance_type = nullptr;   ///< config;Instance Type (points into the parse)
  const PerfCounter* provider_version = nullptr;
  const PerfCounter* error = nullptr;
  std::optional<double> vm_iops;      ///< config;SLA Max Disk IOPS per VM
  std::optional<double> vm_mb_per_s;  ///< config;SLA Max Disk Bandwidth per VM, MB/s
};

/// Reads the facts; later lines win over earlier duplicates; negative or non-numeric caps are unset.
/// The result points into `parse`, which must outlive it.
AzureFacts azure_facts(const PerfCountersParse& parse);

/// A counter value usable as a non-negative quantity, or nullopt.
std::optional<double> azure_quantity(const PerfCounter& c);

}  // namespace diskperf
