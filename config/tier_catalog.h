#pragma once
// Disk tiers and VM sizes: the caps a cloud disk or VM is sold with. Pure code: CSV text in,
// typed tables out. Built in: config/tiers.csv (Premium SSD P1-P80, Standard SSD E1-E80, Standard
// HDD S4-S80) and config/vm_sizes.csv (every Azure VM size of the azure-compute-docs size pages),
// compiled into the binary (cmake/embed_text.cmake); each row names its source page. MB/s are
// 10^6 bytes/s (Azure's unit); caps here are in bytes/s.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

/// How a disk may exceed its provisioned caps (Azure "disk bursting"): `credit` (P1-P20, E1-E30:
/// automatic, up to 30 min from accumulated credits), `on_demand` (P30 and up: only when enabled on
/// the disk, billed), `none`.
enum class BurstModel { none, credit, on_demand };
std::string_view to_string(BurstModel m);

/// One tier (SKU) and its caps.
struct DiskTier {
  std::string name;    ///< "P30", or a custom tier's name
  std::string family;  ///< premium_ssd, standard_ssd, standard_hdd, premium_ssd_v2, ultra, custom
  std::optional<double> size_gib;
  double iops = 0;              ///< provisioned IOPS
  double bytes_per_second = 0;  ///< provisioned throughput, bytes/s (MB/s x 10^6)
  std::optional<double> burst_iops;              ///< burst IOPS cap (absent: no bursting)
  std::optional<double> burst_bytes_per_second;  ///< burst throughput cap, bytes/s
  BurstModel burst_model = BurstModel::none;
  std::optional<double> burst_duration_seconds;  ///< credit bursting: 30 min; unset: unlimited
  std::string source;  ///< where the numbers come from (the CSV's source column, or "config")
};

/// One VM size and its remote (data) disk caps (uncached: I/O that bypasses the host cache). A cap
/// the source does not give is unset: the VM has no known cap there.
struct VmSize {
  std::string name;  ///< "Standard_E32s_v3"
  std::optional<unsigned> vcpu;
  std::optional<double> mem_gib;
  std::optional<double> uncached_iops;
  std::optional<double> uncached_bytes_per_second;
  std::optional<double> burst_uncached_iops;
  std::optional<double> burst_uncached_bytes_per_second;
  std::optional<double> cached_iops;  ///< cached and temp storage
  std::optional<double> cached_bytes_per_second;
  std::optional<double> cache_gib;  ///< host cache size
  std::optional<double> premium_v2_ultra_iops;  ///< uncached Premium SSD v2 and Ultra Disk (non-burst)
  std::optional<double> premium_v2_ultra_bytes_per_second;
  std::optional<unsigned> max_data_disks;
  std::string disk_controller;  ///< "NVMe" (NVMe only), "SCSI, NVMe" (either), "" (SCSI)
  std::string source;
};

/// A table parsed from CSV, or the errors ("line 3: column iops: 'x' is not a number").
template <typename T>
struct TableParse {
  std::vector<T> rows;
  std::vector<std::string> errors;
};

/// Splits CSV text (RFC 4180: quoted fields with "" escapes, LF or CRLF) into rows of fields.
std::vector<std::vector<std::string>> split_csv(std::string_view text);

/// Parses config/tiers.csv's layout: a header naming at least sku, family, size_gib, iops, mbps,
/// burst_iops, burst_mbps, burst_model, burst_duration_min, source (any order). burst_model: credit,
/// on-demand..., none; empty burst columns mean no bursting.
TableParse<DiskTier> parse_tier_csv(std::string_view text);

/// Parses config/vm_sizes.csv's layout: a header naming vm_size, vcpu, mem_gib, max_data_disks,
/// uncached_iops, uncached_mbps, burst_uncached_iops, burst_uncached_mbps, cached_iops, cached_mbps,
/// cache_gib, premium_v2_ultra_iops, premium_v2_ultra_mbps, disk_controller, source (any order). An
/// empty cell is an unknown value; a cell that is not a number, a disk_controller other than "",
/// "NVMe" or "SCSI, NVMe", and a name given twice (in any case) are errors.
TableParse<VmSize> parse_vm_csv(std::string_view text);

/// Premium SSD v2 and Ultra Disk caps are provisioned per disk; these check a disk's caps against
/// the formulas of MicrosoftDocs azure-compute-docs articles/virtual-machines/disks-types.md
/// (config/... reference azure_disk_configurable.csv). Returns the problems, empty when valid.
///  premium_ssd_v2: size 1-65536 GiB; IOPS 3000 .. min(80000, max(3000, 500 x GiB));
///                  MB/s 125 .. min(2000, max(125, 0.25 x IOPS)).
///  ultra:          size 4-65536 GiB; IOPS 100 .. min(400000, 1000 x GiB);
///                  MB/s 1 .. min(10000, 0.25 x IOPS).
/// `size_gib` may be absent (only the size-independent bounds are checked then).
std::vector<std::string> validate_configurable_caps(std::string_view family, std::optional<double> size_gib,
                                                    double iops, double mb_per_s);

/// The built-in tables (parsed once from the embedded CSVs; a parse error there is a build defect
/// caught by the unit tests and leaves the table empty).
const std::vector<DiskTier>& builtin_tiers();
const std::vector<VmSize>& builtin_vm_sizes();

/// Case-insensitive lookup by name in a table; nullptr when absent. The built-in VM table is
/// looked up through an index built once (it is read at every scrape).
const DiskTier* find_tier(const std::vector<DiskTier>& tiers, std::string_view name);
const VmSize* find_vm_size(const std::vector<VmSize>& sizes, std::string_view name);

/// The names of `sizes` nearest to `name` by edit distance (Levenshtein, case-insensitive), at most
/// `n`, nearest first; among equally near names, a longer common prefix first (the same series
/// before another family letter), then table order. What an unknown VM size is reported with.
/// Only the first 128 characters of `name` are compared (no size name is longer).
std::vector<std::string> nearest_vm_sizes(const std::vector<VmSize>& sizes, std::string_view name,
                                          std::size_t n = 3);

/// The built-in tiers of `family` whose provisioned caps equal (iops, bytes/s), e.g. P40 and P50
/// for 7500 IOPS and 250 MB/s: how a tier is recognised from PerfCounters SLA values.
std::vector<const DiskTier*> tiers_with_caps(std::string_view family, double iops, double bytes_per_second);

}  // namespace diskperf
