#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "collectors/azure/imds_client.h"
#include "config/config.h"
#include "daemon/cli.h"
#include "daemon/collector_set.h"
#include "probes/scheduler.h"

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

TEST_CASE("cli: --no-collector.<name> leaves that collector out, as in node_exporter", "[cli]") {
  auto names = [](const Options& o) {
    auto probes = std::make_shared<ProbeScheduler>(o.paths);
    std::vector<std::string> out;
    for (const auto& c : build_collectors(o, Config{}, probes)) out.emplace_back(c->name());
    return out;
  };
  auto all = parse({"metrics"});
  REQUIRE(all.options);
  CHECK(names(*all.options) == std::vector<std::string>{"diskstats", "queue", "topology", "process", "azure", "tier"});
  auto some = parse({"--no-collector.queue", "--no-collector.azure", "--collector.tier", "metrics"});
  REQUIRE(some.options);
  CHECK_FALSE(some.options->collectors.queue);
  CHECK_FALSE(some.options->collectors.azure);
  CHECK(some.options->collectors.tier);
  CHECK(names(*some.options) == std::vector<std::string>{"diskstats", "topology", "process", "tier"});
  auto none = parse({"--no-collector.diskstats", "--no-collector.queue", "--no-collector.topology",
                     "--no-collector.azure", "--no-collector.tier"});
  REQUIRE(none.options);
  CHECK(names(*none.options) == std::vector<std::string>{"process"});
  CHECK(parse({"--no-collector.nope"}).exit_code == 109);  // unknown flag
}

TEST_CASE("cli: the max ages (queue settings, dm volumes) take a duration, 0 included", "[cli]") {
  using Age = std::chrono::nanoseconds Options::*;
  const auto [flag, field] = GENERATE(std::pair<std::string, Age>{"--collector.queue.settings-max-age", &Options::queue_settings_max_age},
                                      std::pair<std::string, Age>{"--collector.topology.max-age", &Options::topology_max_age});
  INFO(flag);
  auto dflt = parse({"metrics"});
  REQUIRE(dflt.options);
  CHECK((*dflt.options).*field == std::chrono::minutes(10));
  for (auto [value, want] : {std::pair{"0", std::chrono::nanoseconds::zero()},
                             {"90s", std::chrono::nanoseconds(std::chrono::seconds(90))},
                             {"1h", std::chrono::nanoseconds(std::chrono::hours(1))}}) {
    const std::string arg = flag + "=" + value;
    INFO(arg);
    auto r = parse({arg.c_str()});
    REQUIRE(r.options);
    CHECK((*r.options).*field == want);
  }
  // Refused with the reason ("'5x' is not a duration: one number and one unit of ..."): CLI11's
  // ValidationError.
  for (const char* bad : {"5x", "-1m", ""}) {
    const std::string arg = flag + "=" + bad;
    INFO(arg);
    auto r = parse({arg.c_str()});
    CHECK_FALSE(r.options);
    CHECK(r.exit_code != 0);
  }
}

