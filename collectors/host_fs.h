#pragma once
// Host access: the one place that reads procfs, sysfs and other host files.
// Every path is resolved under a configurable root (--path.procfs,
// --path.sysfs, ...), so the same code reads this host or a fixture tree.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

/// Roots of the host trees the collectors read. Defaults are the real host.
struct HostPaths {
  std::string procfs = "/proc";  ///< --path.procfs
  std::string sysfs = "/sys";    ///< --path.sysfs
  std::string devfs = "/dev";    ///< --path.devfs (udev links under disk/)
};

/// Why a host read failed. `absent`: the path does not exist (ENOENT,
/// ENOTDIR: normal for optional attributes); `vanished`: it existed but went
/// away mid-read (ENODEV, ENXIO: a device detached); `denied`: EACCES/EPERM;
/// `too_large`: over the caller's size bound; `other`: any other errno.
enum class ReadStatus { ok, absent, vanished, denied, too_large, other };

/// The ReadStatus of an errno from open/read/stat (ENOENT -> absent, ...).
ReadStatus classify_errno(int err);

/// Result of reading one file whole.
struct FileContent {
  ReadStatus status = ReadStatus::ok;
  std::string data;   ///< bytes read (empty unless status == ok)
  std::string error;  ///< "open /proc/diskstats: No such file or directory"
  bool ok() const { return status == ReadStatus::ok; }
};

/// Joins a root and a path below it ("/sys" + "block/sda" -> "/sys/block/sda").
std::string join_path(std::string_view root, std::string_view rel);

/// Reads a file whole with read(2) until EOF (procfs and sysfs report size 0,
/// so stat sizes are not trusted). Reads at most `max_bytes`; a longer file
/// gives ReadStatus::too_large. Never throws.
FileContent read_file(const std::string& path, std::size_t max_bytes = 16u << 20);

/// Names in a directory, without "." and "..", unsorted. Empty when the
/// directory is absent or unreadable; `status` (if given) says which.
std::vector<std::string> list_dir(const std::string& path, ReadStatus* status = nullptr);

/// Target of a symbolic link, or empty if `path` is not a readable link.
std::string read_link(const std::string& path);

}  // namespace diskperf
