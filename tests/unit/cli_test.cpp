#include <catch2/catch.hpp>

#include <vector>

#include "daemon/cli.h"

using namespace diskperf;

namespace {
ParsedCommandLine parse(std::vector<const char*> args) {
  args.insert(args.begin(), "diskperf_exporter");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}
}  // namespace

TEST_CASE("cli: an empty device regex is a valid value, as in node_exporter", "[cli]") {
  // `--collector.diskstats.device-exclude=` (exclude nothing) was refused with "1 required TEXT missing".
  auto none = parse({"--collector.diskstats.device-exclude=", "metrics"});
  REQUIRE(none.options);
  CHECK(none.options->diskstats_device_exclude == std::string());
  CHECK_FALSE(none.options->diskstats_device_include);
  auto both = parse({"--collector.diskstats.device-include=", "--collector.diskstats.device-exclude=^sdz$"});
  REQUIRE(both.options);
  CHECK(both.options->diskstats_device_include == std::string());
  CHECK(both.options->diskstats_device_exclude == std::string("^sdz$"));
  auto unset = parse({});
  REQUIRE(unset.options);
  CHECK_FALSE(unset.options->diskstats_device_include);
  CHECK_FALSE(unset.options->diskstats_device_exclude);
  // An invalid one is still refused: CLI11's ValidationError (105), after RE2's reason on stderr
  // ("invalid regular expression: missing ): (sd").
  auto bad = parse({"--collector.diskstats.device-include=(sd"});
  CHECK_FALSE(bad.options);
  CHECK(bad.exit_code == 105);
}
