#pragma once
// Reading a file that its writer truncates and rewrites in place (no temp
// file, no rename), such as the Azure Enhanced Monitoring PerfCounters file:
// the whole file in one pass, with the metadata needed to tell a torn read.

#include <cstddef>
#include <string>

#include "collectors/host_fs.h"

namespace diskperf {

/// One read of a whole file, with fstat(2) taken before and after it.
struct RewrittenFileRead {
  ReadStatus status = ReadStatus::ok;  ///< absent (ENOENT/ENOTDIR) is not an error for callers
  std::string data;                    ///< bytes read (empty unless ok)
  std::string error;                   ///< "open /x: Permission denied", set unless ok
  double mtime_s = 0;                  ///< st_mtim after the read, Unix seconds (ns precision)
  /// Size or mtime changed between the two fstat calls, or the size after the
  /// read differs from the bytes read: the writer was at work during the read.
  bool changed_during_read = false;
  bool ok() const { return status == ReadStatus::ok; }
};

/// Opens `path` once and reads it to EOF with read(2) into one buffer, at
/// most `max_bytes` (more gives ReadStatus::too_large; a directory or other
/// non-regular file gives ReadStatus::other). Never throws.
RewrittenFileRead read_rewritten_file(const std::string& path, std::size_t max_bytes);

}  // namespace diskperf