TEST_CASE("cli and config: the IMDS options, a flag over the config key over the default", "[cli][imds]") {
  auto flags = parse({"--azure.imds=on", "--azure.imds-url=http://127.0.0.1:8080", "--azure.imds-timeout=500ms",
                      "--azure.imds-refresh=30s", "metrics"});
  REQUIRE(flags.options);
  Config empty;
  auto o = imds_options(*flags.options, empty);
  REQUIRE(o);
  CHECK(o->mode == ImdsMode::on);
  CHECK(o->url == "http://127.0.0.1:8080");
  CHECK(o->timeout == std::chrono::milliseconds(500));
  CHECK(o->refresh == std::chrono::seconds(30));
  auto r = parse_config("collectors:\n  azure:\n    imds: 'on'\n    imds_url: http://10.0.0.1\n"
                        "    imds_timeout: 3s\n    imds_refresh: 1h\n");
  REQUIRE(r.config);
  auto from_config = imds_options(*parse({}).options, *r.config);
  REQUIRE(from_config);
  CHECK(from_config->url == "http://10.0.0.1");
  CHECK(from_config->timeout == std::chrono::seconds(3));
  CHECK(from_config->refresh == std::chrono::hours(1));
  auto both = imds_options(*flags.options, *r.config);
  CHECK(both->url == "http://127.0.0.1:8080");
  CHECK_FALSE(imds_options(*parse({"--azure.imds=off"}).options, *r.config));
  // auto off Azure (this tree has no Azure DMI): no IMDS at all.
  auto auto_mode = parse({"--path.sysfs=/nonexistent"});
  CHECK_FALSE(imds_options(*auto_mode.options, empty));
  CHECK(ImdsOptions{} == ImdsOptions{});
  CHECK_FALSE(parse({"--azure.imds=maybe"}).options);
  CHECK_FALSE(parse({"--azure.imds-url=https://169.254.169.254"}).options);
  CHECK_FALSE(parse({"--azure.imds-timeout=0"}).options);
  CHECK_FALSE(parse({"--azure.imds-refresh=1s"}).options);
  for (const char* bad : {"collectors:\n  azure:\n    imds: maybe\n", "collectors:\n  azure:\n    imds_url: ftp://x\n",
                          "collectors:\n  azure:\n    imds_timeout: forever\n",
                          "collectors:\n  azure:\n    imds_refresh: 1s\n", "collectors:\n  azure:\n    imds_proxy: x\n"}) {
    INFO(bad);
    auto e = parse_config(bad);
    CHECK_FALSE(e.config);
    REQUIRE_FALSE(e.errors.empty());
    CHECK(e.errors.front().line == 3);
  }
  auto refresh = parse_config("collectors:\n  azure:\n    imds_refresh: 5s\n");
  REQUIRE_FALSE(refresh.errors.empty());
  CHECK_THAT(refresh.errors.front().message, Catch::Contains("from 10s to 24h"));
  CHECK(format_duration(std::chrono::milliseconds(100)) == "100ms");
  CHECK(format_duration(std::chrono::minutes(1)) == "1m");
  CHECK(format_duration(std::chrono::milliseconds(1500)) == "1500ms");
  auto v2 = parse_config("tiers:\n  disks:\n    - {lun: 1, tier: PremiumV2_LRS}\n");
  REQUIRE_FALSE(v2.errors.empty());
  CHECK_THAT(v2.errors.front().message, Catch::Contains("write its tier (e.g. premium_ssd_v2)"));
}

TEST_CASE("cli and config: an IMDS URL is plain HTTP with a host and nothing after the path", "[cli][imds]") {
  CHECK(imds_url_problem("http://169.254.169.254") == "");
  CHECK(imds_url_problem("HTTP://127.0.0.1:8080/") == "");
  CHECK(imds_url_problem("https://169.254.169.254") != "");
  CHECK(imds_url_problem("http://") == "has no host");
  CHECK(imds_url_problem("http:///x") == "has no host");
  CHECK(imds_url_problem("http://a b") == "holds a blank or a control character");
  CHECK(imds_url_problem("http://a\nb") == "holds a blank or a control character");
  CHECK(imds_url_problem("http://h:1?x=1") == "must not have a query or fragment");
  CHECK_FALSE(parse({"--azure.imds-url=http://h:1?x=1"}).options);
  auto e = parse_config("collectors:\n  azure:\n    imds_url: 'http://'\n");
  REQUIRE_FALSE(e.errors.empty());
  CHECK(e.errors.front().message == "collectors.azure.imds_url has no host (e.g. http://169.254.169.254)");
}

TEST_CASE("imds slot: a reload that changes the options keeps the last good document", "[cli][imds]") {
  ImdsSlot slot(false);
  ImdsOptions a;
  a.mode = ImdsMode::on;
  a.url = "http://127.0.0.1:9";
  auto first = slot.apply(a, "/nonexistent");
  REQUIRE(first);
  CHECK(slot.apply(a, "/nonexistent") == first);  // same options: the same client
  auto good = std::make_shared<ImdsState>();
  good->compute = std::make_shared<const ImdsCompute>(ImdsCompute{"Standard_E16ds_v5", "", "", "", "", {}, {}});
  good->up = true;
  good->requests = 3;
  slot.current()->adopt(good);
  ImdsOptions b = a;
  b.refresh = std::chrono::seconds(11);
  auto second = slot.apply(b, "/nonexistent");
  REQUIRE(second);
  CHECK(second != first);
  REQUIRE(second->state()->compute);
  CHECK(second->state()->compute->vm_size == "Standard_E16ds_v5");
  CHECK(second->state()->requests == 3);
  CHECK_FALSE(slot.apply(std::nullopt, "/nonexistent"));
}
