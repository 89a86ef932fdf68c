#include "daemon/process_setup.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>

namespace diskperf {

void configure_allocator() {
  mallopt(M_ARENA_MAX, 2);
  // A fixed threshold (glibc otherwise raises it to the largest block freed):
  // the exposition text and the big sample vectors of each scrape are mapped
  // and unmapped whole instead of fragmenting the heap between scrapes.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

void raise_open_files_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= lim.rlim_max) return;
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
}

void release_free_memory() { malloc_trim(0); }

AddressRange unused_stack_range(std::uintptr_t low, std::size_t size, std::size_t guard, std::uintptr_t frame,
                                std::uintptr_t page) {
  // The stack grows down: [low, frame) is unused. Keep one page below the
  // frame (the red zone and the caller's callees) and the guard pages (the
  // stack reported may include them). A frame outside the stack (a sanitizer's
  // fake stack, a wrong bound) gives nothing: the range must never reach
  // memory that is not this stack's.
  if (frame <= low || frame > low + size) return {};
  const std::uintptr_t begin = (low + guard + page - 1) & ~(page - 1);
  const std::uintptr_t frame_page = frame & ~(page - 1);
  if (frame_page <= begin + page) return {};
  return {begin, frame_page - page};
}

void release_unused_stack() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* low = nullptr;
  std::size_t size = 0, guard = 0;
  const bool ok = pthread_attr_getstack(&attr, &low, &size) == 0 && pthread_attr_getguardsize(&attr, &guard) == 0;
  pthread_attr_destroy(&attr);
  if (!ok || !low) return;
  // This frame's address from the frame pointer, not from a local: ASan's
  // use-after-return mode puts address-taken locals on a fake stack in the
  // heap, and a range up to there zeroed live memory (the sanitized unit
  // tests crashed in the first HTTP test).
  const AddressRange r = unused_stack_range(reinterpret_cast<std::uintptr_t>(low), size, guard,
                                            reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)),
                                            static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)));
  if (r.end > r.begin) madvise(reinterpret_cast<void*>(r.begin), r.end - r.begin, MADV_DONTNEED);
}

}  // namespace diskperf
