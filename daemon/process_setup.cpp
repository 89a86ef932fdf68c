#include "daemon/process_setup.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <optional>

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

AddressRange unused_stack_range(std::uintptr_t low, std::size_t size, std::size_t guard, std::uintptr_t sp,
                                std::uintptr_t page) {
  // The stack grows down: [low, sp) is unused. Keep what the call to madvise
  // pushes below sp (its return address; kMargin is generous) and the guard
  // pages (the stack reported may include them). A stack pointer outside the
  // stack (a wrong bound) gives nothing: the range must never reach memory
  // that is not this stack's.
  constexpr std::uintptr_t kMargin = 256;
  if (sp <= low + kMargin || sp > low + size) return {};
  const std::uintptr_t begin = (low + guard + page - 1) & ~(page - 1);
  const std::uintptr_t end = (sp - kMargin) & ~(page - 1);
  if (end <= begin) return {};
  return {begin, end};
}

namespace {
/// The stack pointer where it is called from (inlined into the caller), or
/// nullopt on an architecture this does not know.
[[gnu::always_inline]] inline std::optional<std::uintptr_t> stack_pointer() {
  std::uintptr_t sp = 0;
#if defined(__x86_64__)
  asm volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  asm volatile("mov %0, sp" : "=r"(sp));
#else
  return std::nullopt;
#endif
  return sp;
}
}  // namespace

void release_unused_stack() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* low = nullptr;
  std::size_t size = 0, guard = 0;
  const bool ok = pthread_attr_getstack(&attr, &low, &size) == 0 && pthread_attr_getguardsize(&attr, &guard) == 0;
  pthread_attr_destroy(&attr);
  if (!ok || !low) return;
  // The stack pointer itself, not a local's address: ASan's use-after-return
  // mode puts address-taken locals on a fake stack in the heap, and a range up
  // to there zeroed live memory (the sanitized unit tests crashed in the first
  // HTTP test). Not the frame address either: the bytes between it and the
  // stack pointer are unknown, so a page had to be kept below it (3 pages per
  // idle worker instead of 2: 1 MB more at 256 workers).
  const auto sp = stack_pointer();
  if (!sp) return;
  const AddressRange r = unused_stack_range(reinterpret_cast<std::uintptr_t>(low), size, guard, *sp,
                                            static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)));
  if (r.end > r.begin) madvise(reinterpret_cast<void*>(r.begin), r.end - r.begin, MADV_DONTNEED);
}

}  // namespace diskperf
