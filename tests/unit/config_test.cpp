#include <catch2/catch.hpp>

#include "collectors/device_filter.h"
#include "config/config.h"
#include "config/web_config.h"

using namespace diskperf;

TEST_CASE("config: empty and minimal documents", "[config]") {
  auto empty = parse_config("");
  REQUIRE(empty.config);
  CHECK_FALSE(empty.config->diskstats.device_include);
  auto full = parse_config("collectors:\n  diskstats:\n    device_include: '^sd'\n    device_exclude: '^sdz$'\n");
  REQUIRE(full.errors.empty());
  CHECK(full.config->diskstats.device_include == "^sd");
  CHECK(full.config->diskstats.device_exclude == "^sdz$");
}

TEST_CASE("config: errors carry line and column", "[config][bad-input]") {
  auto r = parse_config("collectors:\n  diskstats:\n    device_includ: '^sd'\n    device_exclude: '(('\n");
  CHECK_FALSE(r.config);
  REQUIRE(r.errors.size() == 2);
  CHECK(r.errors[0].line == 3);
  CHECK(r.errors[0].column == 5);
  CHECK(r.errors[0].message.find("unknown key 'device_includ'") != std::string::npos);
  CHECK(r.errors[1].line == 4);
  CHECK(r.errors[1].message.find("not a valid regular expression") != std::string::npos);
  CHECK(r.errors[1].to_string("c.yml").rfind("c.yml:4:21: ", 0) == 0);

  auto bad_yaml = parse_config("collectors: [\n");
  CHECK_FALSE(bad_yaml.config);
  REQUIRE(bad_yaml.errors.size() == 1);
  CHECK(bad_yaml.errors[0].message.find("invalid YAML") == 0);

  auto not_map = parse_config("- a\n- b\n");
  CHECK_FALSE(not_map.config);
  CHECK(not_map.errors.at(0).message == "the top level must be a mapping");
}

TEST_CASE("config: collectors.azure.perfcounters_file", "[config][azure]") {
  auto none = parse_config("collectors:\n  diskstats: {}\n");
  REQUIRE(none.config);
  CHECK_FALSE(none.config->azure.perfcounters_file);
  auto set = parse_config("collectors:\n  azure:\n    perfcounters_file: /srv/PerfCounters\n");
  REQUIRE(set.errors.empty());
  CHECK(set.config->azure.perfcounters_file == "/srv/PerfCounters");
  auto off = parse_config("collectors:\n  azure:\n    perfcounters_file: ''\n");
  REQUIRE(off.errors.empty());
  CHECK(off.config->azure.perfcounters_file == "");

  auto rel = parse_config("collectors:\n  azure:\n    perfcounters_file: var/PerfCounters\n");
  CHECK_FALSE(rel.config);
  REQUIRE(rel.errors.size() == 1);
  CHECK(rel.errors[0].to_string("c.yml") ==
        "c.yml:3:24: collectors.azure.perfcounters_file must be an absolute path, or '' to disable");
  auto typo = parse_config("collectors:\n  azure:\n    perfcounter_file: /x\n");
  REQUIRE(typo.errors.size() == 1);
  CHECK(typo.errors[0].to_string("c.yml") == "c.yml:3:5: unknown key 'perfcounter_file' in collectors.azure");
  auto list = parse_config("collectors:\n  azure:\n    perfcounters_file: [a]\n");
  REQUIRE(list.errors.size() == 1);
  CHECK(list.errors[0].line == 3);
  CHECK(list.errors[0].message == "collectors.azure.perfcounters_file must be a string (a file path, or '' to disable)");
}

TEST_CASE("web config: header names, reserved headers and bcrypt costs", "[config][bad-input]") {
  auto bad = parse_web_config(
      "http_server_config:\n  headers:\n    \"\": x\n    Content-Length: \"0\"\n    X-Frame-Options: deny\n"
      "basic_auth_users:\n  alice: $2y$99$abcdefghijklmnopqrstuvabcdefghijklmnopqrstuvwxyz01234\n");
  CHECK_FALSE(bad.config);
  std::string all;
  for (const auto& e : bad.errors) all += e.message + "\n";
  CHECK(all.find("http_server_config.headers. has a forbidden character") != std::string::npos);
  CHECK(all.find("http_server_config.headers.Content-Length is set by the server") != std::string::npos);
  CHECK(all.find("basic_auth_users.alice has a bcrypt cost outside 4-17") != std::string::npos);
  CHECK(bad.errors.size() == 3);
  auto good = parse_web_config(
      "http_server_config:\n  headers:\n    X-Frame-Options: deny\n"
      "basic_auth_users:\n  alice: $2y$10$abcdefghijklmnopqrstuvabcdefghijklmnopqrstuvwxyz01234\n");
  CHECK(good.errors.empty());
}

TEST_CASE("web config: an empty user name and a stray mapping do not throw (fuzz regression)", "[config][bad-input]") {
  // Found by fuzz_web_config: the error for the user "" looked up u[""], an
  // undefined node whose Mark() throws; the daemon ended on std::terminate.
  auto r = parse_web_config("basic_auth_users:\n  : TLS8\n  client_ {a: b}]\n");
  CHECK_FALSE(r.config);
  CHECK_FALSE(r.errors.empty());
  auto c = parse_config("collectors:\n  : x\n");
  CHECK_FALSE(c.config);
}

