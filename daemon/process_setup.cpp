#include "daemon/process_setup.h"

#include <malloc.h>
#include <sys/resource.h>

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

}  // namespace diskperf
