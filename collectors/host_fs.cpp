#include "collectors/host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <algorithm>
#include <memory>

namespace diskperf {

ReadStatus classify_errno(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR: return ReadStatus::absent;
    case ENODEV:
    case ENXIO:
    case ESTALE: return ReadStatus::vanished;
    case EACCES:
    case EPERM: return ReadStatus::denied;
    default: return ReadStatus::other;
  }
}

namespace {

// procfs and sysfs attributes are regular files; anything else (a FIFO, a
// device such as /dev/zero, a socket) is refused without reading it.
bool is_regular(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

FileContent not_regular(const std::string& path) {
  FileContent out;
  out.status = ReadStatus::other;
  out.error = "read " + path + ": not a regular file";
  return out;
}

FileContent failure(const char* what, const std::string& path, int err) {
  FileContent out;
  out.status = classify_errno(err);
  out.error = std::string(what) + " " + path + ": " + std::strerror(err);
  return out;
}

// NUL-terminated copy of a relative path for the *at() calls; "" -> ".".
struct CPath {
  char buf[PATH_MAX];
  bool ok = true;
  explicit CPath(std::string_view rel) {
    while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
    if (rel.empty()) rel = ".";
    if (rel.size() >= sizeof buf) {
      ok = false;
      rel = ".";
    }
    std::memcpy(buf, rel.data(), rel.size());
    buf[rel.size()] = '\0';
  }
};

// Calls add(dirent64) for every entry of the open directory `fd` but "." and "..".
template <typename Add>
void each_entry(int fd, Add add) {
  alignas(8) char buf[16384];
  for (;;) {
    ssize_t n = ::getdents64(fd, buf, sizeof buf);
    if (n <= 0) break;
    for (ssize_t off = 0; off < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buf + off);
      off += e->d_reclen;
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      add(*e);
    }
  }
}

std::vector<std::string> list_fd(int fd) {
  std::vector<std::string> names;
  each_entry(fd, [&](const dirent64& e) { names.emplace_back(e.d_name); });
  return names;
}

}  // namespace

std::string join_path(std::string_view root, std::string_view rel) {
  std::string out(root);
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(rel);
  return out;
}

FileContent read_file(const std::string& path, std::size_t max_bytes, std::size_t size_hint) {
  // O_NONBLOCK: a FIFO planted where a file should be must not block the scrape.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return failure("open", path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return not_regular(path);
  }
  FileContent out;
  if (size_hint == 0 && st.st_size > 0) size_hint = static_cast<std::size_t>(st.st_size);
  // One byte more than expected: the read that returns 0 at EOF fits.
  if (size_hint > 0) out.data.reserve(std::min(size_hint, max_bytes) + 1);
  std::size_t chunk = 4096;
  for (;;) {
    std::size_t used = out.data.size();
    if (used >= max_bytes + 1) break;
    // The room reserved first (its last byte takes the read that returns 0
    // at EOF), then chunks that double.
    const std::size_t room = out.data.capacity() - used;
    std::size_t want = std::min(room > 0 ? room : chunk, max_bytes + 1 - used);
    if (room == 0 && chunk < (1u << 20)) chunk *= 2;
    out.data.resize(used + want);
    ssize_t n = ::read(fd, out.data.data() + used, want);
    if (n < 0) {
      if (errno == EINTR) {
        out.data.resize(used);
        continue;
      }
      int err = errno;
      ::close(fd);
      return failure("read", path, err);
    }
    out.data.resize(used + static_cast<std::size_t>(n));
    if (n == 0) break;
  }
  ::close(fd);
  if (out.data.size() > max_bytes) {
    FileContent big;
    big.status = ReadStatus::too_large;
    big.error = "read " + path + ": larger than " + std::to_string(max_bytes) + " bytes";
    return big;
  }
  return out;
}

FileContent read_file_sized(const std::string& path, std::size_t max_bytes, std::atomic<std::size_t>& size_hint) {
  FileContent f = read_file(path, max_bytes, size_hint.load());
  if (f.ok()) size_hint = f.data.size() + f.data.size() / 16 + 256;
  return f;
}

std::vector<std::string> list_dir(const std::string& path, ReadStatus* status) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), &::closedir);
  if (!dir) {
    if (status) *status = classify_errno(errno);
    return names;
  }
  if (status) *status = ReadStatus::ok;
  while (const dirent* e = ::readdir(dir.get())) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  return names;
}

