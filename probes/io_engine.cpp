#include "probes/io_engine.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace diskperf {

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::unique_ptr<IoEngine> IoEngine::open(const std::string& path, bool writable, unsigned iodepth,
                                         std::uint64_t bs, std::uint64_t alignment, std::string& error) {
  if (iodepth == 0 || bs == 0) {
    error = "iodepth and bs must be > 0";
    return nullptr;
  }
  std::unique_ptr<IoEngine> e(new IoEngine());
  // Writes only ever go to the exporter's own probe file (block devices are read-only to the
  // probe, probes/probe_target.h), so a writable open never follows a symbolic link.
  e->fd_ = ::open(path.c_str(), (writable ? O_RDWR | O_NOFOLLOW | O_NONBLOCK : O_RDONLY) | O_DIRECT | O_CLOEXEC);
  if (e->fd_ < 0) {
    error = "open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (writable && (::fstat(e->fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
    error = "open " + path + ": not a regular file with a single link, refused for writes";
    return nullptr;
  }
  int rc = io_setup(static_cast<int>(iodepth), &e->ctx_);
  if (rc < 0) {
    error = "io_setup(" + std::to_string(iodepth) + "): " + std::strerror(-rc);
    e->ctx_ = nullptr;
    return nullptr;
  }
  alignment = std::max<std::uint64_t>(alignment, 4096);
  e->bs_ = bs;
  e->slots_.resize(iodepth);
  e->events_.resize(iodepth);
  // One aligned block for all slots (a block per slot would cost a page of padding each).
  const std::uint64_t stride = (bs + alignment - 1) / alignment * alignment;
  if (posix_memalign(&e->buffers_, alignment, stride * iodepth) != 0) {
    e->buffers_ = nullptr;
    error = "cannot allocate " + std::to_string(stride * iodepth) + " aligned bytes";
    return nullptr;
  }
  // Recognisable, non-zero data for writes (never-written zero pages can be special-cased).
  std::memset(e->buffers_, 0x5a, stride * iodepth);
  for (unsigned i = 0; i < iodepth; ++i) e->slots_[i].buf = static_cast<char*>(e->buffers_) + stride * i;
  return e;
}

IoEngine::~IoEngine() {
  if (abandoned_ && in_flight_ > 0) return;  // the kernel still owns the buffers
  if (ctx_) io_destroy(ctx_);  // waits for any I/O still in flight
  std::free(buffers_);
  if (fd_ >= 0) ::close(fd_);
}

std::vector<unsigned> IoEngine::free_slots() const {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < slots_.size(); ++i)
    if (!slots_[i].busy) out.push_back(i);
  return out;
}

void IoEngine::prepare(unsigned slot, std::uint64_t offset, bool write) {
  Slot& s = slots_[slot];
  if (write) io_prep_pwrite(&s.cb, fd_, s.buf, bs_, static_cast<long long>(offset));
  else io_prep_pread(&s.cb, fd_, s.buf, bs_, static_cast<long long>(offset));
  s.cb.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot));
  s.write = write;
  s.offset = offset;
}

int IoEngine::submit(const std::vector<unsigned>& slots) {
  // One iocb per io_submit call, as fio does with its default iodepth_batch_submit=1: each I/O's
  // clock (start, issue) is its own. Stamping a whole batch after one io_submit would leave out
  // of clat the time the first iocbs spent in the kernel while the later ones were submitted.
  for (unsigned i : slots) {
    Slot& s = slots_[i];
    iocb* cb = &s.cb;
    s.start_ns = monotonic_ns();
    int rc = 0;
    do rc = io_submit(ctx_, 1, &cb);
    while (rc == -EAGAIN || rc == -EINTR);
    if (rc != 1) return rc == 0 ? -EIO : rc;
    s.issue_ns = monotonic_ns();
    s.busy = true;
    ++in_flight_;
  }
  return 0;
}

int IoEngine::reap(unsigned min_nr, std::uint64_t timeout_ns, std::vector<IoCompletion>& out, unsigned max_nr) {
  if (in_flight_ == 0) return 0;
  timespec ts{static_cast<time_t>(timeout_ns / 1000000000ull), static_cast<long>(timeout_ns % 1000000000ull)};
  const unsigned max_events = max_nr == 0 ? in_flight_ : std::min(max_nr, in_flight_);
  int rc = io_getevents(ctx_, std::min(min_nr, max_events), static_cast<long>(max_events), events_.data(), &ts);
  if (rc == -EINTR) return 0;
  if (rc < 0) return rc;
  const std::uint64_t now = monotonic_ns();
  for (int k = 0; k < rc; ++k) {
    const io_event& ev = events_[k];
    const auto slot = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(ev.data));
    Slot& s = slots_[slot];
    s.busy = false;
    --in_flight_;
    out.push_back({slot, s.write, s.offset, static_cast<long>(ev.res), s.start_ns, s.issue_ns, now});
  }
  return rc;
}

}  // namespace diskperf
