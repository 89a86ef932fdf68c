#include <catch2/catch.hpp>

#include "config/config.h"

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
