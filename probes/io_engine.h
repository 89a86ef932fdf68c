#pragma once
// The probe's I/O engine: Linux native AIO (libaio) on a file descriptor
// opened with O_DIRECT, the same path as fio's `ioengine=libaio direct=1`.
// One io_context sized to iodepth (io_setup), one aligned buffer per slot,
// one iocb per io_submit call (fio's default iodepth_batch_submit=1; see
// submit()), io_getevents with a timeout. Times every I/O on CLOCK_MONOTONIC
// the way fio does (fio/stat.c, engines/libaio.c):
//   start  = just before the I/O's own io_submit;
//   issue  = its io_submit returned (slat = issue - start);
//   done   = io_getevents returned it (clat = done - issue, lat = done - start).

#include <libaio.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace diskperf {

/// Nanoseconds on CLOCK_MONOTONIC.
std::uint64_t monotonic_ns();

/// One finished I/O as returned by IoEngine::reap.
struct IoCompletion {
  unsigned slot = 0;
  bool write = false;
  std::uint64_t offset = 0;
  long result = 0;  ///< bytes transferred, or -errno
  std::uint64_t start_ns = 0, issue_ns = 0, done_ns = 0;
};

class IoEngine {
 public:
  /// Opens `path` with O_DIRECT (O_RDONLY unless `writable`; writable opens add O_NOFOLLOW and
  /// O_NONBLOCK and require a regular file with a single link, as writes go only to the exporter's
  /// own probe file) and sets up an io_context of
  /// `iodepth` slots with buffers of `bs` bytes aligned to `alignment` (at least 4096).
  /// Returns nullptr and sets `error` ("open /dev/x: Permission denied", ...) on failure.
  static std::unique_ptr<IoEngine> open(const std::string& path, bool writable, unsigned iodepth,
                                        std::uint64_t bs, std::uint64_t alignment, std::string& error);
  ~IoEngine();
  IoEngine(const IoEngine&) = delete;
  IoEngine& operator=(const IoEngine&) = delete;

  unsigned iodepth() const { return static_cast<unsigned>(slots_.size()); }
  unsigned in_flight() const { return in_flight_; }
  /// Slots not in flight, lowest first.
  std::vector<unsigned> free_slots() const;

  /// Prepares slot `slot` for one I/O of bs bytes at `offset` (not yet submitted).
  void prepare(unsigned slot, std::uint64_t offset, bool write);
  /// Submits the prepared slots in order, one io_submit call each (fio's default
  /// iodepth_batch_submit=1), so each I/O's start and issue times are its own: slot k+1 starts
  /// after slot k's io_submit returned. Returns 0, or -errno when the kernel refused a slot (it
  /// and the slots after it stay free; the ones before it are in flight).
  int submit(const std::vector<unsigned>& slots);
  /// Waits up to `timeout_ns` for at least `min_nr` completions and appends at most `max_nr` of them
  /// (both capped at in_flight; max_nr 0: all in flight), all stamped done at the same instant.
  /// Returns the number reaped (0 on timeout), or -errno.
  int reap(unsigned min_nr, std::uint64_t timeout_ns, std::vector<IoCompletion>& out, unsigned max_nr = 0);

  /// Issue time of a slot in flight (0 when free).
  std::uint64_t issue_ns(unsigned slot) const { return slots_[slot].busy ? slots_[slot].issue_ns : 0; }

  /// Leaves the context, descriptor and buffers to the kernel: for shutting down while I/O is
  /// still in flight on a hung disk (io_destroy would wait for it).
  void abandon() { abandoned_ = true; }

 private:
  struct Slot {
    iocb cb{};
    void* buf = nullptr;  ///< bs bytes inside buffers_
    bool busy = false;
    bool write = false;
    std::uint64_t offset = 0;
    std::uint64_t start_ns = 0, issue_ns = 0;
  };
  IoEngine() = default;
  int fd_ = -1;
  io_context_t ctx_ = nullptr;
  std::uint64_t bs_ = 0;
  std::vector<Slot> slots_;
  void* buffers_ = nullptr;  ///< the slots' buffers, one aligned block (iodepth x bs rounded up)
  std::vector<io_event> events_;
  unsigned in_flight_ = 0;
  bool abandoned_ = false;
};

}  // namespace diskperf
