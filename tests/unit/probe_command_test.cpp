// `probe`: a one-off probe of a directory removes the probe file it laid out,
// and leaves one that was there before.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/probe_command.h"
#include "probes/probe_target.h"
#include "test_helpers.h"

using namespace diskperf;

namespace {
ProbeCommandOptions short_read_job(const std::string& dir, const std::string& rw) {
  ProbeCommandOptions o;
  o.target = dir;
  o.rw = rw;
  o.bs = "4k";
  o.number_ios = 64;
  o.runtime = "2s";
  return o;
}
}  // namespace

TEST_CASE("probe: a directory target's probe file is removed after the run, one made earlier stays",
          "[probe][command]") {
  test::TempDir dir;
  const std::string file = probe_file_path(dir.path.string(), "probe");
  for (const char* rw : {"randread", "randwrite"}) {
    INFO(rw);
    std::ostringstream out, err;
    CHECK(run_probe_command(short_read_job(dir.path.string(), rw), HostPaths{}, out, err) == 0);
    CHECK(err.str().empty());
    CHECK(out.str().find("IOPS=") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(file));
    CHECK(std::filesystem::is_empty(dir.path));
  }

  // A probe file already there (a daemon job named "probe" on this directory) is used and kept.
  REQUIRE(prepare_probe_file(file, 64u << 20).empty());
  struct stat before{};
  REQUIRE(::stat(file.c_str(), &before) == 0);
  std::ostringstream out, err;
  CHECK(run_probe_command(short_read_job(dir.path.string(), "randread"), HostPaths{}, out, err) == 0);
  struct stat after{};
  REQUIRE(::stat(file.c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);
  CHECK(after.st_size == 64 << 20);

  // A refused job (bs not a multiple of the block size) leaves nothing either.
  std::filesystem::remove(file);
  ProbeCommandOptions bad = short_read_job(dir.path.string(), "randread");
  bad.bs = "1000";
  std::ostringstream out2, err2;
  CHECK(run_probe_command(bad, HostPaths{}, out2, err2) == 2);
  CHECK_FALSE(err2.str().empty());
  CHECK(std::filesystem::is_empty(dir.path));
}
