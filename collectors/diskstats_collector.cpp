#include "collectors/diskstats_collector.h"

#include <sys/stat.h>

#include <array>
#include <cstdint>

#include "collectors/block_devices.h"
#include "collectors/diskstats_parser.h"
#include "collectors/metric_families.h"
#include "collectors/queue_parser.h"

namespace diskperf {
namespace {

using prometheus::MetricType;

// Unit conversion of a raw kernel value to the exported base unit.
enum class Unit {
  count,    // as is
  sectors,  // iostats.rst: always 512-byte sectors, whatever the block size -> bytes
  ms,       // milliseconds -> seconds (divided, so 66918 ms prints 66.918)
};

double convert(std::uint64_t raw, Unit u) {
  const double v = static_cast<double>(raw);
  switch (u) {
    case Unit::sectors: return v * 512.0;
    case Unit::ms: return v / 1000.0;
    default: return v;
  }
}

// One exported family: its name, help, type, the unit conversion of the
// raw kernel value, and where the raw value lives.
template <typename Stats>
struct Field {
  const char* name;
  const char* help;
  MetricType type;
  Unit unit;
  std::uint64_t Stats::*member;
};

constexpr std::array<Field<DiskIoStats>, 11> kIoFields{{
    {"diskperf_disk_reads_completed_total", "Reads completed successfully (iostats field 1).",
     MetricType::Counter, Unit::count, &DiskIoStats::reads_completed},
    {"diskperf_disk_reads_merged_total", "Adjacent reads merged (iostats field 2).",
     MetricType::Counter, Unit::count, &DiskIoStats::reads_merged},
    {"diskperf_disk_read_bytes_total", "Bytes read: sectors read (iostats field 3) x 512.",
     MetricType::Counter, Unit::sectors, &DiskIoStats::sectors_read},
    {"diskperf_disk_read_time_seconds_total", "Time spent reading (iostats field 4).",
     MetricType::Counter, Unit::ms, &DiskIoStats::read_time_ms},
    {"diskperf_disk_writes_completed_total", "Writes completed successfully (iostats field 5).",
     MetricType::Counter, Unit::count, &DiskIoStats::writes_completed},
    {"diskperf_disk_writes_merged_total", "Adjacent writes merged (iostats field 6).",
     MetricType::Counter, Unit::count, &DiskIoStats::writes_merged},
    {"diskperf_disk_written_bytes_total", "Bytes written: sectors written (iostats field 7) x 512.",
     MetricType::Counter, Unit::sectors, &DiskIoStats::sectors_written},
    {"diskperf_disk_write_time_seconds_total", "Time spent writing (iostats field 8).",
     MetricType::Counter, Unit::ms, &DiskIoStats::write_time_ms},
    {"diskperf_disk_io_now", "I/Os currently in progress (iostats field 9).",
     MetricType::Gauge, Unit::count, &DiskIoStats::ios_in_progress},
    {"diskperf_disk_io_time_seconds_total", "Time spent doing I/Os, i.e. busy time (iostats field 10).",
     MetricType::Counter, Unit::ms, &DiskIoStats::io_time_ms},
    {"diskperf_disk_io_time_weighted_seconds_total",
     "Weighted time spent doing I/Os, the integral of I/Os in progress (iostats field 11).",
     MetricType::Counter, Unit::ms, &DiskIoStats::weighted_io_time_ms},
}};

constexpr std::array<Field<DiskDiscardStats>, 4> kDiscardFields{{
    {"diskperf_disk_discards_completed_total", "Discards completed successfully (iostats field 12).",
     MetricType::Counter, Unit::count, &DiskDiscardStats::discards_completed},
    {"diskperf_disk_discards_merged_total", "Adjacent discards merged (iostats field 13).",
     MetricType::Counter, Unit::count, &DiskDiscardStats::discards_merged},
    {"diskperf_disk_discarded_bytes_total", "Bytes discarded: sectors discarded (iostats field 14) x 512.",
     MetricType::Counter, Unit::sectors, &DiskDiscardStats::sectors_discarded},
    {"diskperf_disk_discard_time_seconds_total", "Time spent discarding (iostats field 15).",
     MetricType::Counter, Unit::ms, &DiskDiscardStats::discard_time_ms},
}};

constexpr std::array<Field<DiskFlushStats>, 2> kFlushFields{{
    {"diskperf_disk_flush_requests_total", "Flush requests completed successfully (iostats field 16).",
     MetricType::Counter, Unit::count, &DiskFlushStats::flush_requests_completed},
    {"diskperf_disk_flush_requests_time_seconds_total", "Time spent flushing (iostats field 17).",
     MetricType::Counter, Unit::ms, &DiskFlushStats::flush_time_ms},
}};

constexpr std::array<Field<LegacyPartitionStats>, 4> kLegacyFields{{
    {"diskperf_disk_partition_reads_issued_total",
     "Reads issued to a partition (2.6 kernels' 4-field partition line; not completions).",
     MetricType::Counter, Unit::count, &LegacyPartitionStats::reads_issued},
    {"diskperf_disk_partition_read_issued_bytes_total",
     "Bytes of reads issued to a partition (2.6 kernels' 4-field partition line) x 512.",
     MetricType::Counter, Unit::sectors, &LegacyPartitionStats::sectors_read_issued},
    {"diskperf_disk_partition_writes_issued_total",
     "Writes issued to a partition (2.6 kernels' 4-field partition line; not completions).",
     MetricType::Counter, Unit::count, &LegacyPartitionStats::writes_issued},
    {"diskperf_disk_partition_write_issued_bytes_total",
     "Bytes of writes issued to a partition (2.6 kernels' 4-field partition line) x 512.",
     MetricType::Counter, Unit::sectors, &LegacyPartitionStats::sectors_written_issued},
}};

// Emits one family per field over every entry whose `part` is present;
// `labels[i]` is entries[i]'s {device="..."}, rendered once for all families.
template <typename Stats, std::size_t N>
void emit(Families& out, const std::array<Field<Stats>, N>& fields,
          const std::vector<DiskstatsEntry*>& entries, const std::vector<std::string>& labels,
          const std::optional<Stats> DiskstatsEntry::*part) {
  for (const auto& f : fields) {
    MetricFamily* family = nullptr;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& stats = entries[i]->*part;
      if (!stats) continue;
      if (!family) {
        family = &add_family(out, f.name, f.help, f.type);
        family->reserve(entries.size(), 16);
      }
      family->add_rendered(convert((*stats).*f.member, f.unit), labels[i]);
    }
  }
}

// What <sysfs>/class/block says `device` (a kernel name) is.
DeviceKind sysfs_kind(const std::string& sysfs, const std::string& device) {
  const std::string entry = join_path(sysfs, "class/block/" + sysfs_name(device));
  struct stat st {};
  if (::stat((entry + "/partition").c_str(), &st) == 0) return DeviceKind::partition;
  return ::stat(entry.c_str(), &st) == 0 ? DeviceKind::whole : DeviceKind::unknown;
}

// The dm uuid of a device-mapper device (a volume removed and created again may get its number
// back, not its uuid); "" for other devices or when it cannot be read.
std::string dm_uuid(const std::string& sysfs, const DiskstatsEntry& e) {
  if (!e.device.starts_with("dm-")) return {};
  FileContent f = read_file(join_path(sysfs, "block/" + sysfs_name(e.device) + "/dm/uuid"), 4096);
  return f.ok() ? trim_attr(f.data) : std::string();
}

}  // namespace

