#include <catch2/catch.hpp>

#include <chrono>
#include <random>

#include "collectors/perfcounters_parser.h"
#include "test_helpers.h"

using namespace diskperf;
using diskperf::test::fixture;
using diskperf::test::slurp;

namespace {

const std::string kManaged = "azure/PerfCounters.managed.sample";
const std::string kPremium = "azure/PerfCounters.premium-unmanaged.sample";

const PerfCounter& find(const PerfCountersParse& p, const std::string& category, const std::string& name,
                        const std::string& instance = "") {
  for (const auto& c : p.counters)
    if (c.category == category && c.name == name && c.instance == instance) return c;
  FAIL("counter " << category << ";" << name << ";" << instance << " not parsed");
  throw;
}

bool same(const PerfCounter& a, const PerfCounter& b) {
  return a.type == b.type && a.category == b.category && a.name == b.name && a.instance == b.instance &&
         a.empty == b.empty && a.value == b.value && a.number == b.number && a.unit == b.unit &&
         a.refresh_interval_s == b.refresh_interval_s && a.timestamp == b.timestamp && a.machine == b.machine;
}

std::string line(const std::string& value, const std::string& type = "1", const std::string& flag = "0") {
  return type + ";disk;SLA;sdc;" + flag + ";" + value + ";Ops/sec;0;1761903000;vm-sample-01;\n";
}

}  // namespace

TEST_CASE("perfcounters: managed sample, every field of typical lines", "[azure][parser]") {
  auto p = parse_perfcounters(slurp(fixture(kManaged)));
  CHECK(p.rejected_lines == 0);
  CHECK_FALSE(p.ends_mid_line);
  REQUIRE(p.counters.size() == 56);
  const auto& first = p.counters.front();
  CHECK(first.type == PerfCounterType::dbl);
  CHECK(first.category == "cpu");
  CHECK(first.name == "Current Hw Frequency");
  CHECK(first.instance.empty());
  CHECK_FALSE(first.empty);
  CHECK(first.value == "2593.906");
  CHECK(first.number == 2593.906);
  CHECK(first.unit == "MHz");
  CHECK(first.refresh_interval_s == 60);
  CHECK(first.timestamp == 1761903000);
  CHECK(first.machine == "vm-sample-01");
  // Type 3 ("large") carrying a float: the value is parsed as written, not by type.
  const auto& rd = find(p, "network", "Network Read Bytes", "eth0");
  CHECK(rd.type == PerfCounterType::int64);
  CHECK(rd.number == 10583926.1895);
  // /dev/sda (OS disk) and bare sdc both read as kernel names.
  CHECK(find(p, "disk", "SLA", "sda").number == 500);
  CHECK(find(p, "disk", "SLA Throughput", "sdc").number == 250);
  CHECK(find(p, "storage", "Phys. Disc to Storage Mapping", "sdb").value == "not mapped to vhd");
  CHECK(find(p, "storage", "Phys. Disc to Storage Mapping", "sdd").value == "None vm-sample-01-datadisk01");
  const auto& cpu = find(p, "cpu", "Processor Type");
  CHECK(cpu.type == PerfCounterType::string);
  CHECK(cpu.value == "Intel(R) Xeon(R) Platinum 8272CL CPU @ 2.60GHz, GenuineIntel");
  CHECK_FALSE(cpu.number);
  CHECK(find(p, "config", "Error").number == 0);
  CHECK(find(p, "config", "SLA Max Disk Bandwidth per VM").unit == "Ops/sec");
  CHECK(find(p, "config", "SLA Max Disk Bandwidth per VM").number == 768);
  CHECK(p.counters.back().name == "SLA Max Disk IOPS per VM");
  CHECK(p.counters.back().number == 51200);
}

TEST_CASE("perfcounters: premium-unmanaged sample, empty values and storage accounts", "[azure][parser]") {
  auto p = parse_perfcounters(slurp(fixture(kPremium)));
  CHECK(p.rejected_lines == 0);
  CHECK_FALSE(p.ends_mid_line);
  REQUIRE(p.counters.size() == 65);
  const auto& e2e = find(p, "storage", "Storage Read Op Latency E2E msec", "samplestd01");
  CHECK(e2e.empty);
  CHECK(e2e.value.empty());
  CHECK_FALSE(e2e.number);
  CHECK(e2e.unit == "ms");
  CHECK(find(p, "storage", "Storage Write Bytes", "samplestd01").number == 61521968);
  CHECK(find(p, "storage", "Storage Write Throughput E2E MB/sec", "samplestd01").number == 0.977865346273);
  CHECK(find(p, "disk", "Storage Type", "sda").value == "Standard");
  CHECK(find(p, "config", "Instance Type").timestamp == 1761903001);
}

