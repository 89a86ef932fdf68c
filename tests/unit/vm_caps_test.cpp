// The VM's caps end to end without a host: which source names the VM size (config, PerfCounters,
// IMDS), sizes whose page gives no caps or only some, the volume bound, and the VM series.

#include <catch2/catch.hpp>

#include "collectors/tier_collector.h"
#include "config/cap_resolver.h"
#include "config/config.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {

TiersConfig tiers(const std::string& yaml) {
  auto r = parse_config(yaml);
  if (!r.config) {
    for (const auto& e : r.errors) FAIL(e.to_string("test.yml"));
  }
  return r.config->tiers;
}

// dm-0 striped over sdc and sdd, both given `tier` by a rule; the VM size from `vm_size` if set.
struct Stripe {
  TiersConfig cfg;
  CapInputs in;
  Stripe(const std::string& tier, const std::string& vm_size) {
    cfg = tiers("tiers:\n" + (vm_size.empty() ? "" : "  vm_size: " + vm_size + "\n") +
                "  disks:\n    - {glob: 'sd[cd]', tier: " + tier + ", bursting: true}\n");
    in.config = &cfg;
    in.disks = {{"sdc", {}, {}}, {"sdd", {}, {}}};
    VolumeInfo v;
    v.device = "dm-0";
    v.kind = "dm";
    v.members = {{"sdc", "sdc"}, {"sdd", "sdd"}};
    in.volumes["dm-0"] = v;
    in.layouts["dm-0"] = VolumeLayout::striped;
    in.volumes_wanted = {"dm-0"};
  }
};

Families emitted(const ResolvedCaps& caps) {
  Families f;
  emit_caps(f, caps);
  return f;
}

}  // namespace

TEST_CASE("VM caps: a size without caps gives vm_info and no cap series", "[tiers][vm]") {
  Stripe s("P30", "Standard_HB120rs_v3");
  ResolvedCaps caps = resolve_caps(s.in);
  REQUIRE(caps.vm);
  CHECK_FALSE(caps.vm->iops);
  CHECK_FALSE(caps.vm->bytes_per_second);
  Families f = emitted(caps);
  CHECK(labels_of(f, "diskperf_tier_vm_info", "vm_size", "Standard_HB120rs_v3") ==
        std::map<std::string, std::string>{
            {"vm_size", "Standard_HB120rs_v3"}, {"source", "builtin"}, {"disk_controller", ""}});
  CHECK(value(f, "diskperf_tier_vm_max_data_disks", {}) == 32);
  for (const char* m :
       {"diskperf_tier_vm_uncached_iops_cap", "diskperf_tier_vm_uncached_throughput_cap_bytes_per_second",
        "diskperf_tier_vm_burst_uncached_iops_cap", "diskperf_tier_vm_burst_uncached_throughput_cap_bytes_per_second",
        "diskperf_tier_vm_cached_iops_cap", "diskperf_tier_vm_cached_throughput_cap_bytes_per_second"}) {
    INFO(m);
    CHECK(count(f, m) == 0);
  }
  // The stripe keeps its members' sum: 2 x P30 (5000 IOPS, 200 MB/s; burst 30000, 1000 MB/s).
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 10000);
  CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 400e6);
  CHECK(value(f, "diskperf_tier_volume_burst_iops_cap", {{"volume", "dm-0"}}) == 60000);
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "dm-0").at("vm_bounded") == "false");
}

