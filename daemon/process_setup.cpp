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

void release_unused_stack() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* low = nullptr;
  std::size_t size = 0, guard = 0;
  const bool ok = pthread_attr_getstack(&attr, &low, &size) == 0 && pthread_attr_getguardsize(&attr, &guard) == 0;
  pthread_attr_destroy(&attr);
  if (!ok || !low) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  volatile char here = 0;  // an address in the current frame
  // The stack grows down: [low, sp) is unused. Keep one page below the frame
  // (the red zone and this function's callees) and the guard pages (the
  // stack reported may include them).
  const auto sp = reinterpret_cast<std::uintptr_t>(&here);
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(low) + guard + page - 1) & ~(page - 1);
  const std::uintptr_t end = ((sp & ~(page - 1)) > begin + page) ? (sp & ~(page - 1)) - page : begin;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace diskperf
