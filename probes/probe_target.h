#pragma once
// What a probe job's target is (block device, regular file, or directory that
// holds the exporter's probe file), its size and logical block size, and the
// physical disks under it; the safety rules that check a job against it; and
// the probe file that write jobs are confined to.

#include <cstdint>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "collectors/host_fs.h"
#include "probes/probe_job.h"

namespace diskperf {

enum class TargetKind { block_device, regular_file, directory, missing, other };

struct TargetInfo {
  TargetKind kind = TargetKind::missing;
  std::uint64_t size = 0;                 ///< bytes: BLKGETSIZE64 for a device, st_size for a file
  std::uint32_t logical_block_size = 512;  ///< BLKSSZGET, or sysfs queue/logical_block_size of the fs's disk
  /// Kernel names of the whole disks under the target (partition -> disk, dm/md -> its slaves,
  /// recursively; sysfs block/<dev>/slaves). Two jobs sharing one are never run at once.
  std::vector<std::string> disks;
  std::string error;  ///< why inspection failed ("stat /dev/x: No such file or directory")
};

/// Stats `path` (no I/O on the device; a block device is opened read-only for its ioctls).
TargetInfo inspect_target(const std::string& path, const HostPaths& paths);

/// The probe file the exporter owns for job `job_name` in directory `dir`.
std::string probe_file_path(const std::string& dir, const std::string& job_name);

/// Share of a file system that laying out a probe file must leave free (a probe must never fill
/// the volume a database lives on).
inline constexpr std::uint64_t kProbeFileMinFreePercent = 10;

/// Why laying out `need` more bytes at `path` is refused: when they do not fit in `free_bytes`
/// (statvfs f_bavail x f_frsize) with kProbeFileMinFreePercent of `fs_bytes` (f_blocks x f_frsize)
/// left over. Empty when it fits or `need` is 0. Pure.
std::string probe_file_space_error(const std::string& path, std::uint64_t need, std::uint64_t free_bytes,
                                   std::uint64_t fs_bytes);

/// Why `st` (of the file at `path`) is not the exporter's own probe file: not a regular file, more
/// than one link (a hard link to another file), or another owner than this process's effective
/// uid. Empty when it is.
std::string own_probe_file_error(const std::string& path, const struct stat& st);

/// For a write job on a directory target: why what already is at its probe file path (a symbolic
/// link, a hard link, a FIFO, another user's file) is not the exporter's own file. Empty when nothing
/// is there, when it is the exporter's file, or for other jobs. Only lstat: nothing is opened,
/// followed or created.
std::string existing_probe_file_error(const ProbeJob& job, TargetKind kind);

/// Creates (or reuses, when it exists with the right size) the probe file and lays it out by
/// writing real data with O_DIRECT + fdatasync, so reads of it reach the disk (reads of
/// never-written extents do not). Returns an empty string, or the error: own_probe_file_error for
/// anything at `path` that is not the exporter's own file (a symbolic link is never followed, a
/// FIFO never blocks), probe_file_space_error when its file system would be left with less than
/// 10% free, or the failing call.
std::string prepare_probe_file(const std::string& path, std::uint64_t size);

/// The safety rules, pure: an empty list when `job` may run against `target` (already
/// resolved: for a directory target, `target` describes the probe file to be). Errors:
/// a write job against a block device or an existing file not made by the exporter; bs not a
/// multiple of the logical block size; region outside the target.
std::vector<std::string> check_job_against_target(const ProbeJob& job, const TargetInfo& target);

/// The region [offset, offset+size) actually probed (size 0 means to the end), in bytes.
struct Region {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};
Region job_region(const ProbeJob& job, std::uint64_t target_size);

}  // namespace diskperf

namespace diskperf {

/// A job made ready to run: the path opened (device, file, or the laid-out probe file), its
/// region, the buffer alignment, and the disks it occupies; or the errors that forbid it.
struct ResolvedJob {
  std::string path;
  Region region;
  std::uint32_t alignment = 4096;
  std::vector<std::string> disks;
  std::vector<std::string> errors;
  bool ok() const { return errors.empty(); }
};

/// Inspects the target, applies check_job_against_target, and for a directory target creates
/// and lays out the probe file (prepare_probe_file).
ResolvedJob resolve_job(const ProbeJob& job, const HostPaths& paths);

}  // namespace diskperf
