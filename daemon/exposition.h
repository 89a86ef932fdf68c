#pragma once
// Prometheus text exposition format 0.0.4, optionally gzip-compressed.

#include <cstddef>
#include <string>

#include "collectors/collector.h"

namespace diskperf {

inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

/// Serialises families in the text format 0.0.4. Values are printed as the
/// shortest decimal that reads back as the same double (66918 ms -> 66.918).
/// `expected_bytes` (e.g. the previous scrape's size) is reserved up front,
/// so a large exposition is not copied while it grows.
std::string to_text(const Families& families, std::size_t expected_bytes = 0);

/// gzip (RFC 1952) of `data`, via zlib. Throws std::runtime_error if zlib fails.
std::string gzip(const std::string& data);

/// Whether an Accept-Encoding header value allows gzip (a "gzip" coding
/// whose q is not 0).
bool accepts_gzip(const char* accept_encoding);

}  // namespace diskperf
