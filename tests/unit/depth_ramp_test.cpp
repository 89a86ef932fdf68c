// How many I/Os a probe run keeps in flight (probes/depth_ramp.h): a few at
// first, doubled per window completed fast, capped by the completions per
// timeout the disk has shown, and cut back when a window outlives the timeout;
// and the I/O a stopped run leaves in flight (probes/drain_list.h).

#include <unistd.h>

#include <catch2/catch.hpp>

#include "probes/depth_ramp.h"
#include "probes/drain_list.h"
#include "probes/io_engine.h"
#include "probes/probe_target.h"
#include "test_helpers.h"

using namespace diskperf;

namespace {
constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kTimeout = 2000 * kMs;
}  // namespace

TEST_CASE("depth ramp: starts with a few I/Os, or iodepth when lower", "[probe][ramp]") {
  CHECK(DepthRamp(256, kTimeout, 0).allowed() == DepthRamp::kInitialDepth);
  CHECK(DepthRamp(2, kTimeout, 0).allowed() == 2);
  CHECK(DepthRamp(1, kTimeout, 0).allowed() == 1);
}

TEST_CASE("depth ramp: a healthy disk reaches iodepth within microseconds", "[probe][ramp]") {
  DepthRamp r(256, kTimeout, 0);
  std::uint64_t now = 0;
  std::vector<unsigned> steps;
  while (r.allowed() < 256) {
    steps.push_back(r.allowed());
    now += 20'000 * r.allowed();  // 20 us per I/O
    r.on_completions(r.allowed(), now);
    REQUIRE(steps.size() < 10);
  }
  CHECK(steps == std::vector<unsigned>{4, 8, 16, 32, 64, 128});
  CHECK(now < 10 * kMs);
  r.on_completions(256, now + 5 * kMs);
  CHECK(r.allowed() == 256);  // never past iodepth
}

TEST_CASE("depth ramp: a window only counts once full", "[probe][ramp]") {
  DepthRamp r(64, kTimeout, 0);
  r.on_completions(3, kMs);
  CHECK(r.allowed() == 4);
  r.on_completions(1, 2 * kMs);
  CHECK(r.allowed() == 8);
}

TEST_CASE("depth ramp: no doubling when a window takes more than half the timeout", "[probe][ramp]") {
  DepthRamp r(256, kTimeout, 0);
  r.on_completions(4, 1500 * kMs);  // 4 in 1.5 s of a 2 s timeout
  CHECK(r.allowed() == 4);
}

TEST_CASE("depth ramp: never more than the completions per timeout measured", "[probe][ramp]") {
  DepthRamp r(256, kTimeout, 0);
  std::uint64_t now = 0;
  // 16 I/Os per timeout (8 IOPS at a 2 s timeout): windows of 4 done in 0.5 s, of 8 in 1 s.
  for (int i = 0; i < 10; ++i) {
    now += r.allowed() * 125 * kMs;
    r.on_completions(r.allowed(), now);
    CHECK(r.allowed() <= 16);
  }
  CHECK(r.allowed() >= 8);
}

TEST_CASE("depth ramp: a window past the timeout cuts the depth to what completed", "[probe][ramp]") {
  DepthRamp r(256, kTimeout, 0);
  std::uint64_t now = 0;
  for (int i = 0; i < 6; ++i) {  // up to 256 on a fast disk
    now += kMs;
    r.on_completions(r.allowed(), now);
  }
  REQUIRE(r.allowed() == 256);
  // The disk slows to 10 completions per timeout.
  r.on_completions(10, now + kTimeout / 2);
  r.tick(now + kTimeout / 2);
  CHECK(r.allowed() == 256);  // within one timeout: no verdict yet
  r.tick(now + kTimeout + 1);
  CHECK(r.allowed() == 10);
  // A hung disk: nothing completes in a timeout; the depth falls to the initial few.
  r.tick(now + 2 * kTimeout + 2);
  CHECK(r.allowed() == DepthRamp::kInitialDepth);
}

TEST_CASE("depth ramp: a full window slower than the timeout shrinks to its pace", "[probe][ramp]") {
  DepthRamp r(256, kTimeout, 0);
  std::uint64_t now = 0;
  for (int i = 0; i < 4; ++i) {
    now += kMs;
    r.on_completions(r.allowed(), now);
  }
  REQUIRE(r.allowed() == 64);
  r.on_completions(64, now + 4 * kTimeout);  // 64 in four timeouts: 16 per timeout
  CHECK(r.allowed() == 16);
}

TEST_CASE("drain list: keeps an engine until its I/O has completed, by disk", "[probe][drain]") {
  test::TempDir dir;
  const std::string file = (dir.path / "data").string();
  REQUIRE(prepare_probe_file(file, 1u << 20).empty());
  std::string err;
  std::shared_ptr<IoEngine> e(IoEngine::open(file, false, 8, 4096, 4096, err));
  REQUIRE(e);
  const std::vector<unsigned> slots = e->free_slots();
  for (unsigned s : slots) e->prepare(s, s * 4096ull, false);
  REQUIRE(e->submit(slots) == 0);
  e->abandon();
  DrainList drains;
  drains.add({"sdb"}, e);
  CHECK(drains.pending({"sdc"}) == 0);  // another disk
  unsigned left = 1;
  for (int i = 0; i < 500 && left > 0; ++i) {
    left = drains.pending({"sdx", "sdb"});
    if (left) ::usleep(10000);
  }
  CHECK(left == 0);
  CHECK(e->in_flight() == 0);
  CHECK(e.use_count() == 1);  // the list let go of it
  drains.add({"sdb"}, e);     // nothing in flight: not kept
  CHECK(e.use_count() == 1);
}
