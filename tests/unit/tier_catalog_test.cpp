// Tier and VM size tables: the embedded CSVs, exact values from config/tiers.csv and
// config/vm_sizes.csv (copied from the project's reference azure_disk_tiers_extended.csv and
// azure_vm_sizes_full.csv), the CSV reader, nearest VM names, and the Premium SSD v2 / Ultra formulas.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

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
  if (!std::filesystem::exists(ref)) {
    WARN("reference table absent: " << ref);
    return;
  }
  CHECK(test::slurp(std::string(DISKPERF_SOURCE_DIR) + "/config/tiers.csv") == test::slurp(ref));
  // And the embedded copy parses to the same rows as the file on disk.
  auto parsed = parse_tier_csv(test::slurp(ref));
  REQUIRE(parsed.errors.empty());
  REQUIRE(parsed.rows.size() == builtin_tiers().size());
  for (std::size_t i = 0; i < parsed.rows.size(); ++i) CHECK(parsed.rows[i].iops == builtin_tiers()[i].iops);
}

TEST_CASE("builtin VM sizes: every Azure size, exact caps of a few", "[tiers]") {
  const auto& v = builtin_vm_sizes();
  REQUIRE(v.size() == 1272);
  const auto no_uncached = std::count_if(v.begin(), v.end(), [](const VmSize& s) { return !s.uncached_iops; });
  const auto no_mbps = std::count_if(v.begin(), v.end(), [](const VmSize& s) { return !s.uncached_bytes_per_second; });
  CHECK(no_uncached == 130);  // neither IOPS nor MB/s
  CHECK(no_mbps == 153);      // and 23 more with IOPS only (Av2, Msv4/Mdsv4)

  const VmSize* e16 = find_vm_size(v, "Standard_E16ds_v5");
  REQUIRE(e16);
  CHECK(*e16->vcpu == 16);
  CHECK(*e16->mem_gib == 128);
  CHECK(*e16->max_data_disks == 32);
  CHECK(*e16->uncached_iops == 25600);
  CHECK(*e16->uncached_bytes_per_second == 600e6);
  CHECK(*e16->burst_uncached_iops == 40000);
  CHECK(*e16->burst_uncached_bytes_per_second == 1200e6);
  CHECK_FALSE(e16->cached_iops);
  CHECK_FALSE(e16->premium_v2_ultra_iops);
  CHECK(e16->disk_controller.empty());
  CHECK(e16->source.find("memory-optimized/edsv5-series.md@") != std::string::npos);

  const VmSize* m128 = find_vm_size(v, "Standard_M128s");
  REQUIRE(m128);
  CHECK(*m128->uncached_iops == 80000);
  CHECK(*m128->uncached_bytes_per_second == 2000e6);
  CHECK(*m128->burst_uncached_iops == 80000);
  CHECK(*m128->burst_uncached_bytes_per_second == 4000e6);
  CHECK(*m128->cache_gib == 12696);
  CHECK_FALSE(m128->cached_iops);  // the M page gives temp-disk figures only
  CHECK(*m128->max_data_disks == 64);

  const VmSize* b2 = find_vm_size(v, "Standard_B2ms");
  REQUIRE(b2);
  CHECK(*b2->uncached_iops == 1920);
  CHECK(*b2->uncached_bytes_per_second == 22.5e6);

  const VmSize* hb = find_vm_size(v, "Standard_HB120rs_v3");
  REQUIRE(hb);
  CHECK_FALSE(hb->uncached_iops);
  CHECK_FALSE(hb->uncached_bytes_per_second);
  CHECK_FALSE(hb->burst_uncached_iops);
  CHECK(*hb->max_data_disks == 32);
  CHECK(*hb->vcpu == 120);

  CHECK(find_vm_size(v, "Standard_D2a_v41"));  // the doc's spelling, footnote digit included
  CHECK_FALSE(find_vm_size(v, "Standard_D2a_v4"));
  CHECK(*find_vm_size(v, "Standard_D2a_v41")->uncached_iops == 3200);

  const VmSize* f1 = find_vm_size(v, "Standard_F1ads_v7");
  REQUIRE(f1);
  CHECK(f1->disk_controller == "NVMe");
  CHECK(*f1->premium_v2_ultra_iops == 4400);
  CHECK(*f1->premium_v2_ultra_bytes_per_second == 136e6);
  CHECK(find_vm_size(v, "Standard_E2bds_v5")->disk_controller == "SCSI, NVMe");
  const VmSize* m304 = find_vm_size(v, "Standard_M304bs_4_v4");
  REQUIRE(m304);
  CHECK_FALSE(m304->vcpu);
  CHECK_FALSE(m304->mem_gib);
}

