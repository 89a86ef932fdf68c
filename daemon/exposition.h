#pragma once
// Prometheus text exposition format 0.0.4, optionally gzip-compressed.

#include <string>

#include "collectors/collector.h"

namespace diskperf {

inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

/// Serialises families in the text format 0.0.4. Values are printed as the
/// shortest decimal that reads back as the same double (66918 ms -> 66.918).
std::string to_text(const Families& families);

/// gzip (RFC 1952) of `data`, via zlib. Throws std::runtime_error if zlib fails.
std::string gzip(const std::string& data);

/// Whether an Accept-Encoding header value allows gzip (a "gzip" coding
/// whose q is not 0).
bool accepts_gzip(const char* accept_encoding);

}  // namespace diskperf
