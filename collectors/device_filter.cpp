#include "collectors/device_filter.h"

#include <re2/re2.h>

namespace diskperf {

std::shared_ptr<const re2::RE2> compile_device_regex(const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);     // the caller reports the error
  options.set_never_capture(true);   // only whether it matches
  auto re = std::make_shared<const re2::RE2>(pattern, options);
  if (!re->ok()) throw RegexError(re->error());
  return re;
}

DeviceFilter::DeviceFilter(std::optional<std::string> include, std::optional<std::string> exclude) {
  by_default_ = !include && !exclude;
  if (by_default_) {
    exclude = kDefaultDeviceExclude;
    partition_names_ = compile_device_regex(kDefaultPartitionNames);
  }
  if (include && !include->empty()) include_ = compile_device_regex(*include);
  if (exclude && !exclude->empty()) exclude_ = compile_device_regex(*exclude);
}

bool DeviceFilter::accepts(const std::string& device, DeviceKind kind) const {
  // Kernel disk names are at most 31 characters (DISK_NAME_LEN); a longer one
  // comes from a crafted tree.
  if (device.size() > kMaxDeviceName) return false;
  if (by_default_ && kind == DeviceKind::partition) return false;
  // Only the default's answer depends on the kind, and only for an unknown one.
  const bool by_name = by_default_ && kind == DeviceKind::unknown;
  const std::string& key = by_name ? device + '\n' : device;  // '\n' is in no device name
  {
    std::lock_guard lock(mu_);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  }
  bool keep = (!include_ || re2::RE2::PartialMatch(device, *include_)) &&
              (!exclude_ || !re2::RE2::PartialMatch(device, *exclude_)) &&
              !(by_name && re2::RE2::PartialMatch(device, *partition_names_));
  std::lock_guard lock(mu_);
  if (memo_.size() > 65536) memo_.clear();  // bound memory under device churn
  memo_.emplace(key, keep);
  return keep;
}

}  // namespace diskperf
