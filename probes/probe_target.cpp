#include "probes/probe_target.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "probes/io_engine.h"

namespace diskperf {
namespace {

// sysfs directory of a block device number: <sysfs>/dev/block/M:m resolved.
std::string sysfs_dir(const HostPaths& p, dev_t dev) {
  const std::string link = join_path(p.sysfs, "dev/block/" + std::to_string(major(dev)) + ":" +
                                                  std::to_string(minor(dev)));
  std::error_code ec;
  auto real = std::filesystem::canonical(link, ec);
  return ec ? std::string() : real.string();
}

// Whole disks under a sysfs block directory: a partition's parent, or the slaves' disks.
void collect_disks(const std::string& dir, std::set<std::string>& out, int depth = 0) {
  if (dir.empty() || depth > 8) return;
  std::filesystem::path d(dir);
  if (read_file((d / "partition").string()).ok()) {
    collect_disks(d.parent_path().string(), out, depth + 1);
    return;
  }
  auto slaves = list_dir((d / "slaves").string());
  if (slaves.empty()) {
    out.insert(d.filename().string());
    return;
  }
  for (const auto& s : slaves) {
    std::error_code ec;
    auto real = std::filesystem::canonical(d / "slaves" / s, ec);
    if (!ec) collect_disks(real.string(), out, depth + 1);
  }
}

std::uint32_t queue_lbs(const std::string& dir) {
  if (dir.empty()) return 512;
  std::filesystem::path d(dir);
  FileContent f = read_file((d / "queue/logical_block_size").string());
  if (!f.ok()) f = read_file((d.parent_path() / "queue/logical_block_size").string());  // partition
  if (!f.ok()) return 512;
  unsigned long v = std::strtoul(f.data.c_str(), nullptr, 10);
  return v ? static_cast<std::uint32_t>(v) : 512;
}

}  // namespace

TargetInfo inspect_target(const std::string& path, const HostPaths& paths) {
  TargetInfo t;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    t.kind = TargetKind::missing;
    t.error = "stat " + path + ": " + std::strerror(errno);
    return t;
  }
  dev_t dev = 0;
  if (S_ISBLK(st.st_mode)) {
    t.kind = TargetKind::block_device;
    dev = st.st_rdev;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      t.error = "open " + path + ": " + std::strerror(errno);
      return t;
    }
    std::uint64_t bytes = 0;
    int lbs = 0;
    if (::ioctl(fd, BLKGETSIZE64, &bytes) == 0) t.size = bytes;
    if (::ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0) t.logical_block_size = static_cast<std::uint32_t>(lbs);
    ::close(fd);
  } else if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
    t.kind = S_ISREG(st.st_mode) ? TargetKind::regular_file : TargetKind::directory;
    t.size = S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
    dev = st.st_dev;
    t.logical_block_size = queue_lbs(sysfs_dir(paths, dev));
  } else {
    t.kind = TargetKind::other;
    t.error = path + " is neither a block device, a regular file nor a directory";
    return t;
  }
  std::set<std::string> disks;
  collect_disks(sysfs_dir(paths, dev), disks);
  if (disks.empty()) disks.insert(std::to_string(major(dev)) + ":" + std::to_string(minor(dev)));
  t.disks.assign(disks.begin(), disks.end());
  return t;
}

std::string probe_file_path(const std::string& dir, const std::string& job_name) {
  return join_path(dir, ".diskperf_probe_" + job_name + ".dat");
}

std::string probe_file_space_error(const std::string& path, std::uint64_t need, std::uint64_t free_bytes,
                                   std::uint64_t fs_bytes) {
  const std::uint64_t reserve = fs_bytes / 100 * kProbeFileMinFreePercent;
  if (need == 0) return "";  // reusing or shrinking takes nothing
  if (need <= free_bytes && free_bytes - need >= reserve) return "";
  return "laying out " + path + " needs " + std::to_string(need) + " bytes, and its file system has " +
         std::to_string(free_bytes) + " of " + std::to_string(fs_bytes) + " bytes free: it would leave less than " +
         std::to_string(kProbeFileMinFreePercent) + "% free (lower file_size)";
}

std::string own_probe_file_error(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return path + " exists and is not a regular file";
  if (st.st_nlink != 1)
    return path + " has " + std::to_string(st.st_nlink) + " links: not the exporter's own probe file";
  if (st.st_uid != ::geteuid())
    return path + " is owned by uid " + std::to_string(st.st_uid) + ", not by the exporter (uid " +
           std::to_string(::geteuid()) + "): not its own probe file";
  return "";
}

std::string existing_probe_file_error(const ProbeJob& job, TargetKind kind) {
  if (!has_writes(job.rw) || kind != TargetKind::directory) return "";
  const std::string path = probe_file_path(job.target, job.name);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";  // absent: the first run creates it
  return own_probe_file_error(path, st);
}

