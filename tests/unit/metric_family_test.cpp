#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <limits>

#include "collectors/metric_families.h"
#include "daemon/exposition.h"

using namespace diskperf;

TEST_CASE("metric family: labels are rendered escaped once and read back unescaped", "[exposition]") {
  Families fs;
  MetricFamily& f = add_family(fs, "x_bytes", "Help.", prometheus::MetricType::Gauge);
  f.add(1, {{"device", "sda"}, {"op", "read"}});
  f.add(2, {});
  f.add(3, std::vector<Label>{{"model", "a\"b\\c\nd,e=\"f"}, {"vendor", ""}});
  REQUIRE(f.size() == 3);
  CHECK(f.rendered_labels(0) == "device=\"sda\",op=\"read\"");
  CHECK(f.rendered_labels(1) == "");
  CHECK(f.rendered_labels(2) == "model=\"a\\\"b\\\\c\\nd,e=\\\"f\",vendor=\"\"");
  CHECK(f.labels(0) == std::vector<Label>{{"device", "sda"}, {"op", "read"}});
  CHECK(f.labels(1).empty());
  CHECK(f.labels(2) == std::vector<Label>{{"model", "a\"b\\c\nd,e=\"f"}, {"vendor", ""}});
  CHECK(f.samples()[0].value == 1);
  CHECK(f.samples()[2].value == 3);
  CHECK(to_text(fs) ==
        "# HELP x_bytes Help.\n# TYPE x_bytes gauge\n"
        "x_bytes{device=\"sda\",op=\"read\"} 1\n"
        "x_bytes 2\n"
        "x_bytes{model=\"a\\\"b\\\\c\\nd,e=\\\"f\",vendor=\"\"} 3\n");
}

TEST_CASE("metric family: labels rendered once (render_labels) give the samples add gives", "[exposition]") {
  Families fs;
  add_family(fs, "a", "A.", prometheus::MetricType::Gauge);
  add_family(fs, "b", "B.", prometheus::MetricType::Gauge);
  MetricFamily& a = fs[0];  // taken after both are added: adding may move the families
  MetricFamily& b = fs[1];
  for (const char* dev : {"sda", "dm-0", "we\"ird\\na\nme", "bad\xff", ""}) {
    a.add(7, {{"device", dev}, {"op", "read"}});
    b.add_rendered(7, render_labels({{"device", dev}, {"op", "read"}}));
  }
  b.add_rendered(8, render_labels({}));
  REQUIRE(a.size() == 5);
  REQUIRE(b.size() == 6);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(b.rendered_labels(i) == a.rendered_labels(i));
    CHECK(b.labels(i) == a.labels(i));
    CHECK(b.samples()[i].value == 7);
  }
  CHECK(render_labels({{"device", "bad\xff"}}) == "device=\"bad\xEF\xBF\xBD\"");
  CHECK(b.rendered_labels(5).empty());
  CHECK(to_text(fs).find("\nb 8\n") != std::string::npos);
}