TEST_CASE("config: a key that is not a name says so, at the key", "[config][bad-input]") {
  // Was "unknown key '' in collectors" for all three.
  auto messages = [](const ConfigResult& r) {
    std::vector<std::string> out;
    for (const auto& e : r.errors) out.push_back(std::to_string(e.line) + ":" + std::to_string(e.column) + " " + e.message);
    return out;
  };
  CHECK(messages(parse_config("collectors:\n  : x\n")) == std::vector<std::string>{"2:3 a null key in collectors"});
  CHECK(messages(parse_config("collectors:\n  ? [a, b]\n  : x\n")) ==
        std::vector<std::string>{"2:5 a sequence as a key in collectors"});
  CHECK(messages(parse_config("collectors:\n  ? {a: b}\n  : x\n")) ==
        std::vector<std::string>{"2:5 a mapping as a key in collectors"});
  auto w = parse_web_config("http_server_config:\n  headers:\n    : deny\n");
  CHECK_FALSE(w.config);
  REQUIRE(w.errors.size() == 1);
  CHECK(w.errors[0].message == "a null key in http_server_config.headers");
}

TEST_CASE("config: a key given twice in a mapping is an error, with its position", "[config][bad-input]") {
  // YAML forbids duplicate keys; yaml-cpp would silently use the first one.
  auto c = parse_config("probes:\n  - name: p\n    target: /dev/sdc\n    bs: 4k\n    bs: 1M\n");
  CHECK_FALSE(c.config);
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].message == "duplicate key 'bs' in a probe");
  CHECK(c.errors[0].line == 5);
  CHECK(c.errors[0].column == 5);
  auto w = parse_web_config("basic_auth_users: {}\nbasic_auth_users: {}\n");
  CHECK_FALSE(w.config);
  REQUIRE(w.errors.size() == 1);
  CHECK(w.errors[0].message.find("duplicate key 'basic_auth_users'") != std::string::npos);
  CHECK(w.errors[0].line == 2);
}

TEST_CASE("web config: a user or header given twice is an error", "[config][bad-input]") {
  // Found by a breaker: the last of two entries for one user won, silently.
  auto r = parse_web_config(
      "basic_auth_users:\n  admin: $2y$10$abcdefghijklmnopqrstuvabcdefghijklmnopqrstuvwxyz01234\n"
      "  admin: $2y$10$bbcdefghijklmnopqrstuvabcdefghijklmnopqrstuvwxyz01234\n"
      "http_server_config:\n  headers:\n    X-Frame-Options: deny\n    X-Frame-Options: sameorigin\n");
  CHECK_FALSE(r.config);
  std::string all;
  for (const auto& e : r.errors) all += std::to_string(e.line) + ":" + e.message + "\n";
  CHECK(all == "7:duplicate key 'X-Frame-Options' in http_server_config.headers\n"
               "3:duplicate key 'admin' in basic_auth_users\n");
}

TEST_CASE("config: device regexes are RE2 (Go) syntax; back-references and look-arounds are refused",
          "[config][bad-input]") {
  auto c = parse_config("collectors:\n  diskstats:\n    device_include: '^(sd[a-z])\\1$'\n");
  CHECK_FALSE(c.config);
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].message ==
        "collectors.diskstats.device_include is not a valid regular expression: invalid escape sequence: \\1");
  CHECK_THROWS_AS(compile_device_regex("(a)\\1"), RegexError);
  CHECK_THROWS_WITH(compile_device_regex("^(?!loop)"), "invalid perl operator: (?!");
  CHECK_THROWS_WITH(compile_device_regex("^(sd"), "missing ): ^(sd");
  CHECK_THROWS_WITH(compile_device_regex("\xff\xfe"), "invalid UTF-8");  // not a pattern of text
  CHECK_NOTHROW(compile_device_regex("^sd\\d+\\\\1$"));  // \d and an escaped backslash are fine
  // Found by fuzz_config with libstdc++'s regex: "\5555555555555555555" overflowed a long. In
  // RE2, as in Go, it is the octal escape \555 followed by the digits "5555555555555555".
  CHECK_NOTHROW(compile_device_regex("^(sd\\5555555555555555555)"));
  // Syntax that node_exporter users write: (?i), \d, non-capturing groups, Perl classes.
  DeviceFilter f(std::string("(?i)^(?:SD[a-z]+|nvme\\d+n\\d+)$"), std::nullopt);
  CHECK(f.accepts("nvme0n1"));
  CHECK(f.accepts("sdb"));
  CHECK_FALSE(f.accepts("nvme0n1p1"));
  CHECK_FALSE(f.accepts("dm-0"));
}

TEST_CASE("a pathological device regex answers at once (RE2 matches in linear time)", "[config][bad-input]") {
  // (a+)+$ against "aaa...ab": a backtracking matcher (std::regex) takes 2^n steps and held the
  // scrape; RE2 answers in one pass. No timing here: the run would not end without it.
  DeviceFilter f(std::string("(a+)+$"), std::nullopt);
  CHECK_FALSE(f.accepts(std::string(127, 'a') + "b"));
  CHECK(f.accepts(std::string(128, 'a')));
  DeviceFilter g(std::string("^(sd[a-z]+)+x$"), std::nullopt);
  CHECK_FALSE(g.accepts("sd" + std::string(100, 'a')));
}