TEST_CASE("builtin VM sizes: look-up ignores case", "[tiers]") {
  const auto& v = builtin_vm_sizes();
  const VmSize* e16 = find_vm_size(v, "Standard_E16ds_v5");
  REQUIRE(e16);
  CHECK(find_vm_size(v, "standard_e16ds_v5") == e16);
  CHECK(find_vm_size(v, "STANDARD_E16DS_V5") == e16);
  CHECK(find_vm_size(v, "Standard_E16ds_v9") == nullptr);
  CHECK(find_vm_size(v, "") == nullptr);
  for (const VmSize& s : v) REQUIRE(find_vm_size(v, s.name) == &s);  // the index holds every row
  // Another table (a config's tiers.vm_sizes) is searched too, also ignoring case.
  std::vector<VmSize> custom(1);
  custom[0].name = "Custom_VM";
  CHECK(find_vm_size(custom, "CUSTOM_vm") == &custom[0]);
  CHECK(find_vm_size(custom, "Standard_E16ds_v5") == nullptr);
}

TEST_CASE("builtin VM sizes: every row and column equals the reference table", "[tiers]") {
  const std::string ref = std::string(DISKPERF_SHARED_REFERENCE) + "/azure/azure_vm_sizes_full.csv";
  if (!std::filesystem::exists(ref)) {
    WARN("reference table absent: " << ref);
    return;
  }
  const std::string text = test::slurp(ref);
  CHECK(test::slurp(std::string(DISKPERF_SOURCE_DIR) + "/config/vm_sizes.csv") == text);
  // The embedded table, parsed, against the reference read cell by cell here.
  const auto rows = split_csv(text);
  REQUIRE(rows.size() == 1273);
  const auto& header = rows[0];
  REQUIRE(header.size() == 15);
  const auto& sizes = builtin_vm_sizes();
  REQUIRE(sizes.size() == rows.size() - 1);
  auto opt = [](const auto& o) { return o ? std::optional<double>(*o) : std::nullopt; };
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const VmSize& s = sizes[r - 1];
    const std::map<std::string, std::optional<double>> numbers = {
        {"vcpu", opt(s.vcpu)},
        {"mem_gib", s.mem_gib},
        {"max_data_disks", opt(s.max_data_disks)},
        {"uncached_iops", s.uncached_iops},
        {"uncached_mbps", opt(s.uncached_bytes_per_second)},
        {"burst_uncached_iops", s.burst_uncached_iops},
        {"burst_uncached_mbps", s.burst_uncached_bytes_per_second},
        {"cached_iops", s.cached_iops},
        {"cached_mbps", s.cached_bytes_per_second},
        {"cache_gib", s.cache_gib},
        {"premium_v2_ultra_iops", s.premium_v2_ultra_iops},
        {"premium_v2_ultra_mbps", s.premium_v2_ultra_bytes_per_second}};
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string& col = header[c];
      const std::string& cell = rows[r][c];
      INFO("line " << r + 1 << " column " << col << " '" << cell << "'");
      if (col == "vm_size") CHECK(s.name == cell);
      else if (col == "disk_controller") CHECK(s.disk_controller == cell);
      else if (col == "source") CHECK(s.source == cell);
      else if (cell.empty()) CHECK_FALSE(numbers.at(col));
      else CHECK(numbers.at(col) == std::stod(cell) * (col.find("_mbps") != std::string::npos ? 1e6 : 1));
    }
  }
}

