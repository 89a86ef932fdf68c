#include "daemon/process_setup.h"

#include <malloc.h>
#include <cstdlib>
#include <sys/resource.h>

namespace diskperf {

void configure_allocator() { mallopt(M_ARENA_MAX, 2); }

void raise_open_files_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= lim.rlim_max) return;
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
}

void release_free_memory() { if (!getenv("NOTRIM")) malloc_trim(0); }

}  // namespace diskperf