TEST_CASE("VM caps: a volume is bounded only by the caps the VM has", "[tiers][vm]") {
  // Standard_A1_v2: 1000 uncached IOPS, no MB/s, no burst caps.
  Stripe s("P30", "Standard_A1_v2");
  Families f = emitted(resolve_caps(s.in));
  CHECK(value(f, "diskperf_tier_vm_uncached_iops_cap", {}) == 1000);
  CHECK(count(f, "diskperf_tier_vm_uncached_throughput_cap_bytes_per_second") == 0);
  CHECK(value(f, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 1000);
  CHECK(value(f, "diskperf_tier_volume_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 400e6);
  CHECK(value(f, "diskperf_tier_volume_burst_iops_cap", {{"volume", "dm-0"}}) == 1000);  // no burst cap: uncached
  CHECK(value(f, "diskperf_tier_volume_burst_throughput_cap_bytes_per_second", {{"volume", "dm-0"}}) == 2000e6);
  CHECK(labels_of(f, "diskperf_tier_volume_info", "volume", "dm-0").at("vm_bounded") == "true");
  // Under the VM's IOPS cap the volume is not bounded (P1: 120 IOPS, 25 MB/s; burst 3500, 170 MB/s).
  Stripe small("P1", "Standard_A1_v2");
  Families g = emitted(resolve_caps(small.in));
  CHECK(value(g, "diskperf_tier_volume_iops_cap", {{"volume", "dm-0"}}) == 240);
  CHECK(value(g, "diskperf_tier_volume_burst_iops_cap", {{"volume", "dm-0"}}) == 1000);
  CHECK(labels_of(g, "diskperf_tier_volume_info", "volume", "dm-0").at("vm_bounded") == "false");
}

TEST_CASE("VM caps: cached caps, data disk count and disk controller", "[tiers][vm]") {
  Stripe d8("P30", "Standard_D8s_v3");
  Families f = emitted(resolve_caps(d8.in));
  CHECK(value(f, "diskperf_tier_vm_cached_iops_cap", {}) == 16000);
  CHECK(value(f, "diskperf_tier_vm_cached_throughput_cap_bytes_per_second", {}) == 128e6);
  CHECK(value(f, "diskperf_tier_vm_max_data_disks", {}) == 16);
  Stripe eb("P30", "standard_e2bds_v5");
  Families g = emitted(resolve_caps(eb.in));
  CHECK(labels_of(g, "diskperf_tier_vm_info", "vm_size", "Standard_E2bds_v5").at("disk_controller") == "SCSI, NVMe");
  CHECK(count(g, "diskperf_tier_vm_cached_iops_cap") == 0);
}

TEST_CASE("VM caps: IMDS vmSize when nothing else names the size", "[tiers][vm]") {
  ImdsCompute imds;
  imds.vm_size = "standard_e16ds_v5";
  CapInputs in;
  in.imds = &imds;
  auto vm = resolve_caps(in).vm;
  REQUIRE(vm);
  CHECK(vm->vm_size == "Standard_E16ds_v5");
  CHECK(vm->source == CapSource::imds);
  CHECK(*vm->iops == 25600);
  CHECK(*vm->bytes_per_second == 600e6);
  CHECK(labels_of(emitted(resolve_caps(in)), "diskperf_tier_vm_info", "vm_size", "Standard_E16ds_v5").at("source") ==
        "imds");
  imds.vm_size = "Standard_Unknown";
  CHECK_FALSE(resolve_caps(in).vm);
  imds.vm_size = "";
  CHECK_FALSE(resolve_caps(in).vm);
}

TEST_CASE("VM caps: config and PerfCounters win over IMDS", "[tiers][vm]") {
  ImdsCompute imds;
  imds.vm_size = "Standard_E16ds_v5";
  TiersConfig cfg = tiers("tiers:\n  vm_size: Standard_D8s_v3\n");
  CapInputs in;
  in.imds = &imds;
  in.config = &cfg;
  auto vm = resolve_caps(in).vm;
  REQUIRE(vm);
  CHECK(vm->vm_size == "Standard_D8s_v3");
  CHECK(vm->source == CapSource::builtin);

  PerfCounter instance_type;
  instance_type.value = "Standard_E32s_v3";
  AzureFacts facts;
  facts.instance_type = &instance_type;
  in.config = nullptr;
  in.azure = &facts;
  vm = resolve_caps(in).vm;  // Instance Type looked up in the tables
  REQUIRE(vm);
  CHECK(vm->vm_size == "Standard_E32s_v3");
  CHECK(vm->source == CapSource::builtin);
  CHECK(*vm->iops == 51200);

  facts.vm_iops = 50000;
  facts.vm_mb_per_s = 700;
  vm = resolve_caps(in).vm;  // the SLA lines, with the rest from the table row
  REQUIRE(vm);
  CHECK(vm->vm_size == "Standard_E32s_v3");
  CHECK(vm->source == CapSource::perfcounters);
  CHECK(*vm->iops == 50000);
  CHECK(*vm->bytes_per_second == 700e6);
  CHECK(*vm->burst_iops == 64000);
  CHECK(*vm->cached_iops == 64000);
  CHECK(*vm->max_data_disks == 32);

  facts.instance_type = nullptr;  // SLA lines without a name: IMDS names the size
  vm = resolve_caps(in).vm;
  REQUIRE(vm);
  CHECK(vm->vm_size == "Standard_E16ds_v5");
  CHECK(vm->source == CapSource::perfcounters);
  CHECK(*vm->iops == 50000);
  CHECK(*vm->burst_iops == 40000);
}