TEST_CASE("VM size CSV: empty caps are unknown, garbage is an error", "[tiers]") {
  const std::string header =
      "vm_size,vcpu,mem_gib,max_data_disks,uncached_iops,uncached_mbps,burst_uncached_iops,burst_uncached_mbps,"
      "cached_iops,cached_mbps,cache_gib,premium_v2_ultra_iops,premium_v2_ultra_mbps,disk_controller,source\n";
  auto ok = parse_vm_csv(header + "A_1,2,8,4,,,,,,,,,,,me\nB_1,2,8,4,1000,,,,,,,,,NVMe,me\n");
  REQUIRE(ok.errors.empty());
  REQUIRE(ok.rows.size() == 2);
  CHECK_FALSE(ok.rows[0].uncached_iops);
  CHECK(*ok.rows[1].uncached_iops == 1000);
  CHECK_FALSE(ok.rows[1].uncached_bytes_per_second);
  auto bad = parse_vm_csv(header + "A_1,2,8,4,abc,10,,,,,,,,,me\n"
                                   "A_2,2.5,8,4,1,1,,,,,,,,,me\n"
                                   "A_3,2,8,4,1,1,,,,,,,,SATA,me\n"
                                   "a_1,2,8,4,1,1,,,,,,,,,me\n"
                                   ",2,8,4,1,1,,,,,,,,,me\n"
                                   "A_4,2,8,4,1,1,,,UNVERIFIED,,,,,,me\n");
  CHECK(bad.errors == std::vector<std::string>{
                          "line 2: column uncached_iops: 'abc' is not a number",
                          "line 3: column vcpu: '2.5' is not a whole number",
                          "line 4: disk_controller 'SATA' is not NVMe, \"SCSI, NVMe\" or empty",
                          "line 5: vm_size 'a_1' given twice",
                          "line 6: empty vm_size",
                          "line 7: column cached_iops: 'UNVERIFIED' is not a number"});
  CHECK(bad.rows.empty());
  auto missing = parse_vm_csv("vm_size,max_data_disks,uncached_iops\n");
  REQUIRE_FALSE(missing.errors.empty());
  CHECK(missing.errors[0] == "header: missing column vcpu");
}

TEST_CASE("nearest_vm_sizes: by edit distance, ignoring case", "[tiers]") {
  std::vector<VmSize> t(6);
  const char* names[] = {"Standard_D16d_v5", "Standard_E16ds_v5", "Standard_E16d_v4",
                         "Standard_E16s_v5", "Standard_E16_v5", "Standard_M128s"};
  for (std::size_t i = 0; i < t.size(); ++i) t[i].name = names[i];
  // All but M128s are one edit away; the longer common prefix goes first, then table order.
  CHECK(nearest_vm_sizes(t, "standard_e16d_v5") ==
        std::vector<std::string>{"Standard_E16d_v4", "Standard_E16ds_v5", "Standard_E16s_v5"});
  CHECK(nearest_vm_sizes(t, "STANDARD_M128", 1) == std::vector<std::string>{"Standard_M128s"});
  CHECK(nearest_vm_sizes(t, "x", 10).size() == 6);
  CHECK(nearest_vm_sizes({}, "x").empty());
  CHECK(nearest_vm_sizes(t, "x", 0).empty());
  // The built-in table: a size named with the doc's footnote digit is found from the plain name.
  CHECK(nearest_vm_sizes(builtin_vm_sizes(), "Standard_D2a_v4") ==
        std::vector<std::string>{"Standard_D2a_v41", "Standard_D2as_v4", "Standard_D2d_v4"});
  CHECK(nearest_vm_sizes(builtin_vm_sizes(), "Standard_E16ds_v9") ==
        std::vector<std::string>{"Standard_E16ds_v4", "Standard_E16ds_v5", "Standard_E16ds_v6"});
  CHECK(nearest_vm_sizes(builtin_vm_sizes(), std::string(100000, 'x')).size() == 3);  // bounded work
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
