#pragma once
// gzip (RFC 1952) of a response written piece by piece, and the compressed
// form of text that repeats from one response to the next, kept so that it is
// not compressed again (a 1,200-device host's queue settings, device facts and
// volume topology: about half of a 2.7 MB exposition, the same at every scrape).
//
// How a kept segment is put back: deflate (RFC 1951) with zlib's Z_FULL_FLUSH
// before and after a segment makes the segment's compressed bytes stand alone:
// the compressor starts it with no history (no back-reference reaches before
// it, none after it reaches into it), and it starts and ends on a byte boundary
// without a final block. The same bytes can then be sent again in another
// stream at such a boundary; the gzip trailer's CRC-32 of the whole text is
// combined from the segments' (zlib's crc32_combine).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace diskperf {

/// Receives output piece by piece; a piece is valid during the call only.
using TextSink = std::function<void(std::string_view)>;

/// Compressed segments by key (the exposition uses a family's name), shared by
/// concurrent responses. A segment is reused only for the same key and the same
/// text: same length and same 64-bit hash (std::hash of the text).
class DeflatedSegments {
 public:
  struct Segment {
    std::size_t size = 0;     ///< length of the text
    std::uint64_t hash = 0;   ///< std::hash<std::string_view> of the text
    std::uint32_t crc = 0;    ///< CRC-32 (RFC 1952) of the text
    std::string deflated;     ///< raw deflate bytes, between two full flushes
  };
  /// The segment kept under `key`, or null.
  std::shared_ptr<const Segment> find(std::string_view key) const;
  /// Keeps `segment` under `key`, replacing what was there.
  void put(std::string_view key, std::shared_ptr<const Segment> segment);
  /// Compressed bytes kept, over all keys.
  std::size_t bytes() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Segment>, std::less<>> segments_;
};

/// gzip (RFC 1952: raw deflate at zlib level 1, CRC-32 and length trailer) of
/// the bytes written to it, passed to `sink` in pieces as they are compressed.
/// Throws std::runtime_error if zlib fails; what `sink` throws passes through.
class GzipWriter {
 public:
  explicit GzipWriter(TextSink sink);
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;
  void write(std::string_view data);
  /// Writes `text` as a segment of its own: the compressed bytes `segments`
  /// keeps under `key` when they are of the same text (returns true), else
  /// `text` compressed anew, kept under `key` for the next stream (false).
  bool write_segment(std::string_view key, std::string_view text, DeflatedSegments& segments);
  /// Flushes the rest and the gzip trailer; call once, after the last write.
  void finish();

 private:
  void deflate_some(int flush);
  void feed(std::string_view data, int flush);
  void emit(std::string_view piece);
  TextSink sink_;
  struct State;
  std::unique_ptr<State> state_;
};

/// gzip (RFC 1952) of `data`, via GzipWriter. Throws std::runtime_error if zlib fails.
std::string gzip(std::string_view data);

}  // namespace diskperf
