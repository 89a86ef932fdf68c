// Tier and VM size tables: the embedded CSVs, exact values from config/tiers.csv and
// config/vm_sizes.csv (copied from the project's reference azure_disk_tiers_extended.csv and
// azure_vm_caps_examples.csv), the CSV reader, and the Premium SSD v2 / Ultra formulas.

#include <catch2/catch.hpp>

#include <filesystem>

#include "test_helpers.h"
#include "config/tier_catalog.h"

using namespace diskperf;

namespace {
struct Want {
  const char* name;
  double iops, mbps;
  double burst_iops, burst_mbps;  // 0: none
  BurstModel model;
};
}  // namespace

TEST_CASE("builtin tiers: every P, E and S row with exact caps", "[tiers]") {
  const auto& t = builtin_tiers();
  REQUIRE(t.size() == 39);  // P1-P80 (14), E1-E80 (14), S4-S80 (11)
  const Want want[] = {
      {"P1", 120, 25, 3500, 170, BurstModel::credit},     {"P2", 120, 25, 3500, 170, BurstModel::credit},
      {"P3", 120, 25, 3500, 170, BurstModel::credit},     {"P4", 120, 25, 3500, 170, BurstModel::credit},
      {"P6", 240, 50, 3500, 170, BurstModel::credit},     {"P10", 500, 100, 3500, 170, BurstModel::credit},
      {"P15", 1100, 125, 3500, 170, BurstModel::credit},  {"P20", 2300, 150, 3500, 170, BurstModel::credit},
      {"P30", 5000, 200, 30000, 1000, BurstModel::on_demand},
      {"P40", 7500, 250, 30000, 1000, BurstModel::on_demand},
      {"P50", 7500, 250, 30000, 1000, BurstModel::on_demand},
      {"P60", 16000, 500, 30000, 1000, BurstModel::on_demand},
      {"P70", 18000, 750, 30000, 1000, BurstModel::on_demand},
      {"P80", 20000, 900, 30000, 1000, BurstModel::on_demand},
      {"E1", 500, 60, 600, 150, BurstModel::credit},      {"E2", 500, 60, 600, 150, BurstModel::credit},
      {"E3", 500, 60, 600, 150, BurstModel::credit},      {"E4", 500, 60, 600, 150, BurstModel::credit},
      {"E6", 500, 60, 600, 150, BurstModel::credit},      {"E10", 500, 60, 600, 150, BurstModel::credit},
      {"E15", 500, 60, 600, 150, BurstModel::credit},     {"E20", 500, 60, 600, 150, BurstModel::credit},
      {"E30", 500, 60, 1000, 250, BurstModel::credit},    {"E40", 500, 60, 0, 0, BurstModel::none},
      {"E50", 500, 60, 0, 0, BurstModel::none},           {"E60", 2000, 400, 0, 0, BurstModel::none},
      {"E70", 4000, 600, 0, 0, BurstModel::none},         {"E80", 6000, 750, 0, 0, BurstModel::none},
      {"S4", 500, 60, 0, 0, BurstModel::none},            {"S6", 500, 60, 0, 0, BurstModel::none},
      {"S10", 500, 60, 0, 0, BurstModel::none},           {"S15", 500, 60, 0, 0, BurstModel::none},
      {"S20", 500, 60, 0, 0, BurstModel::none},           {"S30", 500, 60, 0, 0, BurstModel::none},
      {"S40", 500, 60, 0, 0, BurstModel::none},           {"S50", 500, 60, 0, 0, BurstModel::none},
      {"S60", 1300, 300, 0, 0, BurstModel::none},         {"S70", 2000, 500, 0, 0, BurstModel::none},
      {"S80", 2000, 500, 0, 0, BurstModel::none},
  };
  REQUIRE(std::size(want) == t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    INFO(want[i].name);
    CHECK(t[i].name == want[i].name);
    CHECK(t[i].iops == want[i].iops);
    CHECK(t[i].bytes_per_second == want[i].mbps * 1e6);
    CHECK(t[i].burst_model == want[i].model);
    if (want[i].burst_iops > 0) {
      REQUIRE(t[i].burst_iops);
      CHECK(*t[i].burst_iops == want[i].burst_iops);
      REQUIRE(t[i].burst_bytes_per_second);
      CHECK(*t[i].burst_bytes_per_second == want[i].burst_mbps * 1e6);
    } else {
      CHECK_FALSE(t[i].burst_iops);
      CHECK_FALSE(t[i].burst_bytes_per_second);
    }
    CHECK_FALSE(t[i].source.empty());
  }
  const DiskTier* p30 = find_tier(t, "p30");
  REQUIRE(p30);
  CHECK(p30->family == "premium_ssd");
  CHECK(*p30->size_gib == 1024);
  CHECK_FALSE(p30->burst_duration_seconds);  // unlimited
  CHECK(*find_tier(t, "P10")->burst_duration_seconds == 1800);
  CHECK(*find_tier(t, "P80")->size_gib == 32767);
  CHECK(find_tier(t, "P5") == nullptr);
}

