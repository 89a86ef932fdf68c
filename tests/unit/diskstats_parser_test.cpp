#include <catch2/catch.hpp>

#include "collectors/diskstats_parser.h"
#include "test_helpers.h"

using namespace diskperf;
using diskperf::test::fixture;
using diskperf::test::slurp;

namespace {
const DiskstatsEntry& find(const DiskstatsParse& p, const std::string& dev) {
  for (const auto& e : p.entries)
    if (e.device == dev) return e;
  FAIL("device " << dev << " not parsed");
  throw;
}
}  // namespace

TEST_CASE("diskstats 4.17 layout: 14 fields, no discard or flush", "[diskstats]") {
  auto p = parse_diskstats(slurp(fixture("diskstats/linux-4.17/diskstats")));
  REQUIRE(p.rejected.empty());
  REQUIRE(p.entries.size() == 4);
  const auto& sda = find(p, "sda");
  CHECK(sda.major == 8);
  CHECK(sda.minor == 0);
  CHECK(sda.field_count == 11);
  REQUIRE(sda.io);
  CHECK(sda.io->reads_completed == 114882);
  CHECK(sda.io->reads_merged == 2545);
  CHECK(sda.io->sectors_read == 6381958);
  CHECK(sda.io->read_time_ms == 58870);
  CHECK(sda.io->writes_completed == 198217);
  CHECK(sda.io->writes_merged == 186468);
  CHECK(sda.io->sectors_written == 7935746);
  CHECK(sda.io->write_time_ms == 229604);
  CHECK(sda.io->ios_in_progress == 0);
  CHECK(sda.io->io_time_ms == 131376);
  CHECK(sda.io->weighted_io_time_ms == 288412);
  CHECK_FALSE(sda.discard);
  CHECK_FALSE(sda.flush);
  CHECK_FALSE(sda.legacy_partition);
  CHECK(find(p, "dm-3").io->ios_in_progress == 2);
  const auto& pm = find(p, "pm-0");
  CHECK(pm.io->reads_completed == 5000000000ULL);  // above 2^32
  CHECK(pm.io->sectors_read == 10000000000ULL);
}

TEST_CASE("diskstats 4.18 layout: 18 fields with discards", "[diskstats]") {
  auto p = parse_diskstats(slurp(fixture("diskstats/linux-4.18/diskstats")));
  REQUIRE(p.rejected.empty());
  REQUIRE(p.entries.size() == 3);
  const auto& sda = find(p, "sda");
  REQUIRE(sda.discard);
  CHECK(sda.discard->discards_completed == 1024);
  CHECK(sda.discard->discards_merged == 3);
  CHECK(sda.discard->sectors_discarded == 2097152);
  CHECK(sda.discard->discard_time_ms == 45);
  CHECK_FALSE(sda.flush);
  CHECK(find(p, "nvme0n1p2").io->reads_completed == 46871);
}

TEST_CASE("diskstats 5.5 layout: 20 fields with flushes", "[diskstats]") {
  auto p = parse_diskstats(slurp(fixture("diskstats/linux-5.5/diskstats")));
  REQUIRE(p.rejected.empty());
  REQUIRE(p.entries.size() == 6);
  const auto& vda = find(p, "vda");
  CHECK(vda.field_count == 17);
  REQUIRE(vda.flush);
  CHECK(vda.flush->flush_requests_completed == 102);
  CHECK(vda.flush->flush_time_ms == 7);
  CHECK(vda.discard->sectors_discarded == 79776);
  CHECK(find(p, "md127").io->reads_completed == 4294967297ULL);
}

TEST_CASE("diskstats future layout: extra columns ignored", "[diskstats]") {
  auto p = parse_diskstats(slurp(fixture("diskstats/linux-future/diskstats")));
  REQUIRE(p.rejected.empty());
  REQUIRE(p.entries.size() == 1);
  const auto& sdb = p.entries[0];
  CHECK(sdb.field_count == 20);
  CHECK(sdb.io->weighted_io_time_ms == 12);
  CHECK(sdb.flush->flush_requests_completed == 3);
  CHECK(sdb.flush->flush_time_ms == 4);
}

TEST_CASE("diskstats 2.6 short partition lines keep their own meaning", "[diskstats]") {
  auto p = parse_diskstats(slurp(fixture("diskstats/linux-2.6/diskstats")));
  REQUIRE(p.rejected.empty());
  REQUIRE(p.entries.size() == 3);
  const auto& hda = find(p, "hda");
  CHECK(hda.io);
  CHECK_FALSE(hda.legacy_partition);
  const auto& hda1 = find(p, "hda1");
  CHECK_FALSE(hda1.io);
  REQUIRE(hda1.legacy_partition);
  CHECK(hda1.legacy_partition->reads_issued == 35486);
  CHECK(hda1.legacy_partition->sectors_read_issued == 38030);
  CHECK(find(p, "hda2").legacy_partition->writes_issued == 3);
  CHECK(find(p, "hda2").legacy_partition->sectors_written_issued == 24);
}

