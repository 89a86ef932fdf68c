#include "collectors/process_collector.h"

#include <linux/magic.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include "collectors/host_fs.h"
#include "collectors/metric_families.h"

namespace diskperf {
namespace {

using prometheus::MetricType;

std::vector<std::string_view> split_blanks(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
    std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\n') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

double to_double(std::string_view s) {
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// "btime N" line of /proc/stat: boot time in Unix seconds.
double boot_time(const std::string& stat_text) {
  std::string_view s = stat_text;
  std::size_t pos = s.find("\nbtime ");
  if (pos == std::string_view::npos) return 0;
  s.remove_prefix(pos + 7);
  return to_double(s.substr(0, s.find('\n')));
}

// "FDSize:" of /proc/self/status: the size of the descriptor table (every
// open descriptor is below it).
std::optional<std::uint64_t> fd_table_size(const std::string& status_text) {
  std::string_view s = status_text;
  std::size_t pos = s.find("\nFDSize:");
  if (pos == std::string_view::npos) return std::nullopt;
  s.remove_prefix(pos + 8);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::size_t> count_open_fds_by_stat(const std::string& fd_dir) {
  struct statfs fs {};
  if (::statfs(fd_dir.c_str(), &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC) return std::nullopt;
  struct stat st {};
  if (::stat(fd_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_size <= 0) return std::nullopt;
  return static_cast<std::size_t>(st.st_size);
}

std::optional<std::size_t> count_open_fds_by_poll(std::size_t table_size) {
  rlimit lim{};
  if (table_size == 0 || ::getrlimit(RLIMIT_NOFILE, &lim) != 0) return std::nullopt;
  // poll(2) refuses more entries than RLIMIT_NOFILE; a table larger than the
  // limit (the limit was lowered) is counted by listing instead.
  if (lim.rlim_cur != RLIM_INFINITY && table_size > lim.rlim_cur) return std::nullopt;
  std::vector<pollfd> fds(table_size);
  for (std::size_t i = 0; i < table_size; ++i) fds[i] = {static_cast<int>(i), 0, 0};
  if (::poll(fds.data(), fds.size(), 0) < 0) return std::nullopt;
  std::size_t open = 0;
  for (const pollfd& p : fds)
    if (!(p.revents & POLLNVAL)) ++open;
  return open;
}

namespace {

void gauge(Families& out, const char* name, const char* help, double v, MetricType type = MetricType::Gauge) {
  add_sample(add_family(out, name, help, type), v, {});
}

}  // namespace

ProcessCollector::ProcessCollector(std::string procfs) : procfs_(std::move(procfs)) {}

std::optional<std::string> ProcessCollector::collect(Families& out) {
  FileContent stat = read_file(join_path(procfs_, "self/stat"));
  if (!stat.ok()) return stat.error;
  // proc(5): "pid (comm) state ppid ..."; comm may hold spaces and ')'.
  std::size_t close = stat.data.rfind(')');
  if (close == std::string::npos) return "unparsable " + join_path(procfs_, "self/stat");
  auto f = split_blanks(std::string_view(stat.data).substr(close + 1));
  // f[0] is field 3 (state); field N is f[N - 3].
  if (f.size() < 22) return "short " + join_path(procfs_, "self/stat");
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  double cpu = (to_double(f[14 - 3]) + to_double(f[15 - 3])) / ticks;
  double start_ticks = to_double(f[22 - 3]);
  double vsize = to_double(f[23 - 3]);
  double rss_pages = to_double(f[24 - 3]);

  gauge(out, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", cpu,
        MetricType::Counter);
  gauge(out, "process_resident_memory_bytes", "Resident memory size in bytes.", rss_pages * page);
  gauge(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.", vsize);

  // Open descriptors: the kernel's count in stat(2) of /proc/self/fd (6.2+),
  // else poll(2) over the descriptor table (one call, but ~1.4 ms with 12,000
  // descriptors), else a listing of /proc/self/fd (about 1 us per descriptor,
  // and the queue collector holds thousands on a large host).
  const std::string fd_dir = join_path(procfs_, "self/fd");
  std::optional<std::size_t> open_fds = count_open_fds_by_stat(fd_dir);
  if (!open_fds)
    if (FileContent status = read_file(join_path(procfs_, "self/status")); status.ok())
      if (auto size = fd_table_size(status.data)) open_fds = count_open_fds_by_poll(*size);
  if (!open_fds) {
    ReadStatus fd_status;
    auto fds = list_dir(fd_dir, &fd_status);
    if (fd_status == ReadStatus::ok) open_fds = fds.size();
  }
  if (open_fds) gauge(out, "process_open_fds", "Number of open file descriptors.", static_cast<double>(*open_fds));
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    gauge(out, "process_max_fds", "Maximum number of open file descriptors.",
          lim.rlim_cur == RLIM_INFINITY ? -1.0 : static_cast<double>(lim.rlim_cur));
  }
  std::optional<double> start_time;
  {
    std::lock_guard lock(mu_);
    start_time = start_time_;
  }
  if (!start_time) {
    FileContent pstat = read_file(join_path(procfs_, "stat"));
    const double btime = pstat.ok() ? boot_time(pstat.data) : 0;
    if (btime > 0) {
      start_time = btime + start_ticks / ticks;
      std::lock_guard lock(mu_);
      start_time_ = start_time;
    }
  }
  if (start_time)
    gauge(out, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.", *start_time);
  return std::nullopt;
}

}  // namespace diskperf
