#include "collectors/device_filter.h"

namespace diskperf {

std::regex compile_device_regex(const std::string& pattern, std::regex::flag_type extra) {
  for (std::size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '\\') continue;
    if (pattern[i + 1] >= '1' && pattern[i + 1] <= '9') throw std::regex_error(std::regex_constants::error_backref);
    ++i;  // the escaped character
  }
  return std::regex(pattern, std::regex::ECMAScript | extra);
}

DeviceFilter::DeviceFilter(std::optional<std::string> include, std::optional<std::string> exclude) {
  if (!include && !exclude) exclude = kDefaultDeviceExclude;
  if (include && !include->empty()) include_ = compile_device_regex(*include, std::regex::optimize);
  if (exclude && !exclude->empty()) exclude_ = compile_device_regex(*exclude, std::regex::optimize);
}

bool DeviceFilter::accepts(const std::string& device) const {
  // Kernel disk names are at most 31 characters (DISK_NAME_LEN); a longer one
  // comes from a crafted tree, and std::regex's recursive matcher could
  // overflow the stack on it.
  if (device.size() > kMaxDeviceName) return false;
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
