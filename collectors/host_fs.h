#pragma once
// Host access: the one place that reads procfs, sysfs and other host files.
// Every path is resolved under a configurable root (--path.procfs,
// --path.sysfs, ...), so the same code reads this host or a fixture tree.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
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
/// gives ReadStatus::too_large. Never throws. `size_hint` (e.g. the size of
/// the last read of the same file), or else a nonzero stat size, is the room
/// made up front: a large file is read into one buffer instead of one that
/// grows (and copies itself) in doubling chunks; any size is still read whole.
FileContent read_file(const std::string& path, std::size_t max_bytes = 16u << 20, std::size_t size_hint = 0);

/// read_file of a file read at every scrape whose size procfs does not report (diskstats,
/// partitions): the room made up front is `size_hint`, which each read that succeeds sets to its
/// size plus a sixteenth and 256 bytes (room to grow).
FileContent read_file_sized(const std::string& path, std::size_t max_bytes, std::atomic<std::size_t>& size_hint);

/// Names in a directory, without "." and "..", unsorted. Empty when the
/// directory is absent or unreadable; `status` (if given) says which.
std::vector<std::string> list_dir(const std::string& path, ReadStatus* status = nullptr);

/// One directory entry as getdents64(2) reports it: its name and the inode
/// number of the entry itself (for a symlink such as /sys/block/sda, the
/// link's: a device that is removed and added again gets a new one).
struct DirEntry {
  std::string name;
  std::uint64_t ino = 0;
};

/// Target of a symbolic link, or empty if `path` is not a readable link.
std::string read_link(const std::string& path);

/// A directory opened once, so that many files below it are read with
/// openat(2) relative to it instead of walking the whole (long, symlinked)
/// sysfs path for every file. Each call behaves like the free function of
/// the same name on join_path(path(), rel): same statuses, same error texts.
/// When the directory itself cannot be opened, every call fails as that
/// path-based call would (with the errno of opening the directory).
/// Move-only; closes its descriptor.
/// Reads an already open file from offset 0 (pread(2)), as HostDir::read_file
/// does after opening: a sysfs attribute read again this way is produced anew
/// by the kernel. The file is `rel` in directory `dir`: joined for error texts
/// only (no string is built for a successful read).
FileContent read_open_file(int fd, std::string_view dir, std::string_view rel, std::size_t max_bytes = 4096);

/// How many descriptors the collectors may keep open between scrapes (held
/// directories and attribute files together), so that holding them never
/// starves connections, probes and logs of descriptors. Thread-safe.
class FdBudget {
 public:
  explicit FdBudget(long limit) : limit_(limit) {}
  /// Three quarters of the soft RLIMIT_NOFILE (raised to the hard limit at
  /// start, daemon/process_setup.h), less 256.
  static long from_rlimit();
  /// Takes `n` descriptors if they fit; false (nothing taken) otherwise.
  bool try_take(long n);
  void give_back(long n) { used_.fetch_sub(n); }
  long used() const { return used_.load(); }
  long limit() const { return limit_; }

 private:
  const long limit_;
  std::atomic<long> used_{0};
};

class HostDir {
 public:
  /// Opens `path` (symlinks followed). Check ok() or open_status().
  explicit HostDir(std::string path);
  /// Opens `rel` below `parent` (one openat; symlinks followed).
  HostDir(const HostDir& parent, std::string_view rel);
  /// `path` without a descriptor: every call goes through the full path
  /// (the path-based functions above), so nothing stays open. For
  /// directories beyond a descriptor budget. ok() is true.
  static HostDir by_path(std::string path);
  HostDir(HostDir&& other) noexcept;
  HostDir& operator=(HostDir&&) = delete;
  HostDir(const HostDir&) = delete;
  ~HostDir();

  /// Opened (or path-based).
  bool ok() const { return fd_ >= 0 || by_path_; }
  ReadStatus open_status() const;
  /// The directory's descriptor (-1 when not opened or path-based); owned by this object.
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  /// read_file(join_path(path(), rel), max_bytes), for small attribute files
  /// (sysfs, or regular files): reads into a stack buffer and treats a read
  /// shorter than asked as the end of the file (what sysfs attributes,
  /// single-record seq_files and regular files do), saving the extra read
  /// that would return 0.
  FileContent read_file(std::string_view rel, std::size_t max_bytes = 4096) const;
  /// Whether `rel` exists now (faccessat F_OK): ReadStatus::ok, or why not
  /// (absent, vanished, denied, other).
  ReadStatus exists(std::string_view rel) const;
  /// Whether this opened directory has been removed since it was opened
  /// (fstat of its descriptor: no links left, as tmpfs and ext4 report a
  /// removed directory). sysfs does not report that; there, files held open in
  /// a removed device's directory fail with ENODEV (ReadStatus::vanished)
  /// instead, so on sysfs (found with fstatfs at the first call) this is
  /// false without a system call. false for a path-based or unopened directory.
  bool unlinked() const;
  /// list_dir(join_path(path(), rel)); rel "" lists this directory through
  /// its own descriptor (so one HostDir must not list itself from two
  /// threads at once).
  std::vector<std::string> list_dir(std::string_view rel = {}, ReadStatus* status = nullptr) const;
  /// The entries of `rel` ("" for this directory) with their inode numbers,
  /// unsorted, without "." and ".."; read through a descriptor of its own, so
  /// several threads may list the same HostDir at once.
  std::vector<DirEntry> entries(std::string_view rel = {}, ReadStatus* status = nullptr) const;
  /// read_link(join_path(path(), rel)).
  std::string read_link(std::string_view rel) const;
  /// Opens `rel` for reading and returns the descriptor (the caller closes
  /// it), or -1 with errno set.
  int open_file(std::string_view rel) const;
  /// read_file(rel), through a descriptor this object keeps open: opened at
  /// the first read if `budget` gives one, read again from offset 0 (pread)
  /// after that, closed (and given back) with this object. For sysfs
  /// attributes read at every scrape (the kernel produces the text anew on
  /// each read). Not for files replaced by rename (the old inode would be
  /// read). A file that could not be opened, or beyond the budget, is read by
  /// opening it, every time. `rel` must have static storage duration (a
  /// string literal): the kept descriptor is filed under the pointer, so
  /// that a held directory of a large host costs 16 bytes per kept file, not
  /// a string. Thread-safe.
  FileContent read_kept(const char* rel, const std::shared_ptr<FdBudget>& budget,
                        std::size_t max_bytes = 4096) const;

 private:
  HostDir() = default;
  std::string path_;
  int fd_ = -1;
  int open_errno_ = 0;
  bool by_path_ = false;
  /// unlinked(): -1 not yet known, 1 on sysfs (no fstat needed), 0 elsewhere.
  mutable std::atomic<signed char> on_sysfs_{-1};
  struct Kept {
    std::shared_ptr<FdBudget> budget;
    std::vector<std::pair<const char*, int>> files;  ///< name (static storage) -> descriptor
  };
  mutable std::mutex kept_mu_;
  mutable std::unique_ptr<Kept> kept_;  ///< guarded by kept_mu_
};

}  // namespace diskperf