TEST_CASE("perfcounters: CRLF and a missing final newline parse the same", "[azure][parser][bad-input]") {
  const std::string text = slurp(fixture(kPremium));
  auto lf = parse_perfcounters(text);
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  for (const std::string& variant : {crlf, text.substr(0, text.size() - 1), crlf.substr(0, crlf.size() - 1),
                                     crlf.substr(0, crlf.size() - 2)}) {
    auto p = parse_perfcounters(variant);
    CHECK(p.rejected_lines == 0);
    CHECK_FALSE(p.ends_mid_line);
    REQUIRE(p.counters.size() == lf.counters.size());
    for (std::size_t i = 0; i < lf.counters.size(); ++i) CHECK(same(p.counters[i], lf.counters[i]));
  }
}

TEST_CASE("perfcounters: the sample cut at every byte offset gives only complete lines", "[azure][parser][bad-input]") {
  for (const auto& name : {kManaged, kPremium}) {
    const std::string text = slurp(fixture(name));
    const auto full = parse_perfcounters(text);
    for (std::size_t k = 0; k <= text.size(); ++k) {
      const std::string_view cut(text.data(), k);
      auto p = parse_perfcounters(cut);
      REQUIRE(p.rejected_lines == 0);
      REQUIRE(p.counters.size() <= full.counters.size());
      for (std::size_t i = 0; i < p.counters.size(); ++i) REQUIRE(same(p.counters[i], full.counters[i]));
      // A cut is mid-line unless it falls at a line end (before or after the '\n').
      const bool at_line_end = k == 0 || text[k - 1] == '\n' || (k < text.size() && text[k] == '\n');
      REQUIRE(p.ends_mid_line == !at_line_end);
      const auto lines_before = static_cast<std::size_t>(std::count(cut.begin(), cut.end(), '\n'));
      REQUIRE(p.counters.size() == lines_before + (k < text.size() && text[k] == '\n' && k > 0 ? 1 : 0));
    }
  }
}

TEST_CASE("perfcounters: 9 or 12 fields, bad codes and timestamps are rejected", "[azure][parser][bad-input]") {
  const std::string good = line("7500");
  const std::string text = good +                                                   // ok
                           "1;disk;SLA;sdc;0;7500;Ops/sec;0;1761903000;\n" +         // 9 fields
                           "1;disk;SLA;sdc;0;7500;Ops/sec;0;1761903000;vm;x;y;\n" +  // 12 fields
                           "1;disk;SLA;sdc;0;7500;Ops/sec;0;1761903000;vm\n" +       // no trailing ';'
                           "7;disk;SLA;sdc;0;7500;Ops/sec;0;1761903000;vm;\n" +      // type 7
                           "x;disk;SLA;sdc;0;7500;Ops/sec;0;1761903000;vm;\n" +      // type x
                           "1;;SLA;sdc;0;7500;Ops/sec;0;1761903000;vm;\n" +          // empty category
                           "1;disk;;sdc;0;7500;Ops/sec;0;1761903000;vm;\n" +         // empty name
                           "1;disk;SLA;sdc;2;7500;Ops/sec;0;1761903000;vm;\n" +      // flag 2
                           "1;disk;SLA;sdc;0;7500;Ops/sec;-1;1761903000;vm;\n" +     // refresh -1
                           "1;disk;SLA;sdc;0;7500;Ops/sec;0;17619e3;vm;\n" +         // timestamp
                           "\n\r\n" +                                                // blank lines
                           good;
  auto p = parse_perfcounters(text);
  CHECK(p.counters.size() == 2);
  CHECK(p.rejected_lines == 10);
  REQUIRE(p.rejected.size() == 10);
  CHECK(p.rejected[0].line_number == 2);
  CHECK(p.rejected[0].reason == "9 fields, expected 10");
  CHECK(p.rejected[1].reason == "12 fields, expected 10");
  CHECK(p.rejected[2].reason == "no trailing ';'");
  CHECK(p.rejected[3].reason == "type is not 0-4");
  CHECK(p.rejected[9].line_number == 11);
  CHECK_FALSE(p.ends_mid_line);
}