TEST_CASE("builtin tiers: the shipped CSV equals the reference table", "[tiers]") {
  const std::string ref = std::string(DISKPERF_SHARED_REFERENCE) + "/azure/azure_disk_tiers_extended.csv";
  const std::string vm_ref = std::string(DISKPERF_SHARED_REFERENCE) + "/azure/azure_vm_caps_examples.csv";
  if (!std::filesystem::exists(ref)) {
    WARN("reference table absent: " << ref);
    return;
  }
  CHECK(test::slurp(std::string(DISKPERF_SOURCE_DIR) + "/config/tiers.csv") == test::slurp(ref));
  CHECK(test::slurp(std::string(DISKPERF_SOURCE_DIR) + "/config/vm_sizes.csv") == test::slurp(vm_ref));
  // And the embedded copy parses to the same rows as the file on disk.
  auto parsed = parse_tier_csv(test::slurp(ref));
  REQUIRE(parsed.errors.empty());
  REQUIRE(parsed.rows.size() == builtin_tiers().size());
  for (std::size_t i = 0; i < parsed.rows.size(); ++i) CHECK(parsed.rows[i].iops == builtin_tiers()[i].iops);
}

TEST_CASE("builtin VM sizes: uncached, burst and cached caps", "[tiers]") {
  const auto& v = builtin_vm_sizes();
  REQUIRE(v.size() == 5);
  const VmSize* e32 = find_vm_size(v, "standard_e32s_v3");
  REQUIRE(e32);
  CHECK(e32->uncached_iops == 51200);
  CHECK(e32->uncached_bytes_per_second == 768e6);
  CHECK(*e32->burst_uncached_iops == 64000);
  CHECK(*e32->burst_uncached_bytes_per_second == 1600e6);
  CHECK(*e32->cached_iops == 64000);
  CHECK(*e32->cached_bytes_per_second == 512e6);
  CHECK(*e32->max_data_disks == 32);
  const VmSize* e64 = find_vm_size(v, "Standard_E64ds_v4");
  REQUIRE(e64);
  CHECK(e64->uncached_iops == 80000);
  CHECK(e64->uncached_bytes_per_second == 1200e6);
  CHECK_FALSE(e64->cached_iops);  // "UNVERIFIED (...)" in the source
  CHECK_FALSE(e64->cached_bytes_per_second);
  const VmSize* d8 = find_vm_size(v, "Standard_D8s_v3");
  REQUIRE(d8);
  CHECK(d8->uncached_iops == 12800);
  CHECK(d8->uncached_bytes_per_second == 192e6);
  const VmSize* m64 = find_vm_size(v, "Standard_M64s");
  REQUIRE(m64);
  CHECK(m64->uncached_iops == 40000);
  CHECK(m64->uncached_bytes_per_second == 1000e6);
}

