// Bounds on what a config load takes and reports: the caps on probe jobs, tier
// rules, collection sizes and YAML nodes (config/yaml_limits.h), the cap on the
// errors one load reports (daemon/reloader.h), and the host check that refuses
// a write job whose probe file path holds something not the exporter's own.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "config/yaml_limits.h"
#include "daemon/collector_set.h"
#include "daemon/reloader.h"
#include "test_helpers.h"

using namespace diskperf;

namespace {

std::string probes(std::size_t n, bool same_name = false) {
  std::string y = "probes:\n";
  for (std::size_t i = 0; i < n; ++i)
    y += "  - {name: p" + (same_name ? std::string() : std::to_string(i)) + ", target: /dev/sdc}\n";
  return y;
}

}  // namespace

TEST_CASE("config limits: 1000 probe jobs pass, the 1001st is refused where it is", "[config][limits]") {
  auto ok = parse_config(probes(kMaxProbeJobs));
  REQUIRE(ok.config);
  CHECK(ok.config->probes.size() == kMaxProbeJobs);
  auto r = parse_config(probes(kMaxProbeJobs + 1));
  CHECK_FALSE(r.config);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].line == static_cast<int>(kMaxProbeJobs) + 2);
  CHECK(r.errors[0].column == 5);
  CHECK(r.errors[0].message.find("more than 1000 probe jobs") != std::string::npos);
}

TEST_CASE("config limits: tier rules are capped per list", "[config][limits]") {
  for (const char* list : {"disks", "custom", "vm_sizes"}) {
    std::string y = std::string("tiers:\n  ") + list + ":\n";
    for (std::size_t i = 0; i <= kMaxTierRules; ++i) y += "    - {glob: 'sd" + std::to_string(i) + "', tier: P10}\n";
    auto r = parse_config(y);
    INFO(list);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].line == static_cast<int>(kMaxTierRules) + 3);
    CHECK(r.errors[0].message.find(std::string("more than 1000 entries in tiers.") + list) != std::string::npos);
  }
}

TEST_CASE("config limits: any other list or mapping, and the whole file's nodes", "[config][limits]") {
  std::string list = "probes:\n  - name: p\n    target: [";
  for (std::size_t i = 0; i <= kMaxCollectionItems; ++i) list += "x,";
  auto r = parse_config(list + "]\n");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].message.find("more than 1000 items in a list") != std::string::npos);

  std::string map = "collectors:\n";
  for (std::size_t i = 0; i <= kMaxCollectionItems; ++i) map += "  k" + std::to_string(i) + ": 1\n";
  r = parse_config(map);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].line == static_cast<int>(kMaxCollectionItems) + 2);
  CHECK(r.errors[0].message.find("more than 1000 keys in a mapping") != std::string::npos);

  std::string many = "probes:\n";  // lists within their caps, nodes past the file's cap
  std::string row = "[";
  for (int i = 0; i < 999; ++i) row += "1,";
  row += "1]";
  for (std::size_t i = 0; i < kMaxYamlNodes / 1000 + 1; ++i) many += "  - " + row + "\n";
  r = parse_config(many);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].message.find("more than " + std::to_string(kMaxYamlNodes) + " YAML nodes") != std::string::npos);
  // The root mapping, its key and the list come first; then each row is 1001 nodes, one per line.
  CHECK(r.errors[0].line == static_cast<int>(2 + (kMaxYamlNodes - 3) / 1001));
}

TEST_CASE("config limits: invalid YAML is left to the full parse", "[config][limits]") {
  CHECK_FALSE(check_yaml_limits("probes: [a, b\n"));
  auto r = parse_config("probes: [a, b\n");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].message.find("invalid YAML") != std::string::npos);
}

TEST_CASE("config errors: at most 20 reported, then one line with the count of the rest", "[config][limits]") {
  test::TempDir dir;
  dir.write("c.yml", probes(30, true));  // 29 duplicate names
  const std::string path = dir.str() + "/c.yml";
  ConfigResult r = load_config_file(path);
  CHECK_FALSE(r.config);
  REQUIRE(r.errors.size() == kMaxReportedConfigErrors + 1);
  CHECK(r.errors[0].message == "duplicate probe name 'p'");
  CHECK(r.errors[0].line == 3);
  CHECK(r.errors.back().line == 0);
  CHECK(r.errors.back().message == path + ": 9 more error(s) not shown (the first 20 are)");
  dir.write("d.yml", probes(21, true));  // 20 errors: all shown
  CHECK(load_config_file(dir.str() + "/d.yml").errors.size() == 20);
}

namespace {

// The host check's errors for one write job on directory `dir`.
std::vector<ConfigError> check_write_job(const std::string& dir) {
  auto r = parse_config("probes:\n  - name: w\n    target: " + dir + "\n    rw: randwrite\n    file_size: 1m\n");
  REQUIRE(r.config);
  Options o;
  return check_config_on_host(o, *r.config);
}

}  // namespace

TEST_CASE("host check: a write job's probe file path holding a foreign file is refused", "[config][probe]") {
  test::TempDir dir;
  const std::string file = dir.str() + "/.diskperf_probe_w.dat";
  dir.write("db.dat", "data");
  const std::string other = dir.str() + "/db.dat";
  auto refused = [&](const std::string& why) {
    auto errs = check_write_job(dir.str());
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].line == 2);
    CHECK(errs[0].column == 5);
    CHECK(errs[0].message.find("probe 'w': " + file) == 0);
    CHECK(errs[0].message.find(why) != std::string::npos);
    std::filesystem::remove(file);
  };
  SECTION("nothing there: accepted, and nothing is created") {
    CHECK(check_write_job(dir.str()).empty());
    CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(file)));
  }
  SECTION("the exporter's own file: accepted") {
    dir.write(".diskperf_probe_w.dat", "x");
    CHECK(check_write_job(dir.str()).empty());
  }
  SECTION("a symbolic link") {
    REQUIRE(::symlink(other.c_str(), file.c_str()) == 0);
    refused("is not a regular file");
  }
  SECTION("a hard link") {
    REQUIRE(::link(other.c_str(), file.c_str()) == 0);
    refused("has 2 links");
  }
  SECTION("a FIFO") {
    REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    refused("is not a regular file");
  }
  SECTION("another user's file") {
    if (::geteuid() != 0) {
      WARN("not root: cannot make a file of another user");
      return;
    }
    dir.write(".diskperf_probe_w.dat", "x");
    REQUIRE(::chown(file.c_str(), 65534, 65534) == 0);
    refused("is owned by uid 65534");
  }
  CHECK(std::filesystem::file_size(other) == 4);  // never written
}

TEST_CASE("config limits: a probe timeout is at most kMaxProbeTimeout", "[config][limits]") {
  auto job = [](const std::string& t) {
    return parse_config("probes:\n  - name: p\n    target: /dev/sdc\n    timeout: " + t + "\n");
  };
  CHECK(job("60s").config);
  auto r = job("61s");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].line == 4);
  CHECK(r.errors[0].message.find("at most 60s") != std::string::npos);
}