std::string prepare_probe_file(const std::string& path, std::uint64_t size) {
  // What is at the path must be the exporter's own file: a symbolic link (to a database file, say)
  // is never followed, and a hard link, a file of another user, a FIFO or a device is refused.
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  std::uint64_t held = 0;  // bytes the existing probe file occupies (freed when it is laid out again)
  if (exists) {
    if (std::string err = own_probe_file_error(path, st); !err.empty()) return err;
    if (static_cast<std::uint64_t>(st.st_size) == size) return "";  // laid out by an earlier run
    held = static_cast<std::uint64_t>(st.st_blocks) * 512;
  }
  // Never fill the volume a database lives on.
  const std::string dir = std::filesystem::path(path).parent_path().string();
  struct statvfs vfs {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &vfs) != 0) return "statvfs " + dir + ": " + std::strerror(errno);
  const std::uint64_t need = size > held ? size - held : 0;
  if (std::string err = probe_file_space_error(path, need, static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize,
                                               static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize);
      !err.empty())
    return err;
  // Created exclusively, or opened without following a link and without blocking on a FIFO; then
  // the open file itself is checked (what was replaced between lstat and open is refused).
  const int flags = O_WRONLY | O_DIRECT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (exists ? 0 : O_CREAT | O_EXCL);
  int fd = ::open(path.c_str(), flags, 0600);
  if (fd < 0) return (exists ? "open " : "create ") + path + ": " + std::strerror(errno);
  struct stat fst {};
  std::string bad = ::fstat(fd, &fst) != 0 ? "fstat " + path + ": " + std::strerror(errno) : own_probe_file_error(path, fst);
  if (bad.empty() && exists && (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino))
    bad = path + " was replaced while it was opened";
  if (!bad.empty()) {
    ::close(fd);
    return bad;
  }
  const std::size_t chunk = 1u << 20;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, chunk) != 0) {
    ::close(fd);
    return "out of memory";
  }
  // Real, non-zero data so that no layer can treat the extents as holes.
  auto* bytes = static_cast<unsigned char*>(buf);
  for (std::size_t i = 0; i < chunk; ++i) bytes[i] = static_cast<unsigned char>((i * 131u + 7u) & 0xff);
  std::string err;
  if (::ftruncate(fd, 0) != 0) err = "truncate " + path + ": " + std::strerror(errno);
  for (std::uint64_t off = 0; err.empty() && off < size;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - off));
    ssize_t w = ::pwrite(fd, buf, n, static_cast<off_t>(off));
    if (w <= 0) err = "write " + path + ": " + (w < 0 ? std::strerror(errno) : "short write");
    else off += static_cast<std::uint64_t>(w);
  }
  if (err.empty() && ::fdatasync(fd) != 0) err = "fdatasync " + path + ": " + std::strerror(errno);
  std::free(buf);
  ::close(fd);
  return err;
}

Region job_region(const ProbeJob& job, std::uint64_t target_size) {
  Region r{job.offset, job.size};
  if (r.size == 0) r.size = target_size > job.offset ? target_size - job.offset : 0;
  return r;
}

std::vector<std::string> check_job_against_target(const ProbeJob& job, const TargetInfo& t) {
  std::vector<std::string> errs;
  const std::string who = "probe '" + job.name + "': ";
  if (!t.error.empty() && t.kind != TargetKind::directory) {
    errs.push_back(who + t.error);
    return errs;
  }
  if (has_writes(job.rw) && t.kind == TargetKind::block_device)
    errs.push_back(who + "rw=" + std::string(to_string(job.rw)) + " writes, but target " + job.target +
                   " is a block device, which is only ever read; point target at a directory on the volume "
                   "to write to a probe file the exporter creates there");
  if (has_writes(job.rw) && t.kind == TargetKind::regular_file)
    errs.push_back(who + "rw=" + std::string(to_string(job.rw)) + " writes, but target " + job.target +
                   " is an existing file; writes go only to the exporter's own probe file: set target to a "
                   "directory");
  if (job.bs == 0 || job.bs % t.logical_block_size != 0)
    errs.push_back(who + "bs=" + std::to_string(job.bs) + " is not a multiple of the logical block size (" +
                   std::to_string(t.logical_block_size) + " bytes) of " + job.target);
  if (job.offset % t.logical_block_size != 0)
    errs.push_back(who + "offset=" + std::to_string(job.offset) + " is not a multiple of the logical block size (" +
                   std::to_string(t.logical_block_size) + " bytes)");
  const std::uint64_t tsize = t.kind == TargetKind::directory ? job.file_size : t.size;
  const Region r = job_region(job, tsize);
  // Overflow-safe form of offset + size > tsize.
  if (job.offset > tsize || job.size > tsize - job.offset || r.size < job.bs)
    errs.push_back(who + "region offset=" + std::to_string(job.offset) + " size=" + std::to_string(r.size) +
                   " does not fit in " + job.target + " (" + std::to_string(tsize) + " bytes) with bs=" +
                   std::to_string(job.bs));
  return errs;
}

}  // namespace diskperf

namespace diskperf {

ResolvedJob resolve_job(const ProbeJob& job, const HostPaths& paths) {
  ResolvedJob r;
  TargetInfo t = inspect_target(job.target, paths);
  r.errors = check_job_against_target(job, t);
  if (!r.ok()) return r;
  r.disks = t.disks;
  r.alignment = std::max<std::uint32_t>(t.logical_block_size, 4096);
  if (t.kind == TargetKind::directory) {
    r.path = probe_file_path(job.target, job.name);
    std::string err = prepare_probe_file(r.path, job.file_size);
    if (!err.empty()) r.errors.push_back("probe '" + job.name + "': " + err);
    r.region = job_region(job, job.file_size);
  } else {
    r.path = job.target;
    r.region = job_region(job, t.size);
  }
  return r;
}

}  // namespace diskperf