TEST_CASE("tiers_with_caps recognises a tier from its SLA values", "[tiers]") {
  auto p4050 = tiers_with_caps("premium_ssd", 7500, 250e6);
  REQUIRE(p4050.size() == 2);
  CHECK(p4050[0]->name == "P40");
  CHECK(p4050[1]->name == "P50");
  auto p30 = tiers_with_caps("premium_ssd", 5000, 200e6);
  REQUIRE(p30.size() == 1);
  CHECK(p30[0]->name == "P30");
  CHECK(tiers_with_caps("premium_ssd", 5001, 200e6).empty());
}

TEST_CASE("CSV reader: quotes, CRLF, errors with line numbers", "[tiers]") {
  auto rows = split_csv("a,\"b,c\",\"d\"\"e\"\r\n1,,3\n");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0] == std::vector<std::string>{"a", "b,c", "d\"e"});
  CHECK(rows[1] == std::vector<std::string>{"1", "", "3"});

  const std::string header = "sku,family,size_gib,iops,mbps,burst_iops,burst_mbps,burst_model,burst_duration_min,source\n";
  auto bad = parse_tier_csv(header + "X1,custom,1,abc,10,,,none,,me\nX2,custom,1,10,10,,,sometimes,,me\nX3,custom\n");
  REQUIRE(bad.errors.size() == 3);
  CHECK(bad.errors[0] == "line 2: iops and mbps must be non-negative numbers");
  CHECK(bad.errors[1] == "line 3: burst_model 'sometimes' is not credit, on-demand or none");
  CHECK(bad.errors[2] == "line 4: 2 fields, header has 10");
  auto missing = parse_tier_csv("sku,family\n");
  REQUIRE_FALSE(missing.errors.empty());
  CHECK(missing.errors[0] == "header: missing column size_gib");
  CHECK(parse_tier_csv("").errors == std::vector<std::string>{"empty table"});
}

TEST_CASE("Premium SSD v2 and Ultra caps are validated against their formulas", "[tiers]") {
  // Premium SSD v2: 3000 IOPS free up to 6 GiB, +500/GiB, cap 80000 (>= 160 GiB); 0.25 MB/s per IOPS, cap 2000.
  CHECK(validate_configurable_caps("premium_ssd_v2", 100, 50000, 1200).empty());
  CHECK(validate_configurable_caps("premium_ssd_v2", 6, 3000, 125).empty());
  CHECK(validate_configurable_caps("premium_ssd_v2", 160, 80000, 2000).empty());
  CHECK(validate_configurable_caps("premium_ssd_v2", 100, 50001, 1200) ==
        std::vector<std::string>{"iops 50001 outside 3000..50000 (premium_ssd_v2: 3000, +500 per GiB above 6 GiB, "
                                 "at most 80000)"});
  CHECK(validate_configurable_caps("premium_ssd_v2", 1000, 4000, 1001) ==
        std::vector<std::string>{"mbps 1001 outside 125..1000 (premium_ssd_v2: 125, up to 0.25 MB/s per IOPS, at "
                                 "most 2000)"});
  CHECK(validate_configurable_caps("premium_ssd_v2", 0, 3000, 125).size() == 1);
  CHECK(validate_configurable_caps("premium_ssd_v2", std::nullopt, 2999, 125).size() == 1);
  // Ultra: 1000 IOPS/GiB, cap 400000; 0.25 MB/s per IOPS, cap 10000.
  CHECK(validate_configurable_caps("ultra", 512, 400000, 10000).empty());
  CHECK(validate_configurable_caps("ultra", 4, 4000, 1000).empty());
  CHECK(validate_configurable_caps("ultra", 4, 4001, 1000) ==
        std::vector<std::string>{"iops 4001 outside 100..4000 (ultra: 1000 per GiB, at most 400000)"});
  CHECK(validate_configurable_caps("ultra", 100, 100, 26).size() == 1);
  CHECK(validate_configurable_caps("ultra", 3, 100, 1).size() == 1);
  CHECK(validate_configurable_caps("premium_ssd", 3, 100, 1).size() == 1);
}