TEST_CASE("perfcounters: nan, inf, 1e400, -1 and error text are not numbers", "[azure][parser][bad-input]") {
  struct Case {
    std::string value;
    std::optional<double> number;
  };
  for (const Case& c : std::vector<Case>{{"nan", std::nullopt},
                                         {"inf", std::nullopt},
                                         {"-inf", std::nullopt},
                                         {"1e400", std::nullopt},
                                         {"-1e400", std::nullopt},
                                         {"-1", -1.0},
                                         {"1e+20", 1e20},
                                         {"0.0", 0.0},
                                         {" 5", std::nullopt},
                                         {"+5", std::nullopt},
                                         {"5 ", std::nullopt},
                                         {"0x10", std::nullopt},
                                         {"(03101)Failed to retrieve local data", std::nullopt}}) {
    INFO(c.value);
    auto p = parse_perfcounters(line(c.value, "3"));
    REQUIRE(p.counters.size() == 1);
    CHECK(p.counters[0].value == c.value);
    CHECK(p.counters[0].number == c.number);
  }
  // Empty flag 1: no value even if the writer left text in field 6.
  auto e = parse_perfcounters(line("", "2", "1"));
  REQUIRE(e.counters.size() == 1);
  CHECK(e.counters[0].empty);
  CHECK_FALSE(e.counters[0].number);
  // Flag 0 with an empty value: kept, not a number.
  auto z = parse_perfcounters(line(""));
  REQUIRE(z.counters.size() == 1);
  CHECK_FALSE(z.counters[0].empty);
  CHECK_FALSE(z.counters[0].number);
}

TEST_CASE("perfcounters: binary bytes and invalid UTF-8 lines are rejected", "[azure][parser][bad-input]") {
  const std::string good = line("7500");
  const std::vector<std::string> bad = {
      std::string("1;disk;SLA;sdc;0;75") + '\0' + "00;Ops/sec;0;1761903000;vm;\n",
      "4;config;Instance Type;;0;Standard_\xff;none;0;1761903000;vm;\n",
      "4;config;Instance Type;;0;\xc0\xaf;none;0;1761903000;vm;\n",         // overlong '/'
      "4;config;Instance Type;;0;\xed\xa0\x80;none;0;1761903000;vm;\n",     // surrogate
      "4;config;Instance Type;;0;a\tb;none;0;1761903000;vm;\n",             // control char
      "4;config;Instance Type;;0;\x1b[31m;none;0;1761903000;vm;\n",         // escape sequence
  };
  for (const auto& b : bad) {
    INFO(b);
    auto p = parse_perfcounters(good + b + good);
    CHECK(p.counters.size() == 2);
    CHECK(p.rejected_lines == 1);
  }
  auto utf8 = parse_perfcounters("4;config;Instance Type;;0;Größe €;none;0;1761903000;vm;\n");
  REQUIRE(utf8.counters.size() == 1);
  CHECK(utf8.counters[0].value == "Größe €");

  std::mt19937 rng(42);
  std::string noise(256 * 1024, '\0');
  for (auto& ch : noise) ch = static_cast<char>(rng() & 0xff);
  auto p = parse_perfcounters(noise + "\n" + good);
  CHECK(p.counters.size() == 1);
  CHECK(p.rejected_lines > 900);  // about 1 in 256 bytes is '\n'
}

TEST_CASE("perfcounters: 10 MB of garbage parses without error, fast", "[azure][parser][bad-input]") {
  std::mt19937 rng(7);
  const std::string alphabet = "0123456789;;;;;abcdefghijklmnop/ .-\n";
  std::string garbage(10u << 20, ' ');
  for (auto& ch : garbage) ch = alphabet[rng() % alphabet.size()];
  const auto start = std::chrono::steady_clock::now();
  auto p = parse_perfcounters(garbage);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  WARN("10 MB garbage parsed in " << took.count() << " s, " << p.rejected_lines << " lines rejected");
  CHECK(p.counters.empty());
  CHECK(p.rejected_lines > 100000);
  CHECK(p.rejected.size() == PerfCountersParse::kMaxRejectedReasons);
  CHECK(took.count() < 5);
}

TEST_CASE("perfcounters: instance normalisation", "[azure][parser]") {
  CHECK(normalise_instance("/dev/sda") == "sda");
  CHECK(normalise_instance("sdc") == "sdc");
  CHECK(normalise_instance("samplestd01") == "samplestd01");
  CHECK(normalise_instance("/dev/") == "");
  CHECK(normalise_instance("") == "");
}
