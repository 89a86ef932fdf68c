#include "daemon/memory.h"

#include <malloc.h>

namespace diskperf {

void configure_allocator() { mallopt(M_ARENA_MAX, 2); }

void release_free_memory() { malloc_trim(0); }

}  // namespace diskperf
