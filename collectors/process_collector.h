#pragma once
// process collector: the standard process_* metrics every Prometheus
// exporter serves, for this process, from /proc/self/stat (proc(5)),
// stat(2) of /proc/self/fd (Linux 6.2+), else /proc/self/status (FDSize) and
// poll(2), else a listing of /proc/self/fd, /proc/stat (btime) and
// getrlimit(RLIMIT_NOFILE).

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>

#include "collectors/collector.h"

namespace diskperf {

/// Open descriptors of this process as the kernel counts them: st_size of
/// stat(2) on `fd_dir` (<procfs>/self/fd), Linux 6.2+ (fs/proc/fd.c,
/// proc_fd_getattr: the open descriptors of the table, O_PATH ones included,
/// so it equals what a listing of /proc/self/fd counts). One system call.
/// nullopt when `fd_dir` is not a directory on a procfs mount (statfs(2)
/// f_type PROC_SUPER_MAGIC: a fixture tree), or when st_size is 0 (kernels
/// before 6.2 report 0).
std::optional<std::size_t> count_open_fds_by_stat(const std::string& fd_dir);

/// Open descriptors of this process: the numbers below `table_size` (FDSize
/// of /proc/self/status) for which poll(2) does not report POLLNVAL, in one
/// call (the fallback for kernels before 6.2). Counts what a listing of
/// /proc/self/fd counts, except O_PATH descriptors, which poll(2) reports as
/// POLLNVAL (the daemon opens none).
/// nullopt when poll cannot be used (table larger than RLIMIT_NOFILE, error).
std::optional<std::size_t> count_open_fds_by_poll(std::size_t table_size);

class ProcessCollector final : public Collector {
 public:
  /// `procfs` is the real procfs mount: this collector describes this
  /// process, so it never reads a fixture tree given by --path.procfs.
  explicit ProcessCollector(std::string procfs = "/proc");
  std::string_view name() const override { return "process"; }
  std::optional<std::string> collect(Families& out) override;

 private:
  std::string procfs_;
  /// process_start_time_seconds, from /proc/stat's btime once (it cannot
  /// change while the process lives; /proc/stat costs ~0.1 ms to produce).
  std::mutex mu_;
  std::optional<double> start_time_;  // guarded by mu_
};

}  // namespace diskperf
