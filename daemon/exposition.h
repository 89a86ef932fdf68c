#pragma once
// Prometheus text exposition format 0.0.4, optionally gzip-compressed
// (daemon/gzip_stream.h).

#include <cstddef>
#include <string>
#include <string_view>

#include "collectors/collector.h"
#include "daemon/gzip_stream.h"

namespace diskperf {

inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

/// Serialises families in the text format 0.0.4. Values are printed as the
/// shortest decimal that reads back as the same double (66918 ms -> 66.918).
/// `expected_bytes` (e.g. the previous scrape's size) is reserved up front,
/// so a large exposition is not copied while it grows.
std::string to_text(const Families& families, std::size_t expected_bytes = 0);

/// Writes what to_text returns to `sink`, in pieces of about `piece_bytes`
/// rendered into one reused buffer, so that a large exposition is never held
/// whole (the HTTP handler streams it; 2.7 MB on a 1,200-device host).
void write_text(const Families& families, const TextSink& sink, std::size_t piece_bytes = 64u << 10);

/// write_text into `z`, except that each family marked seldom_changes is
/// rendered whole and written with z.write_segment under its name, so that its
/// compressed bytes are reused when its text is the same as in an earlier
/// response (`segments`). Returns how many families were reused.
std::size_t write_gzip(const Families& families, GzipWriter& z, DeflatedSegments& segments,
                       std::size_t piece_bytes = 64u << 10);

/// Whether an Accept-Encoding header value (RFC 9110 12.5.3) allows gzip: a
/// "gzip" coding (any case) whose q is not 0, or else a "*" whose q is not 0.
bool accepts_gzip(const char* accept_encoding);

}  // namespace diskperf