// Breaker finding: a label value is written as UTF-8 whatever bytes it held
// (a device directory or model string can hold any byte); one invalid byte
// made promtool and Prometheus reject the whole exposition ("invalid label value").
TEST_CASE("metric family: bytes that are not well-formed UTF-8 are written as U+FFFD", "[exposition]") {
  const std::string fffd = "\xEF\xBF\xBD";
  auto rendered = [](std::string_view value) {
    MetricFamily f;
    f.add(1, {{"v", value}});
    std::string_view r = f.rendered_labels(0);
    return std::string(r.substr(3, r.size() - 4));  // inside v="..."
  };
  // Well-formed sequences are kept: 2, 3 and 4 bytes, the highest code point.
  CHECK(rendered("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x92\xBE \xF4\x8F\xBF\xBF") ==
        "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x92\xBE \xF4\x8F\xBF\xBF");
  // A lone continuation byte, 0xFF, an overlong '/', a surrogate, beyond U+10FFFF, cut at the end.
  CHECK(rendered(std::string("a\x80" "b\xFF" "c")) == "a" + fffd + "b" + fffd + "c");
  CHECK(rendered("\xC0\xAF") == fffd + fffd);
  CHECK(rendered("\xED\xA0\x80") == fffd + fffd + fffd);
  CHECK(rendered("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);
  CHECK(rendered("x\xE2\x82") == "x" + fffd + fffd);
  CHECK(rendered("\"\xFE\\\n") == "\\\"" + fffd + "\\\\\\n");
  // Control characters: a NUL (as in a sysfs vendor string), a tab, ESC, DEL.
  CHECK(rendered(std::string("HP\0\0 Q\t\x1b[1m\x7f", 12)) == "HP" + fffd + fffd + " Q" + fffd + fffd + "[1m" + fffd);
  // C1 controls and the Unicode line and paragraph separators, each replaced whole; other
  // multi-byte characters (U+00A0, U+2027, U+00E9) kept.
  CHECK(rendered("a\xC2\x85" "b\xC2\x9F\xC2\xA0\xE2\x80\xA8\xE2\x80\xA9\xE2\x80\xA7\xC3\xA9") ==
        "a" + fffd + "b" + fffd + "\xC2\xA0" + fffd + fffd + "\xE2\x80\xA7\xC3\xA9");

  // Every byte 0x00-0xff: printable ASCII kept (escaped), the newline escaped, other control
  // characters and each byte >= 0x80 alone replaced.
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string want;
  for (int c = 0; c < 128; ++c) {
    if (c == '\\') want += "\\\\";
    else if (c == '"') want += "\\\"";
    else if (c == '\n') want += "\\n";
    else if (c < 0x20 || c == 0x7f) want += fffd;
    else want.push_back(static_cast<char>(c));
  }
  for (int c = 128; c < 256; ++c) want += fffd;
  CHECK(rendered(all) == want);
}

TEST_CASE("metric family: summaries keep each sample's distribution", "[exposition]") {
  Families fs;
  MetricFamily& s = add_family(fs, "lat_seconds", "Latency.", prometheus::MetricType::Summary);
  s.add(Distribution{4, 0.5, {{0.5, 0.1}, {0.99, 0.3}}}, {{"op", "read"}});
  s.add(Distribution{0, 0, {}}, {{"op", "write"}});
  REQUIRE(s.distributions().size() == 2);
  CHECK(s.distributions()[0].count == 4);
  CHECK(to_text(fs) ==
        "# HELP lat_seconds Latency.\n# TYPE lat_seconds summary\n"
        "lat_seconds{op=\"read\",quantile=\"0.5\"} 0.1\n"
        "lat_seconds{op=\"read\",quantile=\"0.99\"} 0.3\n"
        "lat_seconds_sum{op=\"read\"} 0.5\n"
        "lat_seconds_count{op=\"read\"} 4\n"
        "lat_seconds_sum{op=\"write\"} 0\n"
        "lat_seconds_count{op=\"write\"} 0\n");
}

TEST_CASE("exposition: integer values are written exactly as std::to_chars writes the double", "[exposition]") {
  std::vector<double> values{0, -0.0, 1, -1, 9, 10, 99, 100, 1000, 10000, 100000, 1000000, 12000, 120000, 1200000,
                             1e14, 9e14, 999999999999999, -100000, -123456789, 4503599627370496, 1e15, 1e16, 1e21,
                             0.5, 1.25, 84.356, 66.918, 1e-7};
  for (double base = 1; base < 1e15; base *= 10)
    for (int m = 1; m < 100; ++m) values.push_back(base * m);
  std::uint64_t x = 88172645463325252ull;  // xorshift: integers of every length
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    values.push_back(static_cast<double>(x % (1ull << ((i % 50) + 1))));
  }
  for (double v : values) {
    Families fs;
    add_family(fs, "v", "h", prometheus::MetricType::Gauge).add(v, {});
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    const std::string want = "# HELP v h\n# TYPE v gauge\nv " + std::string(buf, r.ptr) + "\n";
    INFO(v);
    REQUIRE(to_text(fs) == want);
  }
}
