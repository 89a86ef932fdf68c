// The `probes:` list of the YAML config, and the safety rules a job is
// checked against once its target is known (check_job_against_target).

#include <catch2/catch.hpp>

#include "config/config.h"
#include "probes/probe_target.h"

using namespace diskperf;

namespace {

// The single error of a config with one probe, whose body is `body` (indented 4).
ConfigError one_error(const std::string& body) {
  auto r = parse_config("probes:\n  - name: p\n" + body);
  INFO(body);
  REQUIRE_FALSE(r.config);
  REQUIRE(r.errors.size() == 1);
  return r.errors[0];
}

bool has(const ConfigError& e, const std::string& text) { return e.message.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("probe config: a full job and defaults", "[config][probe]") {
  auto r = parse_config(
      "probes:\n"
      "  - name: data_8k\n"
      "    target: /dev/sdc\n"
      "    rw: randread\n"
      "    bs: 8k\n"
      "    iodepth: 8\n"
      "    runtime: 500ms\n"
      "    rate_iops: 500\n"
      "    interval: 60s\n"
      "    jitter: 5s\n"
      "    offset: 1m\n"
      "    size: 1g\n"
      "  - name: log\n"
      "    preset: log_write\n"
      "    target: /var/lib/db\n"
      "    number_ios: 100\n");
  for (const auto& e : r.errors) INFO(e.to_string("c"));
  REQUIRE(r.config);
  REQUIRE(r.config->probes.size() == 2);
  const ProbeJob& a = r.config->probes[0];
  CHECK(a.name == "data_8k");
  CHECK(a.target == "/dev/sdc");
  CHECK(a.rw == RwMode::randread);
  CHECK(a.bs == 8192);
  CHECK(a.iodepth == 8);
  CHECK(a.runtime == std::chrono::milliseconds(500));
  CHECK(a.rate_iops == 500.0);
  CHECK(a.interval == std::chrono::seconds(60));
  CHECK(a.jitter == std::chrono::seconds(5));
  CHECK(a.timeout == std::chrono::seconds(10));  // default
  CHECK(a.offset == 1048576);
  CHECK(a.size == 1073741824);
  CHECK(a.config_line == 2);
  const ProbeJob& b = r.config->probes[1];
  CHECK(b.rw == RwMode::write);
  CHECK(b.bs == 4096);
  CHECK(b.iodepth == 1);
  CHECK(b.number_ios == 100);
  CHECK(b.runtime.count() == 0);
}

TEST_CASE("probe config: each validation error", "[config][probe][bad-input]") {
  auto e = one_error("    target: /dev/sdc\n    rw: randomread\n");
  CHECK(has(e, "rw 'randomread' is not one of read, randread"));
  CHECK(e.line == 4);
  CHECK(e.column == 9);
  CHECK(has(one_error("    target: /dev/sdc\n    iodepth: 0\n"), "iodepth must be between 1 and 65536"));
  CHECK(has(one_error("    target: /dev/sdc\n    iodepth: -3\n"), "iodepth '-3' is not a non-negative integer"));
  CHECK(has(one_error("    target: /dev/sdc\n    bs: 8x\n"), "bs '8x' is not a size"));
  CHECK(has(one_error("    target: /dev/sdc\n    bs: 1000\n"), "bs must be a multiple of 512"));
  CHECK(has(one_error("    target: /dev/sdc\n    rw: randwrite\n"), "block devices are only ever read"));
  CHECK(has(one_error("    rw: read\n"), "target is required"));
  CHECK(has(one_error("    target: dev/sdc\n"), "must be an absolute path"));
  CHECK(has(one_error("    target: /dev/sdc\n    preset: fastest\n"), "preset 'fastest' is unknown"));
  CHECK(has(one_error("    target: /dev/sdc\n    runtime: 1s\n    number_ios: 10\n"), "exclude each other"));
  CHECK(has(one_error("    target: /dev/sdc\n    runtime: 10s\n    interval: 60s\n"),
            "exceeds the duty-cycle budget"));
  CHECK(has(one_error("    target: /dev/sdc\n    timeout: soon\n"), "timeout 'soon' is not a duration"));
  CHECK(has(one_error("    target: /dev/sdc\n    rw: read\n    rwmixread: 70\n"), "needs rw: randrw"));
  CHECK(has(one_error("    target: /data\n    rw: randrw\n    rwmixread: 170\n"), "must be a percentage"));
  CHECK(has(one_error("    target: /dev/sdc\n    rate_iops: 0\n"), "rate_iops must be a positive finite number"));
  CHECK(has(one_error("    target: /dev/sdc\n    rate_iops: .nan\n"), "rate_iops '.nan' is not a number"));
  CHECK(has(one_error("    target: /dev/sdc\n    rate_iops: .inf\n"), "rate_iops '.inf' is not a number"));
  CHECK(has(one_error("    target: /dev/sdc\n    jitter: 2m\n"), "jitter must not exceed interval"));
  CHECK(has(one_error("    target: /dev/sdc\n    colour: red\n"), "unknown key 'colour' in a probe"));
  CHECK(has(one_error("    target: /dev/sdc\n    bs: 8k\n    size: 4k\n"), "size is smaller than bs"));
  auto big = one_error("    target: /dev/sdc\n    bs: 64M\n    iodepth: 1024\n");
  CHECK(has(big, "bs x iodepth needs 67108864 x 1024 bytes of buffers (each rounded up to 4 KiB); at most "
                 "268435456 (256 MiB) per job"));
  // 512-byte buffers take a page each: 65536 of them are 256 MiB, not 32 MiB.
  CHECK(parse_config("probes:\n  - {name: a, target: /dev/sdc, bs: 512, iodepth: 65536}\n").errors.empty());
  CHECK(has(one_error("    target: /dev/sdc\n    bs: 8704\n    iodepth: 32768\n"), "bytes of buffers"));
  CHECK(has(one_error("    target: /data\n    file_size: 1000000\n"), "file_size must be a multiple of 4096"));
  CHECK(big.line == 4);  // at bs
  CHECK(parse_config("probes:\n  - {name: a, target: /dev/sdc, bs: 1M, iodepth: 256}\n").errors.empty());  // exactly 256 MiB
  auto dup = parse_config("probes:\n  - {name: a, target: /dev/sda}\n  - {name: a, target: /dev/sdb}\n");
  REQUIRE(dup.errors.size() == 1);
  CHECK(has(dup.errors[0], "duplicate probe name 'a'"));
  CHECK(has(parse_config("probes: {name: a}\n").errors.at(0), "probes must be a list"));
}

TEST_CASE("probe safety: a job checked against its target", "[probe][safety]") {
  TargetInfo dev;
  dev.kind = TargetKind::block_device;
  dev.size = 64ull << 20;
  dev.logical_block_size = 4096;
  ProbeJob job;
  job.name = "p";
  job.target = "/dev/x";
  job.bs = 8192;
  CHECK(check_job_against_target(job, dev).empty());

  ProbeJob w = job;
  w.rw = RwMode::randrw;
  auto e = check_job_against_target(w, dev);
  REQUIRE(e.size() == 1);
  CHECK(e[0].find("is a block device, which is only ever read") != std::string::npos);

  ProbeJob small = job;
  small.bs = 512;  // below the 4096-byte logical block size
  e = check_job_against_target(small, dev);
  REQUIRE(e.size() == 1);
  CHECK(e[0].find("bs=512 is not a multiple of the logical block size (4096 bytes)") != std::string::npos);

  ProbeJob big = job;
  big.offset = 32ull << 20;
  big.size = 64ull << 20;  // region ends 32 MiB past the device's end
  e = check_job_against_target(big, dev);
  REQUIRE(e.size() == 1);
  CHECK(e[0].find("does not fit in /dev/x (67108864 bytes)") != std::string::npos);

  ProbeJob wrap = job;  // offset + size wraps around 2^64 to 0: still refused
  wrap.offset = 1ull << 63;
  wrap.size = 1ull << 63;
  e = check_job_against_target(wrap, dev);
  REQUIRE(e.size() == 1);
  CHECK(e[0].find("does not fit in /dev/x (67108864 bytes)") != std::string::npos);

  TargetInfo file = dev;
  file.kind = TargetKind::regular_file;
  e = check_job_against_target(w, file);
  REQUIRE(e.size() == 1);
  CHECK(e[0].find("is an existing file") != std::string::npos);

  TargetInfo dir;
  dir.kind = TargetKind::directory;
  dir.logical_block_size = 512;
  w.file_size = 1 << 20;
  CHECK(check_job_against_target(w, dir).empty());  // writes go to the probe file
  w.size = 2 << 20;
  CHECK(check_job_against_target(w, dir).size() == 1);  // region larger than the probe file
}
