#pragma once
// Helpers shared by the unit tests: fixture paths, temp dirs, and looking up
// one sample in gathered families.

#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include <zlib.h>

#include "collectors/collector.h"
#include "collectors/host_fs.h"

namespace diskperf::test {

inline std::string fixture(const std::string& rel) { return std::string(DISKPERF_FIXTURES) + "/" + rel; }

/// What gzip-compressed `in` inflates to: exactly one gzip member (RFC 1952) whose CRC-32 and
/// length trailer zlib checks, and nothing after it. Throws std::runtime_error otherwise.
inline std::string gunzip(const std::string& in) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) throw std::runtime_error("inflateInit2 failed");
  std::string out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    out.resize(out.size() + (1 << 20));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
    zs.avail_out = 1 << 20;
    rc = inflate(&zs, Z_NO_FLUSH);
  }
  const uInt left = zs.avail_in;
  out.resize(zs.total_out);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("gunzip: inflate returned " + std::to_string(rc));
  if (left != 0) throw std::runtime_error("gunzip: " + std::to_string(left) + " bytes after the gzip member");
  return out;
}

inline std::string slurp(const std::string& path) {
  FileContent f = read_file(path);
  if (!f.ok()) throw std::runtime_error(f.error);
  return f.data;
}

/// A temporary directory removed when the object goes out of scope.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "diskperf-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& rel, const std::string& content) const {
    auto p = path / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }
  std::string str() const { return path.string(); }
};

/// Finds the family `name`, or nullptr.
inline const MetricFamily* family(const Families& fs, const std::string& name) {
  for (const auto& f : fs)
    if (f.name == name) return &f;
  return nullptr;
}

/// Value of the sample of family `name` whose label `label` is `value`
/// (any sample when label is empty). std::nullopt when absent.
inline std::optional<double> sample(const Families& fs, const std::string& name, const std::string& label = "",
                                    const std::string& value = "") {
  const auto* f = family(fs, name);
  if (!f) return std::nullopt;
  for (std::size_t i = 0; i < f->size(); ++i) {
    bool match = label.empty();
    for (const auto& l : f->labels(i))
      if (l.name == label && l.value == value) match = true;
    if (match) return f->samples()[i].value;
  }
  return std::nullopt;
}

}  // namespace diskperf::test
