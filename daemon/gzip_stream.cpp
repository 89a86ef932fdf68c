#include "daemon/gzip_stream.h"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>

namespace diskperf {

std::shared_ptr<const DeflatedSegments::Segment> DeflatedSegments::find(std::string_view key) const {
  std::lock_guard lock(mu_);
  auto it = segments_.find(key);
  return it == segments_.end() ? nullptr : it->second;
}

void DeflatedSegments::put(std::string_view key, std::shared_ptr<const Segment> segment) {
  std::lock_guard lock(mu_);
  auto it = segments_.find(key);
  if (it == segments_.end()) {
    segments_.emplace(std::string(key), std::move(segment));
  } else {
    it->second = std::move(segment);
  }
}

std::size_t DeflatedSegments::bytes() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [key, s] : segments_) n += s->deflated.size();
  return n;
}

struct GzipWriter::State {
  z_stream zs{};
  bool initialised = false;
  std::string out = std::string(64u << 10, '\0');
  uLong crc = crc32_z(0, nullptr, 0);  // CRC-32 of the text so far
  std::uint64_t length = 0;            // bytes of text so far
  bool header_sent = false;
  bool dirty = false;                  // text compressed since the last full flush
  std::string* capture = nullptr;      // also receives the output while a segment is compressed
  ~State() {
    if (initialised) deflateEnd(&zs);
  }
};

GzipWriter::GzipWriter(TextSink sink) : sink_(std::move(sink)), state_(std::make_unique<State>()) {
  // windowBits -15: raw deflate; the gzip header and trailer are written here, so that the CRC-32
  // can be combined from kept segments. Level 1 (Z_BEST_SPEED): on a 2.7 MB exposition it is 4x
  // faster than the default level 6 for 9% more bytes (bench/RESULTS.md, issue 9).
  if (deflateInit2(&state_->zs, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  state_->initialised = true;
}

GzipWriter::~GzipWriter() = default;

void GzipWriter::emit(std::string_view piece) {
  if (!state_->header_sent) {
    // RFC 1952 2.3: ID1 ID2, CM 8 (deflate), no flags, no MTIME, XFL 4 (fastest), OS 3 (Unix).
    static constexpr char kHeader[10] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 4, 3};
    state_->header_sent = true;
    sink_(std::string_view(kHeader, sizeof kHeader));
  }
  if (!piece.empty()) sink_(piece);
}

void GzipWriter::deflate_some(int flush) {
  z_stream& zs = state_->zs;
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(state_->out.data());
    zs.avail_out = static_cast<uInt>(state_->out.size());
    const int rc = deflate(&zs, flush);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("deflate failed");
    const std::string_view piece(state_->out.data(), state_->out.size() - zs.avail_out);
    if (state_->capture) state_->capture->append(piece);
    emit(piece);
    if (flush == Z_FINISH ? rc == Z_STREAM_END : zs.avail_out != 0) return;
  }
}

void GzipWriter::feed(std::string_view data, int flush) {
  z_stream& zs = state_->zs;
  while (!data.empty()) {
    // avail_in is 32-bit: feed at most 1 GiB at a time.
    const std::size_t n = std::min<std::size_t>(data.size(), 1u << 30);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    zs.avail_in = static_cast<uInt>(n);
    deflate_some(Z_NO_FLUSH);
    data.remove_prefix(n);
  }
  if (flush != Z_NO_FLUSH) {
    zs.avail_in = 0;
    deflate_some(flush);
  }
}

void GzipWriter::write(std::string_view data) {
  if (data.empty()) return;
  state_->crc = crc32_z(state_->crc, reinterpret_cast<const Bytef*>(data.data()), data.size());
  state_->length += data.size();
  state_->dirty = true;
  feed(data, Z_NO_FLUSH);
}

bool GzipWriter::write_segment(std::string_view key, std::string_view text, DeflatedSegments& segments) {
  if (text.empty()) return false;
  State& s = *state_;
  const std::uint64_t hash = std::hash<std::string_view>{}(text);
  if (s.dirty) {  // what came before ends here, and the compressor forgets it
    s.zs.avail_in = 0;
    deflate_some(Z_FULL_FLUSH);
    s.dirty = false;
  }
  std::shared_ptr<const DeflatedSegments::Segment> kept = segments.find(key);
  const bool reused = kept && kept->size == text.size() && kept->hash == hash;
  if (!reused) {
    auto fresh = std::make_shared<DeflatedSegments::Segment>();
    fresh->size = text.size();
    fresh->hash = hash;
    fresh->crc = static_cast<std::uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(text.data()), text.size()));
    s.capture = &fresh->deflated;
    try {
      feed(text, Z_FULL_FLUSH);
    } catch (...) {
      s.capture = nullptr;
      throw;
    }
    s.capture = nullptr;
    fresh->deflated.shrink_to_fit();
    kept = fresh;
    segments.put(key, std::move(fresh));
  } else {
    emit(kept->deflated);
  }
  s.crc = crc32_combine(s.crc, kept->crc, static_cast<z_off_t>(kept->size));
  s.length += kept->size;
  return reused;
}

void GzipWriter::finish() {
  State& s = *state_;
  s.zs.avail_in = 0;
  deflate_some(Z_FINISH);
  // RFC 1952 2.3.1: CRC32 and ISIZE (length modulo 2^32), little-endian.
  char trailer[8];
  const std::uint32_t crc = static_cast<std::uint32_t>(s.crc), isize = static_cast<std::uint32_t>(s.length);
  for (int i = 0; i < 4; ++i) {
    trailer[i] = static_cast<char>((crc >> (8 * i)) & 0xff);
    trailer[4 + i] = static_cast<char>((isize >> (8 * i)) & 0xff);
  }
  emit(std::string_view(trailer, sizeof trailer));
}

std::string gzip(std::string_view data) {
  std::string out;
  GzipWriter z([&](std::string_view piece) { out.append(piece); });
  z.write(data);
  z.finish();
  return out;
}

}  // namespace diskperf
