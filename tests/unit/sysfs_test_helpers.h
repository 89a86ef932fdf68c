#pragma once
// Helpers for tests over the generated sysfs fixture trees
// (tests/fixtures/make_sysfs_fixtures.sh -> DISKPERF_SYSFS_FIXTURES).

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <atomic>

#include "collectors/collector.h"
#include "collectors/dm_table_source.h"
#include "collectors/host_fs.h"
#include "test_helpers.h"

namespace diskperf::test {

inline HostPaths sysfs_fixture(const std::string& scenario) {
  HostPaths p;
  p.sysfs = std::string(DISKPERF_SYSFS_FIXTURES) + "/" + scenario + "/sys";
  p.devfs = std::string(DISKPERF_SYSFS_FIXTURES) + "/" + scenario + "/dev";
  p.procfs = "/nonexistent";
  return p;
}

inline std::string dm_tables_dir(const std::string& scenario) {
  return std::string(DISKPERF_SYSFS_FIXTURES) + "/" + scenario + "/dmtables";
}

/// The tables of a directory (DirectoryDmTableSource), counting the reads.
class CountingDmTables final : public DmTableSource {
 public:
  explicit CountingDmTables(std::string dir) : inner_(std::move(dir)) {}
  DmTableText read_table(const std::string& device, unsigned major, unsigned minor) override {
    ++reads;
    return inner_.read_table(device, major, minor);
  }
  std::atomic<int> reads{0};

 private:
  DirectoryDmTableSource inner_;
};

/// Copies a scenario (symlinks kept as links) into `dir`, for tests that change it.
inline HostPaths copy_fixture(const std::string& scenario, const TempDir& dir) {
  std::filesystem::copy(std::string(DISKPERF_SYSFS_FIXTURES) + "/" + scenario, dir.path,
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  HostPaths p;
  p.sysfs = (dir.path / "sys").string();
  p.devfs = (dir.path / "dev").string();
  return p;
}

/// Value of the sample of `name` carrying all of `labels` (others ignored).
inline std::optional<double> value(const Families& fs, const std::string& name,
                                   const std::map<std::string, std::string>& labels) {
  const auto* f = family(fs, name);
  if (!f) return std::nullopt;
  for (std::size_t i = 0; i < f->size(); ++i) {
    std::size_t hits = 0;
    for (const auto& l : f->labels(i)) {
      auto it = labels.find(l.name);
      if (it != labels.end() && it->second == l.value) ++hits;
    }
    if (hits != labels.size()) continue;
    return f->samples()[i].value;
  }
  return std::nullopt;
}

/// Number of samples of `name` carrying all of `labels`.
inline std::size_t count(const Families& fs, const std::string& name,
                         const std::map<std::string, std::string>& labels = {}) {
  const auto* f = family(fs, name);
  if (!f) return 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < f->size(); ++i) {
    std::size_t hits = 0;
    for (const auto& l : f->labels(i)) {
      auto it = labels.find(l.name);
      if (it != labels.end() && it->second == l.value) ++hits;
    }
    if (hits == labels.size()) ++n;
  }
  return n;
}

/// All labels of the one sample of `name` whose `key` label is `val`.
inline std::map<std::string, std::string> labels_of(const Families& fs, const std::string& name,
                                                    const std::string& key, const std::string& val) {
  std::map<std::string, std::string> out;
  const auto* f = family(fs, name);
  if (!f) return out;
  for (std::size_t i = 0; i < f->size(); ++i) {
    bool match = false;
    const std::vector<Label> labels = f->labels(i);
    for (const auto& l : labels)
      if (l.name == key && l.value == val) match = true;
    if (!match) continue;
    for (const auto& l : labels) out[l.name] = l.value;
    return out;
  }
  return out;
}

}  // namespace diskperf::test