DiskstatsCollector::DiskstatsCollector(HostPaths paths, std::shared_ptr<const DeviceFilter> filter)
    : paths_(std::move(paths)),
      filter_(std::move(filter)),
      unwrap_([sysfs = paths_.sysfs](const DiskstatsEntry& e) { return dm_uuid(sysfs, e); }) {}

DeviceKind DiskstatsCollector::kind_of(const DiskstatsEntry& e, std::uint64_t generation) {
  auto [it, added] = kinds_.try_emplace(e.device);
  Kind& k = it->second;
  if (added || k.major != e.major || k.minor != e.minor)
    k = Kind{e.major, e.minor, sysfs_kind(paths_.sysfs, e.device), generation};
  k.seen = generation;
  return k.kind;
}

std::optional<std::string> DiskstatsCollector::collect(Families& out) {
  std::unique_lock read_lock(read_mu_);
  FileContent file = read_file_sized(join_path(paths_.procfs, "diskstats"), 16u << 20, size_hint_);
  if (!file.ok()) return file.error;
  DiskstatsParse parsed = parse_diskstats(file.data);

  std::vector<DiskstatsEntry*> kept;
  kept.reserve(parsed.entries.size());
  const bool kinds = filter_->uses_kind();
  const std::uint64_t generation = ++generation_;
  for (auto& e : parsed.entries) {
    if (filter_->accepts(e.device, kinds ? kind_of(e, generation) : DeviceKind::unknown)) kept.push_back(&e);
  }
  std::erase_if(kinds_, [generation](const auto& kv) { return kv.second.seen != generation; });
  unwrap_.apply(kept, !parsed.rejected.empty());
  read_lock.unlock();

  std::vector<std::string> labels;
  labels.reserve(kept.size());
  for (const DiskstatsEntry* e : kept) labels.push_back(render_labels({{"device", e->device}}));
  emit(out, kIoFields, kept, labels, &DiskstatsEntry::io);
  emit(out, kDiscardFields, kept, labels, &DiskstatsEntry::discard);
  emit(out, kFlushFields, kept, labels, &DiskstatsEntry::flush);
  emit(out, kLegacyFields, kept, labels, &DiskstatsEntry::legacy_partition);

  auto& rejected = add_family(out, "diskperf_diskstats_rejected_lines",
                              "Lines of /proc/diskstats skipped as malformed in the last read.",
                              prometheus::MetricType::Gauge);
  add_sample(rejected, static_cast<double>(parsed.rejected.size()), {});
  return std::nullopt;
}

}  // namespace diskperf
