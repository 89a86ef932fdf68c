#include <catch2/catch.hpp>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "daemon/process_setup.h"

using namespace diskperf;

namespace {

constexpr std::size_t kDeep = 256 * 1024;

// Touches kDeep bytes of stack below the caller's frame and returns where.
__attribute__((noinline)) std::uintptr_t touch_stack() {
  volatile char block[kDeep];
  for (std::size_t i = 0; i < kDeep; i += 512) block[i] = 1;
  return reinterpret_cast<std::uintptr_t>(&block[0]);
}

// Resident pages of [begin, begin + kDeep) (mincore).
std::size_t resident_pages(std::uintptr_t begin) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = (begin + page - 1) & ~(page - 1);
  const std::size_t n = (kDeep - (first - begin)) / page;
  std::vector<unsigned char> v(n);
  REQUIRE(mincore(reinterpret_cast<void*>(first), n * page, v.data()) == 0);
  std::size_t r = 0;
  for (unsigned char c : v) r += c & 1;
  return r;
}

// Whether `addr` is on the calling thread's stack (not, e.g., on a sanitizer's fake stack).
bool on_own_stack(std::uintptr_t addr) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
  void* low = nullptr;
  std::size_t size = 0;
  const bool ok = pthread_attr_getstack(&attr, &low, &size) == 0;
  pthread_attr_destroy(&attr);
  const auto lo = reinterpret_cast<std::uintptr_t>(low);
  return ok && addr >= lo && addr + kDeep <= lo + size;
}

}  // namespace

TEST_CASE("release_unused_stack returns a thread's stack below the current frame", "[process]") {
  std::size_t before = 0, after = 0;
  bool own = true;
  std::thread t([&] {
    const std::uintptr_t block = touch_stack();
    own = on_own_stack(block);
    if (!own) return;  // ASan's use-after-return mode puts frames on a fake stack
    before = resident_pages(block);
    release_unused_stack();
    after = resident_pages(block);
    touch_stack();  // the released pages are usable again
  });
  t.join();
  if (!own) SUCCEED("the block was not on the thread's stack (sanitizer fake stack): nothing to check");
  if (!own) return;
  const auto pages = kDeep / static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  CHECK(before >= pages - 2);  // every page of the block was touched
  CHECK(after <= 2);           // all but the stack pointer's page (and the block's edge) released
}

// Breaker finding: the frame was taken from a local's address, which ASan's
// use-after-return mode puts on a fake stack in the heap; the range then ran
// from the stack's bottom up to that heap address and madvise zeroed live
// memory on the way (the sanitized unit tests crashed at the first scrape).
TEST_CASE("unused_stack_range: whole pages below the stack pointer, nothing for one outside the stack", "[process]") {
  const std::uintptr_t page = 4096, low = 0x7f0000000000, size = 8u << 20, guard = page;
  const AddressRange r = unused_stack_range(low, size, guard, low + 100 * page + 1024, page);
  CHECK(r.begin == low + page);       // above the guard page
  CHECK(r.end == low + 100 * page);   // the stack pointer's page kept, 1 KiB above its bottom
  // 256 bytes are kept below the stack pointer for the call to madvise: a
  // stack pointer 100 bytes above a page's bottom keeps the page below too.
  CHECK(unused_stack_range(low, size, guard, low + 100 * page + 100, page).end == low + 99 * page);
  CHECK(unused_stack_range(low, size, guard, low + 100 * page + 256, page).end == low + 100 * page);
  CHECK(unused_stack_range(low, size, guard, low + size + (1u << 30), page).end == 0);  // outside
  CHECK(unused_stack_range(low, size, guard, low - page, page).end == 0);
  CHECK(unused_stack_range(low, size, guard, low + 100, page).end == 0);
  CHECK(unused_stack_range(low, size, guard, low + size, page).end == low + size - page);  // at the top
  const AddressRange near = unused_stack_range(low, size, guard, low + page + 300, page);  // no whole page free
  CHECK(near.end == near.begin);
}
