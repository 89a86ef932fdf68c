#pragma once
// Pure parser of /proc/diskstats. Field meanings and layouts from the
// kernel's Documentation/admin-guide/iostats.rst:
//   major minor name  then N statistics fields, where N is
//   4  : 2.6 kernels' short partition lines (reads issued, sectors read,
//        writes issued, sectors written; no times, different meaning)
//   11 : up to 4.17       (fields 1-11)
//   15 : 4.18+, discards  (fields 12-15)
//   17 : 5.5+,  flushes   (fields 16-17)
//   >17: future kernels; extra columns are ignored.
// Sector counts are always in 512-byte units, whatever the device's logical
// block size; times are in milliseconds.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

/// Fields 1-11 of iostats.rst (every layout since 2.6 for whole disks).
struct DiskIoStats {
  std::uint64_t reads_completed = 0;      ///< field 1
  std::uint64_t reads_merged = 0;         ///< field 2
  std::uint64_t sectors_read = 0;         ///< field 3, 512-byte sectors
  std::uint64_t read_time_ms = 0;         ///< field 4
  std::uint64_t writes_completed = 0;     ///< field 5
  std::uint64_t writes_merged = 0;        ///< field 6
  std::uint64_t sectors_written = 0;      ///< field 7, 512-byte sectors
  std::uint64_t write_time_ms = 0;        ///< field 8
  std::uint64_t ios_in_progress = 0;      ///< field 9, a gauge
  std::uint64_t io_time_ms = 0;           ///< field 10
  std::uint64_t weighted_io_time_ms = 0;  ///< field 11
};

/// Fields 12-15 (kernel 4.18+).
struct DiskDiscardStats {
  std::uint64_t discards_completed = 0;
  std::uint64_t discards_merged = 0;
  std::uint64_t sectors_discarded = 0;
  std::uint64_t discard_time_ms = 0;
};

/// Fields 16-17 (kernel 5.5+).
struct DiskFlushStats {
  std::uint64_t flush_requests_completed = 0;
  std::uint64_t flush_time_ms = 0;
};

/// The 4-field partition line of 2.6 kernels. These count I/Os *issued* to
/// the partition, not completed, and have no merge or time fields.
struct LegacyPartitionStats {
  std::uint64_t reads_issued = 0;
  std::uint64_t sectors_read_issued = 0;
  std::uint64_t writes_issued = 0;
  std::uint64_t sectors_written_issued = 0;
};

/// One line of /proc/diskstats. Exactly one of `io` / `legacy_partition` is
/// set; `discard` and `flush` are set only when the kernel printed them.
struct DiskstatsEntry {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::string device;  ///< third token, verbatim ("dm-0", "nvme0n1p1", "cciss/c0d0")
  std::size_t field_count = 0;  ///< statistics fields after the name
  std::optional<DiskIoStats> io;
  std::optional<DiskDiscardStats> discard;
  std::optional<DiskFlushStats> flush;
  std::optional<LegacyPartitionStats> legacy_partition;
};

/// A line that was skipped, with a reason for logs and tests.
struct RejectedLine {
  std::size_t line_number = 0;  ///< 1-based
  std::string reason;
};

struct DiskstatsParse {
  std::vector<DiskstatsEntry> entries;
  std::vector<RejectedLine> rejected;
};

/// Parses the whole text of /proc/diskstats. Never throws. A malformed line
/// (too few fields, a field count no kernel printed (5-10, 12-14, 16), a
/// non-numeric or out-of-range number, a device name that is not printable
/// ASCII or longer than 128 bytes, a device already listed, or a last line
/// without its newline, i.e. a truncated read) is skipped and listed in `rejected`; other lines
/// are unaffected. Blank lines are ignored.
DiskstatsParse parse_diskstats(std::string_view text);

}  // namespace diskperf
