#pragma once
// Pure parsers of block-device queue attributes in sysfs, as documented in
// the kernel's Documentation/ABI/stable/sysfs-block and
// Documentation/block/queue-sysfs.rst (text in, typed values out; no I/O).
//   /sys/block/<dev>/size                 512-byte sectors, whatever the block size
//   /sys/block/<dev>/inflight             "<reads> <writes>" requests in flight now
//   /sys/block/<dev>/queue/*_kb           KiB (1024 bytes)
//   /sys/block/<dev>/queue/scheduler      "none [mq-deadline] kyber": bracketed = active
//   /sys/block/<dev>/device/queue_depth   SCSI only (drivers/scsi/scsi_sysfs.c)

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/text.h"  // parse_u64, used with the parsers below

namespace diskperf {

/// `inflight`: requests issued to the driver and not yet completed.
struct Inflight {
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
};

/// `value` x `factor`, or std::nullopt when it does not fit in 64 bits.
std::optional<std::uint64_t> scale_u64(std::optional<std::uint64_t> value, std::uint64_t factor);

/// Text with leading/trailing whitespace removed (SCSI model/vendor are
/// space-padded: "Virtual Disk    \n" -> "Virtual Disk").
std::string trim_attr(std::string_view text);

/// Active scheduler of queue/scheduler: the bracketed entry, or the single
/// entry when the kernel lists one without brackets ("none" on bio-based
/// devices). std::nullopt for empty or malformed text (unbalanced brackets,
/// several entries and none bracketed).
std::optional<std::string> parse_active_scheduler(std::string_view text);

/// `inflight`: exactly two integers. std::nullopt otherwise.
std::optional<Inflight> parse_inflight(std::string_view text);

/// LUN of an Azure udev link name under /dev/disk/azure/scsi1: "lun12" -> 12.
/// std::nullopt for partition links ("lun0-part1") and anything else.
std::optional<unsigned> parse_azure_lun(std::string_view link_name);

/// Kernel device name a /dev link points at: last path component of its
/// target ("../../sdc" -> "sdc"). Empty when the target is empty.
std::string link_target_name(std::string_view target);

/// One line of /proc/partitions (block/genhd.c, show_partition): "major minor #blocks name", where
/// #blocks is the size in 1 KiB units (512-byte sectors >> 1, so an odd sector is dropped).
struct ProcPartition {
  std::string name;
  std::uint64_t kib = 0;
};

/// /proc/partitions: its lines of four fields whose first three are integers; the header
/// ("major minor  #blocks  name"), blank and malformed lines are skipped.
std::vector<ProcPartition> parse_proc_partitions(std::string_view text);

/// Raw sysfs attribute texts of one device, keyed by path relative to
/// /sys/block/<dev> ("queue/nr_requests", "device/queue_depth"). An
/// unreadable attribute is simply not in the map.
using SysfsAttrs = std::map<std::string, std::string, std::less<>>;

/// Typed queue settings of one device, in base units. A field is empty when
/// its attribute was absent or did not parse (never 0 for "unknown").
struct QueueSettings {
  std::optional<std::uint64_t> queue_depth;           ///< device/queue_depth (SCSI)
  std::optional<std::uint64_t> nr_requests;           ///< queue/nr_requests
  std::optional<std::uint64_t> max_sectors_bytes;     ///< queue/max_sectors_kb x 1024
  std::optional<std::uint64_t> max_hw_sectors_bytes;  ///< queue/max_hw_sectors_kb x 1024
  std::optional<std::uint64_t> read_ahead_bytes;      ///< queue/read_ahead_kb x 1024
  std::optional<std::uint64_t> logical_block_size;    ///< queue/logical_block_size, bytes
  std::optional<std::uint64_t> physical_block_size;   ///< queue/physical_block_size, bytes
  std::optional<std::uint64_t> minimum_io_size;       ///< queue/minimum_io_size, bytes
  std::optional<std::uint64_t> optimal_io_size;       ///< queue/optimal_io_size, bytes (0: none reported)
  std::optional<std::uint64_t> rotational;            ///< queue/rotational, 0 or 1
  std::optional<std::uint64_t> size_bytes;            ///< size x 512
  std::optional<Inflight> inflight;                   ///< inflight
  std::optional<std::string> scheduler;               ///< active entry of queue/scheduler
  std::optional<std::string> write_cache;             ///< queue/write_cache ("write back")
  std::optional<std::string> model;                   ///< device/model, trimmed
  std::optional<std::string> vendor;                  ///< device/vendor, trimmed
  std::optional<std::string> wwid;                    ///< wwid (NVMe) or device/wwid (SCSI)
};

/// Builds QueueSettings from raw attribute texts. Never throws; garbage in
/// one attribute leaves only that field empty. Empty strings are not kept.
QueueSettings parse_queue_settings(const SysfsAttrs& attrs);

/// Parses one attribute's text (`name` keyed as in SysfsAttrs) into the field
/// of `q` it defines, as parse_queue_settings does; a name that defines no
/// field is ignored, and garbage leaves that field empty (std::nullopt), except
/// that an empty `wwid` keeps a `device/wwid` parsed before it (`wwid` is
/// preferred over `device/wwid` whatever the order). For the queue collector,
/// which reads attributes one by one into QueueSettings without building a map.
void parse_queue_attr(std::string_view name, std::string_view text, QueueSettings& q);

}  // namespace diskperf