std::string read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf) return {};
  return std::string(buf, static_cast<std::size_t>(n));
}

long FdBudget::from_rlimit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  const rlim_t soft = lim.rlim_cur == RLIM_INFINITY ? (1u << 20) : lim.rlim_cur;
  return std::max<long>(0, static_cast<long>(soft / 4 * 3) - 256);
}

bool FdBudget::try_take(long n) {
  long used = used_.load();
  do {
    if (used + n > limit_) return false;
  } while (!used_.compare_exchange_weak(used, used + n));
  return true;
}

HostDir::HostDir(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) open_errno_ = errno;
}

HostDir::HostDir(const HostDir& parent, std::string_view rel) : path_(join_path(parent.path_, rel)) {
  if (!parent.ok()) {
    open_errno_ = parent.open_errno_;
    return;
  }
  CPath p(rel);
  fd_ = !p.ok             ? -1
        : parent.by_path_ ? ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                          : ::openat(parent.fd_, p.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) open_errno_ = p.ok ? errno : ENAMETOOLONG;
}

HostDir HostDir::by_path(std::string path) {
  HostDir d;
  d.path_ = std::move(path);
  d.by_path_ = true;
  return d;
}

HostDir::HostDir(HostDir&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      open_errno_(other.open_errno_),
      by_path_(other.by_path_),
      on_sysfs_(other.on_sysfs_.load()) {
  other.fd_ = -1;
  std::lock_guard lock(other.kept_mu_);
  kept_ = std::move(other.kept_);
}

HostDir::~HostDir() {
  if (fd_ >= 0) ::close(fd_);
  if (kept_) {
    for (const auto& [name, fd] : kept_->files) ::close(fd);
    kept_->budget->give_back(static_cast<long>(kept_->files.size()));
  }
}

ReadStatus HostDir::open_status() const { return ok() ? ReadStatus::ok : classify_errno(open_errno_); }

namespace {

// Reads `fd` from offset 0 into out.data (at most max_bytes + 1 bytes).
// Returns 0, or the errno of a failed read.
int read_from_start(int fd, std::size_t max_bytes, std::string& data) {
  char buf[4096];
  for (;;) {
    std::size_t used = data.size();
    if (used >= max_bytes + 1) return 0;
    std::size_t want = std::min(sizeof buf, max_bytes + 1 - used);
    ssize_t n = ::pread(fd, buf, want, static_cast<off_t>(used));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.append(buf, static_cast<std::size_t>(n));
    if (static_cast<std::size_t>(n) < want) return 0;  // short read: end of file
  }
}

template <typename PathFn>
FileContent read_small(int fd, std::size_t max_bytes, PathFn path) {
  FileContent out;
  if (int err = read_from_start(fd, max_bytes, out.data)) return failure("read", path(), err);
  if (out.data.size() > max_bytes) {
    FileContent big;
    big.status = ReadStatus::too_large;
    big.error = "read " + path() + ": larger than " + std::to_string(max_bytes) + " bytes";
    return big;
  }
  return out;
}

}  // namespace

FileContent read_open_file(int fd, std::string_view dir, std::string_view rel, std::size_t max_bytes) {
  return read_small(fd, max_bytes, [&] { return join_path(dir, rel); });
}

FileContent HostDir::read_kept(const char* rel, const std::shared_ptr<FdBudget>& budget,
                               std::size_t max_bytes) const {
  int fd = -1;
  {
    std::lock_guard lock(kept_mu_);
    if (kept_) {
      // By address first (callers pass the same literal every time), then by text.
      for (const auto& [name, f] : kept_->files) {
        if (name == rel) {
          fd = f;
          break;
        }
      }
      for (std::size_t i = 0; fd < 0 && i < kept_->files.size(); ++i)
        if (std::strcmp(kept_->files[i].first, rel) == 0) fd = kept_->files[i].second;
    }
    if (fd < 0 && fd_ >= 0 && budget && budget->try_take(1)) {
      fd = open_file(rel);
      if (fd < 0) {
        const int err = errno;
        budget->give_back(1);
        // As read_file reports it (not opened twice).
        if (err == EINVAL) return not_regular(join_path(path_, rel));
        return failure("open", join_path(path_, rel), err);
      } else {
        if (!kept_) kept_ = std::make_unique<Kept>(Kept{budget, {}});
        kept_->files.emplace_back(rel, fd);
      }
    }
  }
  if (fd < 0) return read_file(rel, max_bytes);
  // The descriptor stays valid: kept files are closed only with this object.
  return read_open_file(fd, path_, rel, max_bytes);
}

int HostDir::open_file(std::string_view rel) const {
  if (by_path_) {
    const std::string path = join_path(path_, rel);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd >= 0 && !is_regular(fd)) {
      ::close(fd);
      errno = EINVAL;
      return -1;
    }
    return fd;
  }
  if (!ok()) {
    errno = open_errno_;
    return -1;
  }
  CPath p(rel);
  if (!p.ok) {
    errno = ENAMETOOLONG;
    return -1;
  }
  // O_NONBLOCK: a FIFO planted where a file should be must not block the scrape.
  int fd = ::openat(fd_, p.buf, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd >= 0 && !is_regular(fd)) {
    ::close(fd);
    errno = EINVAL;  // reported as "not a regular file" by read_file
    return -1;
  }
  return fd;
}

