#pragma once
// One request to the Azure Instance Metadata Service with libcurl: plain HTTP, header
// `Metadata: true`, never through a proxy (http_proxy and friends are ignored), bounded in time
// and size, and cancellable from another thread (ImdsRequest::cancel) so a hung endpoint never
// holds up a stop.

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

namespace diskperf {

/// The compute document's path and the API version asked for.
inline constexpr const char* kImdsComputePath = "/metadata/instance/compute?api-version=2021-05-01";
inline constexpr const char* kDefaultImdsUrl = "http://169.254.169.254";

/// Why `url` cannot be an IMDS base URL ("" when it can): plain HTTP (http://, any case), a host,
/// no query or fragment, no blanks or control characters.
inline std::string imds_url_problem(std::string_view url) {
  constexpr std::string_view scheme = "http://";
  if (url.size() < scheme.size() ||
      !std::equal(scheme.begin(), scheme.end(), url.begin(),
                  [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); }))
    return "must start with http:// (IMDS is plain HTTP)";
  const std::string_view rest = url.substr(scheme.size());
  if (rest.empty() || rest.front() == '/') return "has no host";
  for (const char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return "holds a blank or a control character";
  if (url.find_first_of("?#") != std::string_view::npos) return "must not have a query or fragment";
  return "";
}

struct ImdsResponse {
  long http_status = 0;  ///< 0 when no HTTP answer came
  std::string body;
  std::string error;  ///< "" on HTTP 200; else "timeout after 2000 ms", "HTTP 429", "connection refused", ...
  bool ok() const { return error.empty(); }
};

class ImdsRequest {
 public:
  /// Largest body accepted (the compute document of a VM with 64 disks is ~40 KiB).
  static constexpr std::size_t kMaxBody = 1u << 20;
  /// GET base_url + kImdsComputePath (trailing '/' of base_url dropped), giving up after `timeout`
  /// (connecting included), or soon after *cancel becomes true ("cancelled": the flag is looked at
  /// between waits of 20 ms for the socket).
  static ImdsResponse get(const std::string& base_url, std::chrono::milliseconds timeout,
                          const std::atomic<bool>* cancel = nullptr);
};

}  // namespace diskperf
