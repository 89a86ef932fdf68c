// `check`: verdicts, exit codes, the throughput shape's block size, and the table.

#include <catch2/catch.hpp>

#include "daemon/check_command.h"

using namespace diskperf;

namespace {
CheckRow row(double iops_cap, double mbps_cap, double iops, double mbps, const std::string& caching = "None") {
  CheckRow r;
  r.device = "sdc";
  r.tier = "P30";
  r.caching = caching;
  r.iops_cap = iops_cap;
  r.bytes_per_second_cap = mbps_cap * 1e6;
  r.iops_shape.bs = 4096;
  r.iops_shape.reachable_iops = std::min(iops_cap, mbps_cap * 1e6 / 4096);
  r.iops_shape.iops = iops;
  r.throughput_shape.bs = throughput_block_size(iops_cap, mbps_cap * 1e6);
  r.throughput_shape.reachable_iops = std::min(iops_cap, mbps_cap * 1e6 / static_cast<double>(r.throughput_shape.bs));
  r.throughput_shape.bytes_per_second = mbps * 1e6;
  r.throughput_shape.iops = mbps * 1e6 / static_cast<double>(r.throughput_shape.bs);
  return r;
}
}  // namespace

TEST_CASE("check: throughput shape block size makes the throughput cap bind", "[check]") {
  CHECK(throughput_block_size(5000, 200e6) == 65536);    // P30: 200e6 / 65536 = 3052 IOPS <= 5000
  CHECK(throughput_block_size(500, 100e6) == 262144);    // P10: 100e6 / 131072 = 763 > 500; / 262144 = 381
  CHECK(throughput_block_size(120, 25e6) == 262144);     // P1: 25e6 / 262144 = 95 <= 120
  CHECK(throughput_block_size(500, 60e6) == 131072);     // E10: 60e6 / 131072 = 458 <= 500
  CHECK(throughput_block_size(1, 1e12) == 1048576);      // bounded at 1 MiB
}

TEST_CASE("check: verdicts and exit codes", "[check]") {
  // A P10-throttled disk checked as P30: 500 of 5000 IOPS.
  CheckRow below = row(5000, 200, 500, 100);
  below.verdict = check_verdict(below, 0.9);
  CHECK(below.verdict == "below");
  // The same disk checked as P10: 500 of 500 IOPS, 100 of 100 MB/s.
  CheckRow meets = row(500, 100, 498, 99.5);
  meets.verdict = check_verdict(meets, 0.9);
  CHECK(meets.verdict == "meets");
  CHECK(check_verdict(row(500, 100, 449, 100), 0.9) == "below");   // 449 < 0.9 x 500
  CHECK(check_verdict(row(500, 100, 451, 100), 0.9) == "meets");
  CHECK(check_verdict(row(500, 100, 500, 89), 0.9) == "below");    // MB/s shape short
  CHECK(check_verdict(row(500, 100, 451, 100), 0.95) == "below");  // configurable fraction
  CHECK(check_verdict(row(500, 100, 3500, 170), 0.9) == "bursting");  // credit bursting
  CHECK(check_verdict(row(500, 100, 3500, 100, "ReadOnly"), 0.9) == "cached");
  CheckRow err = row(500, 100, 0, 0);
  err.iops_shape.error = "open /dev/x: No such file or directory";
  CHECK(check_verdict(err, 0.9) == "error");
  err.verdict = "error";

  CHECK(check_exit_code({meets}) == 0);
  CHECK(check_exit_code({meets, below}) == 1);
  CHECK(check_exit_code({meets, below, err}) == 2);
  CHECK(check_exit_code({}) == 2);
}

TEST_CASE("check: text table and JSON", "[check]") {
  CheckRow r = row(5000, 200, 500, 100);
  r.iops_shape.p99_seconds = 0.5123;
  r.azure = "lun0";
  r.verdict = "below";
  const std::string text = check_text({r});
  CHECK(text ==
        "DEVICE  AZURE  TIER  CACHING  IOPS_CAP  IOPS  IOPS%  MB/s_CAP  MB/s   MB/s%  P99_ms  VERDICT\n"
        "sdc     lun0   P30   None     5000      500   10     200       100.0  50     512.30  below\n");
  const std::string json = check_json({r});
  CHECK(json.find("\"verdict\": \"below\"") != std::string::npos);
  CHECK(json.find("\"iops_percent\": 10.0") != std::string::npos);
}