FileContent HostDir::read_file(std::string_view rel, std::size_t max_bytes) const {
  int fd = open_file(rel);
  if (fd < 0 && errno == EINVAL) return not_regular(join_path(path_, rel));
  if (fd < 0) return failure("open", join_path(path_, rel), errno);
  FileContent out = read_small(fd, max_bytes, [&] { return join_path(path_, rel); });
  ::close(fd);
  return out;
}

ReadStatus HostDir::exists(std::string_view rel) const {
  if (by_path_) return ::access(join_path(path_, rel).c_str(), F_OK) == 0 ? ReadStatus::ok : classify_errno(errno);
  if (!ok()) return classify_errno(open_errno_);
  CPath p(rel);
  if (!p.ok) return ReadStatus::other;
  return ::faccessat(fd_, p.buf, F_OK, 0) == 0 ? ReadStatus::ok : classify_errno(errno);
}

bool HostDir::unlinked() const {
  if (fd_ < 0) return false;
  signed char sysfs = on_sysfs_.load(std::memory_order_relaxed);
  if (sysfs < 0) {
    struct statfs fs {};
    sysfs = ::fstatfs(fd_, &fs) == 0 && fs.f_type == SYSFS_MAGIC ? 1 : 0;
    on_sysfs_.store(sysfs, std::memory_order_relaxed);
  }
  if (sysfs == 1) return false;  // removal shows as ENODEV on reads there, never as a link count
  struct stat st {};
  return ::fstat(fd_, &st) == 0 && st.st_nlink == 0;
}

std::vector<std::string> HostDir::list_dir(std::string_view rel, ReadStatus* status) const {
  if (by_path_) return diskperf::list_dir(join_path(path_, rel), status);
  if (!ok()) {
    if (status) *status = classify_errno(open_errno_);
    return {};
  }
  if (rel.empty() || rel == ".") {  // this directory: list its own descriptor from the start
    if (status) *status = ReadStatus::ok;
    if (::lseek(fd_, 0, SEEK_SET) != 0) return {};
    return list_fd(fd_);
  }
  CPath p(rel);
  int fd = p.ok ? ::openat(fd_, p.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (fd < 0) {
    if (status) *status = classify_errno(p.ok ? errno : ENAMETOOLONG);
    return {};
  }
  if (status) *status = ReadStatus::ok;
  std::vector<std::string> names = list_fd(fd);
  ::close(fd);
  return names;
}

std::vector<DirEntry> HostDir::entries(std::string_view rel, ReadStatus* status) const {
  if (!ok()) {
    if (status) *status = classify_errno(open_errno_);
    return {};
  }
  CPath p(rel);
  int fd = !p.ok     ? -1
           : by_path_ ? ::open(join_path(path_, rel).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                      : ::openat(fd_, p.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (status) *status = classify_errno(p.ok ? errno : ENAMETOOLONG);
    return {};
  }
  if (status) *status = ReadStatus::ok;
  std::vector<DirEntry> out;
  each_entry(fd, [&](const dirent64& e) { out.push_back({e.d_name, static_cast<std::uint64_t>(e.d_ino)}); });
  ::close(fd);
  return out;
}

std::string HostDir::read_link(std::string_view rel) const {
  if (by_path_) return diskperf::read_link(join_path(path_, rel));
  if (!ok()) return {};
  CPath p(rel);
  if (!p.ok) return {};
  char buf[4096];
  ssize_t n = ::readlinkat(fd_, p.buf, buf, sizeof buf);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf) return {};
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace diskperf
