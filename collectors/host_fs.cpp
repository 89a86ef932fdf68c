#include "collectors/host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

FileContent failure(const char* what, const std::string& path, int err) {
  FileContent out;
  out.status = classify_errno(err);
  out.error = std::string(what) + " " + path + ": " + std::strerror(err);
  return out;
}

}  // namespace

std::string join_path(std::string_view root, std::string_view rel) {
  std::string out(root);
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(rel);
  return out;
}

FileContent read_file(const std::string& path, std::size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return failure("open", path, errno);
  FileContent out;
  std::size_t chunk = 4096;
  for (;;) {
    std::size_t used = out.data.size();
    if (used >= max_bytes + 1) break;
    std::size_t want = std::min(chunk, max_bytes + 1 - used);
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
    if (chunk < (1u << 20)) chunk *= 2;
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

}  // namespace diskperf
