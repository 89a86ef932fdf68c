#include "probes/depth_ramp.h"

#include <algorithm>

namespace diskperf {

DepthRamp::DepthRamp(unsigned iodepth, std::uint64_t timeout_ns, std::uint64_t start_ns)
    : iodepth_(std::max(iodepth, 1u)),
      floor_(std::min(kInitialDepth, iodepth_)),
      allowed_(floor_),
      timeout_ns_(std::max<std::uint64_t>(timeout_ns, 1)),
      window_start_(start_ns) {}

void DepthRamp::next_window(unsigned depth, std::uint64_t now_ns) {
  allowed_ = std::clamp(depth, floor_, iodepth_);
  window_start_ = now_ns;
  window_done_ = 0;
}

void DepthRamp::on_completions(unsigned n, std::uint64_t now_ns) {
  window_done_ += n;
  if (window_done_ < allowed_) return;
  const std::uint64_t elapsed = std::max<std::uint64_t>(now_ns - window_start_, 1);
  // Completions per timeout at this window's pace (saturated: a window of microseconds on a
  // timeout of seconds gives a huge figure that must not overflow).
  const double per_timeout = static_cast<double>(window_done_) * static_cast<double>(timeout_ns_) /
                             static_cast<double>(elapsed);
  const std::uint64_t measured = per_timeout >= 1e18 ? std::uint64_t(1e18) : static_cast<std::uint64_t>(per_timeout);
  best_per_timeout_ = std::max(best_per_timeout_, measured);
  std::uint64_t depth = allowed_;
  if (elapsed * 2 <= timeout_ns_) depth = std::min<std::uint64_t>(2ull * allowed_, best_per_timeout_);
  else if (elapsed > timeout_ns_) depth = measured;  // slower than the depth allows: shrink to the pace
  next_window(static_cast<unsigned>(std::min<std::uint64_t>(depth, iodepth_)), now_ns);
}

void DepthRamp::tick(std::uint64_t now_ns) {
  if (now_ns - window_start_ <= timeout_ns_) return;
  next_window(window_done_, now_ns);
}

}  // namespace diskperf
