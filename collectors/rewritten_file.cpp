#include "collectors/rewritten_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace diskperf {
namespace {

RewrittenFileRead failure(const char* what, const std::string& path, int err) {
  RewrittenFileRead out;
  out.status = classify_errno(err);
  out.error = std::string(what) + " " + path + ": " + std::strerror(err);
  return out;
}

bool same(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

RewrittenFileRead read_rewritten_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: a FIFO at this path must not block the scrape (refused below).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return failure("open", path, errno);
  struct stat before {};
  if (::fstat(fd, &before) != 0) {
    const int err = errno;
    ::close(fd);
    return failure("fstat", path, err);
  }
  if (!S_ISREG(before.st_mode)) {
    ::close(fd);
    RewrittenFileRead out;
    out.status = ReadStatus::other;
    out.error = "read " + path + ": not a regular file";
    return out;
  }
  RewrittenFileRead out;
  // One buffer sized from fstat (+1 byte to notice growth), grown only if the file grew.
  out.data.resize(std::min<std::size_t>(static_cast<std::size_t>(before.st_size), max_bytes) + 1);
  std::size_t used = 0;
  for (;;) {
    if (used == out.data.size()) {
      if (used > max_bytes) break;
      out.data.resize(std::min(used * 2 + 4096, max_bytes + 1));
    }
    const ssize_t n = ::read(fd, out.data.data() + used, out.data.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return failure("read", path, err);
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  out.data.resize(used);
  struct stat after {};
  const bool stat_ok = ::fstat(fd, &after) == 0;
  ::close(fd);
  if (used > max_bytes) {
    RewrittenFileRead big;
    big.status = ReadStatus::too_large;
    big.error = "read " + path + ": larger than " + std::to_string(max_bytes) + " bytes";
    return big;
  }
  if (!stat_ok) after = before;
  out.mtime_s = static_cast<double>(after.st_mtim.tv_sec) + static_cast<double>(after.st_mtim.tv_nsec) * 1e-9;
  out.changed_during_read = !same(before, after) || static_cast<std::size_t>(after.st_size) != used;
  return out;
}

}  // namespace diskperf
