#pragma once
// Prometheus text exposition format 0.0.4, optionally gzip-compressed.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "collectors/collector.h"

namespace diskperf {

inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

/// Serialises families in the text format 0.0.4. Values are printed as the
/// shortest decimal that reads back as the same double (66918 ms -> 66.918).
/// `expected_bytes` (e.g. the previous scrape's size) is reserved up front,
/// so a large exposition is not copied while it grows.
std::string to_text(const Families& families, std::size_t expected_bytes = 0);

/// Receives an exposition piece by piece; a piece is valid during the call only.
using TextSink = std::function<void(std::string_view)>;

/// Writes what to_text returns to `sink`, in pieces of about `piece_bytes`
/// rendered into one reused buffer, so that a large exposition is never held
/// whole (the HTTP handler streams it; 2.7 MB on a 1,200-device host).
void write_text(const Families& families, const TextSink& sink, std::size_t piece_bytes = 64u << 10);

/// gzip (RFC 1952, zlib level 1) of the bytes written to it, passed to `sink`
/// in pieces as they are compressed. Throws std::runtime_error if zlib fails.
class GzipWriter {
 public:
  explicit GzipWriter(TextSink sink);
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;
  void write(std::string_view data);
  /// Flushes the rest and the gzip trailer; call once, after the last write.
  void finish();

 private:
  void deflate_some(int flush);
  TextSink sink_;
  struct State;
  std::unique_ptr<State> state_;
};

/// gzip (RFC 1952) of `data`, via GzipWriter. Throws std::runtime_error if zlib fails.
std::string gzip(const std::string& data);

/// Whether an Accept-Encoding header value (RFC 9110 12.5.3) allows gzip: a
/// "gzip" coding (any case) whose q is not 0, or else a "*" whose q is not 0.
bool accepts_gzip(const char* accept_encoding);

}  // namespace diskperf
