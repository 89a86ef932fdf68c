#include <catch2/catch.hpp>

#include "collectors/dm_table_parser.h"

using namespace diskperf;

TEST_CASE("dm table: linear", "[dmtable]") {
  auto t = parse_dm_table("0 15002730496 linear 9:127 2048\n");
  REQUIRE_FALSE(t.error);
  REQUIRE(t.segments.size() == 1);
  const auto& s = t.segments[0];
  CHECK(s.start_sectors == 0);
  CHECK(s.length_sectors == 15002730496ull);
  CHECK(s.target == "linear");
  REQUIRE(s.devices.size() == 1);
  CHECK(s.devices[0].device == "9:127");
  CHECK(s.devices[0].offset_sectors == 2048);
  CHECK_FALSE(s.stripes);
  CHECK_FALSE(s.chunk_bytes);
  CHECK(s.args == "9:127 2048");
}

TEST_CASE("dm table: LVM striped over three disks with a 64 KiB chunk", "[dmtable]") {
  auto t = parse_dm_table("0 12884877312 striped 3 128 8:32 2048 8:48 2048 8:64 2048\n");
  REQUIRE_FALSE(t.error);
  REQUIRE(t.segments.size() == 1);
  CHECK(t.segments[0].target == "striped");
  CHECK(t.segments[0].stripes == 3u);
  CHECK(t.segments[0].chunk_bytes == 65536u);
  REQUIRE(t.segments[0].devices.size() == 3);
  CHECK(t.segments[0].devices[2].device == "8:64");
}

TEST_CASE("dm table: striped with 2 to 8 stripes", "[dmtable]") {
  for (unsigned n = 2; n <= 8; ++n) {
    std::string line = "0 " + std::to_string(1048576 * n) + " striped " + std::to_string(n) + " 512";
    for (unsigned i = 0; i < n; ++i) line += " 259:" + std::to_string(i) + " " + std::to_string(2048 + i);
    auto t = parse_dm_table(line + "\n");
    INFO(line);
    REQUIRE_FALSE(t.error);
    CHECK(t.segments[0].stripes == n);
    CHECK(t.segments[0].chunk_bytes == 512u * 512);
    REQUIRE(t.segments[0].devices.size() == n);
    CHECK(t.segments[0].devices[n - 1].offset_sectors == 2048 + n - 1);
  }
}

TEST_CASE("dm table: crypt, with optional parameters, key not interpreted", "[dmtable]") {
  auto t = parse_dm_table(
      "0 15002697728 crypt aes-xts-plain64 :64:logon:cryptsetup:3f1b9a2c-7d4e-4f5a-8b6c-0d1e2f3a4b5c-d0 0 253:0 "
      "32768 1 allow_discards\n");
  REQUIRE_FALSE(t.error);
  const auto& s = t.segments[0];
  CHECK(s.target == "crypt");
  CHECK(s.cipher == "aes-xts-plain64");
  REQUIRE(s.devices.size() == 1);
  CHECK(s.devices[0].device == "253:0");
  CHECK(s.devices[0].offset_sectors == 32768);
  CHECK_FALSE(s.stripes);
}

TEST_CASE("dm table: several segments (an LV extended over two PVs, then striped)", "[dmtable]") {
  auto t = parse_dm_table(
      "0 2097152 linear 8:17 2048\n"
      "2097152 1048576 linear 8:33 2048\n"
      "3145728 4194304 striped 2 256 8:49 2048 8:65 2048\n"
      "7340032 8 zero\n");
  REQUIRE_FALSE(t.error);
  REQUIRE(t.segments.size() == 4);
  CHECK(t.segments[1].start_sectors == 2097152);
  CHECK(t.segments[1].devices[0].device == "8:33");
  CHECK(t.segments[2].stripes == 2u);
  CHECK(t.segments[2].chunk_bytes == 131072u);
  CHECK(t.segments[3].target == "zero");
  CHECK(t.segments[3].args.empty());
  // No trailing newline, CRLF and blank lines are accepted.
  auto u = parse_dm_table("\n0 8 linear 8:1 0\r\n\n8 8 linear 8:2 0");
  REQUIRE_FALSE(u.error);
  CHECK(u.segments.size() == 2);
}

TEST_CASE("dm table: malformed lines give a clear error and no segments", "[dmtable]") {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"", "empty table"},
      {"\n\n", "empty table"},
      {"0 100\n", "line 1: expected <start> <length> <target> [args], got '0 100'"},
      {"x 100 linear 8:1 0\n", "line 1: bad start sector 'x'"},
      {"0 -5 linear 8:1 0\n", "line 1: bad length '-5'"},
      {"0 0 linear 8:1 0\n", "line 1: bad length '0'"},
      {"0 99999999999999999999 linear 8:1 0\n", "line 1: bad length '99999999999999999999'"},
      {"0 100 linear 8:1\n", "line 1: linear: expected 2 arguments (dev offset), got 1"},
      {"0 100 linear 8:1 abc\n", "line 1: bad offset 'abc'"},
      {"0 100 striped 3 128 8:32 2048 8:48 2048\n", "line 1: striped: expected 2 + 2 x 3 arguments, got 6"},
      {"0 100 striped 0 128\n", "line 1: striped: bad stripe count '0'"},
      {"0 100 striped two 128 8:1 0 8:2 0\n", "line 1: striped: bad stripe count 'two'"},
      {"0 100 striped 2 0 8:1 0 8:2 0\n", "line 1: striped: bad chunk size '0'"},
      {"0 100 striped 2\n", "line 1: striped: expected <#stripes> <chunk_sectors> then devices"},
      {"0 100 crypt aes-xts-plain64 key 0 253:0\n",
       "line 1: crypt: expected at least 5 arguments (cipher key iv_offset dev offset)"},
      {"8 100 linear 8:1 0\n", "line 1: segment starts at sector 8, expected 0 (gap or overlap)"},
      {"0 100 linear 8:1 0\n150 100 linear 8:2 0\n", "line 2: segment starts at sector 150, expected 100 (gap or overlap)"},
      {"0 100 linear 8:1 0\n0 100 linear 8:2 0\n", "line 2: segment starts at sector 0, expected 100 (gap or overlap)"},
      {"0 18446744073709551615 linear 8:1 0\n18446744073709551615 1 linear 8:1 0\n", "line 2: length overflows"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto t = parse_dm_table(c.text);
    REQUIRE(t.error);
    CHECK(*t.error == c.error);
    CHECK(t.segments.empty());
  }
}
