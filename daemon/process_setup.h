#pragma once
// Process-wide settings made once at start, and memory release after scrapes.
//
// Keeps the daemon's resident memory at its steady-state size between
// scrapes. A scrape of a large host builds tens of thousands of series
// (megabytes of short-lived allocations) on whichever HTTP worker thread
// serves it; glibc gives each thread its own arena and keeps freed memory
// there, so without this the RSS grows to (peak of one scrape) x (threads).

#include <cstddef>
#include <cstdint>

namespace diskperf {

/// Call once at start, before threads exist: caps glibc malloc arenas at 2
/// (mallopt M_ARENA_MAX), so scrapes on different worker threads reuse the
/// same memory, and fixes the mmap threshold at 1 MiB (M_MMAP_THRESHOLD), so
/// a scrape's large blocks (the exposition text) are unmapped when freed.
void configure_allocator();

/// Raises the soft RLIMIT_NOFILE to the hard limit (as Go programs such as
/// node_exporter do at start): the queue collector and the /sys/block view
/// keep sysfs directories and attribute files open between scrapes, within
/// three quarters of the soft limit (FdBudget, collectors/host_fs.h).
void raise_open_files_limit();

/// Returns freed heap memory to the kernel (glibc malloc_trim(0)). Called
/// after each scrape has been sent; costs well under a millisecond.
void release_free_memory();

/// Returns the calling thread's stack pages below the current frame to the
/// kernel (madvise MADV_DONTNEED; the page of the stack pointer is kept),
/// as glibc does for a thread that exits. Called by an HTTP worker after a
/// response: CivetWeb hands connections to its workers in turn, so without it
/// every one of the --web.max-threads workers keeps the ~20 KiB of stack its
/// deepest request touched (5 MB at 256 workers). No-op if the stack bounds
/// are unknown.
void release_unused_stack();

/// Page range [begin, end) of a thread stack [low, low + size) (guard pages
/// at its low end) that release_unused_stack returns when the stack pointer
/// is `sp`: from the first page above the guard to the page boundary at or
/// below sp - 256 (room for the call to madvise). Empty (begin == end) when
/// `sp` is not inside the stack or no whole page is free.
struct AddressRange {
  std::uintptr_t begin = 0, end = 0;
};
AddressRange unused_stack_range(std::uintptr_t low, std::size_t size, std::size_t guard, std::uintptr_t sp,
                                std::uintptr_t page);

}  // namespace diskperf