TEST_CASE("diskstats device names are taken verbatim", "[diskstats]") {
  auto p = parse_diskstats(
      "  8 0 cciss/c0d0 1 2 3 4 5 6 7 8 9 10 11\n"
      "253 9 dm-9 1 2 3 4 5 6 7 8 9 10 11\n"
      "259 3 nvme0n1p2 1 2 3 4 5 6 7 8 9 10 11\n"
      "  1 0 my-weird_dev.1 1 2 3 4 5 6 7 8 9 10 11\n");
  REQUIRE(p.rejected.empty());
  REQUIRE(p.entries.size() == 4);
  CHECK(p.entries[0].device == "cciss/c0d0");
  CHECK(p.entries[1].device == "dm-9");
  CHECK(p.entries[2].device == "nvme0n1p2");
  CHECK(p.entries[3].device == "my-weird_dev.1");
}

TEST_CASE("diskstats bad input is skipped line by line", "[diskstats][bad-input]") {
  SECTION("empty text") {
    auto p = parse_diskstats("");
    CHECK(p.entries.empty());
    CHECK(p.rejected.empty());
  }
  SECTION("truncated last line") {
    auto p = parse_diskstats("8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 16 sdb 1 2 3 4 5 6 7 8 9 10 1");
    REQUIRE(p.entries.size() == 1);
    CHECK(p.entries[0].device == "sda");
    REQUIRE(p.rejected.size() == 1);
    CHECK(p.rejected[0].line_number == 2);
  }
  SECTION("non-numeric field") {
    auto p = parse_diskstats("8 0 sda 1 2 x 4 5 6 7 8 9 10 11\n8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n");
    REQUIRE(p.entries.size() == 1);
    CHECK(p.entries[0].device == "sdb");
    REQUIRE(p.rejected.size() == 1);
    CHECK(p.rejected[0].reason.find("field 3") != std::string::npos);
  }
  SECTION("negative, overflowing and fractional numbers") {
    auto p = parse_diskstats(
        "8 0 sda -1 2 3 4 5 6 7 8 9 10 11\n"
        "8 1 sdb 18446744073709551616 2 3 4 5 6 7 8 9 10 11\n"
        "8 2 sdc 1.5 2 3 4 5 6 7 8 9 10 11\n"
        "8 3 sdd 18446744073709551615 2 3 4 5 6 7 8 9 10 11\n");
    REQUIRE(p.entries.size() == 1);
    CHECK(p.entries[0].io->reads_completed == 18446744073709551615ULL);
    CHECK(p.rejected.size() == 3);
  }
  SECTION("too few fields and impossible field counts") {
    auto p = parse_diskstats(
        "8 0\n"
        "8 0 sda 1 2 3\n"
        "8 0 sda 1 2 3 4 5 6 7 8 9 10\n"
        "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12\n"
        "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
        "x 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
        "8 1 sdb 1 2 3 4 5 6 7 8 9 10 11\n");
    REQUIRE(p.entries.size() == 1);
    CHECK(p.entries[0].device == "sdb");
    CHECK(p.rejected.size() == 6);
  }
  SECTION("binary garbage") {
    std::string junk(4096, '\0');
    for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>((i * 131) % 256);
    auto p = parse_diskstats(junk + "\n8 1 sdb 1 2 3 4 5 6 7 8 9 10 11\n");
    REQUIRE(p.entries.size() == 1);
    CHECK(p.entries[0].device == "sdb");
  }
  SECTION("5,000 devices") {
    std::string text;
    for (int i = 0; i < 5000; ++i) {
      text += "253 " + std::to_string(i) + " dm-" + std::to_string(i) + " " + std::to_string(i) +
              " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
    }
    auto p = parse_diskstats(text);
    REQUIRE(p.entries.size() == 5000);
    CHECK(p.rejected.empty());
    CHECK(p.entries[4999].device == "dm-4999");
    CHECK(p.entries[4999].io->reads_completed == 4999);
  }
}

TEST_CASE("diskstats rejects unprintable, over-long and duplicate device names", "[diskstats][bad-input]") {
  auto p = parse_diskstats(
      "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
      "8 1 sd\xff\xfe 1 2 3 4 5 6 7 8 9 10 11\n"
      "8 0 sda 9 2 3 4 5 6 7 8 9 10 11\n"
      "8 2 " + std::string(400, 'a') + " 1 2 3 4 5 6 7 8 9 10 11\n"
      "8 3 sdb 1 2 3 4 5 6 7 8 9 10 11\n");
  REQUIRE(p.entries.size() == 2);
  CHECK(p.entries[0].device == "sda");
  CHECK(p.entries[0].io->reads_completed == 1);  // the first line wins
  CHECK(p.entries[1].device == "sdb");
  REQUIRE(p.rejected.size() == 3);
  CHECK(p.rejected[0].reason == "device name is not printable ASCII");
  CHECK(p.rejected[1].reason == "duplicate device sda");
  CHECK(p.rejected[2].reason == "device name longer than 128 bytes");
}
