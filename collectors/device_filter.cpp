#include "collectors/device_filter.h"

namespace diskperf {

DeviceFilter::DeviceFilter(std::optional<std::string> include, std::optional<std::string> exclude) {
  if (!include && !exclude) exclude = kDefaultDeviceExclude;
  if (include && !include->empty()) include_.emplace(*include, std::regex::ECMAScript | std::regex::optimize);
  if (exclude && !exclude->empty()) exclude_.emplace(*exclude, std::regex::ECMAScript | std::regex::optimize);
}

bool DeviceFilter::accepts(const std::string& device) const {
  {
    std::lock_guard lock(mu_);
    if (auto it = memo_.find(device); it != memo_.end()) return it->second;
  }
  bool keep = (!include_ || std::regex_search(device, *include_)) &&
              (!exclude_ || !std::regex_search(device, *exclude_));
  std::lock_guard lock(mu_);
  if (memo_.size() > 65536) memo_.clear();  // bound memory under device churn
  memo_.emplace(device, keep);
  return keep;
}

}  // namespace diskperf
