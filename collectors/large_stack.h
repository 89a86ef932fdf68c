#pragma once
// Threads with room for deep recursion. Debian's CivetWeb runs handlers on
// worker threads with 100 KiB stacks (built with USE_STACK_SIZE=102400).
// Gathering and reloading can recurse deeper than that on legal input:
// yaml-cpp parses recursively (a reload), and when device regexes were
// libstdc++'s std::regex (recursive; RE2 now) one with 400 nested groups
// overflowed a worker's stack at every scrape (SIGSEGV). So that work runs on
// threads with 8 MiB stacks (the main thread's usual size), and a collector
// may recurse as deep as on the main thread. A thread start costs ~50 us.

#include <cstddef>
#include <functional>

namespace diskperf {

/// Stack size of the threads below: 8 MiB.
inline constexpr std::size_t kLargeStackBytes = 8u << 20;

/// Runs `fn` on a new thread with a kLargeStackBytes stack and waits for it;
/// rethrows what `fn` threw. Throws std::runtime_error when no thread can be
/// started.
void run_with_large_stack(const std::function<void()>& fn);

/// Calls fn(0) .. fn(n - 1), each once, on the calling thread and up to
/// `threads - 1` more threads with kLargeStackBytes stacks, each taking the
/// next index not yet taken, and returns when all calls are done. `fn` must
/// not throw. When a thread cannot be started, the others do its share.
void run_spread(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& fn);

}  // namespace diskperf
