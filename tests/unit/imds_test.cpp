#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "collectors/azure/imds_collector.h"
#include "collectors/azure/imds_document.h"
#include "collectors/azure/imds_watcher.h"
#include "daemon/exposition.h"
#include "imds_test_server.h"
#include "sysfs_test_helpers.h"
#include "test_helpers.h"

using namespace diskperf;
using diskperf::test::fixture;
using diskperf::test::ImdsTestServer;
using diskperf::test::slurp;
using diskperf::test::TempDir;

namespace {

ImdsCompute parse_ok(const std::string& text) {
  ImdsParse p = parse_imds_compute(text);
  INFO(p.error);
  REQUIRE(p.compute);
  CHECK(p.error.empty());
  return *p.compute;
}

std::string parse_error(const std::string& text) {
  ImdsParse p = parse_imds_compute(text);
  CHECK_FALSE(p.compute);
  return p.error;
}

std::string imds_doc(const std::string& name) { return slurp(fixture("azure/imds/" + name)); }

// A document with one data disk whose fields are `disk` (JSON members).
std::string with_disk(const std::string& disk) {
  return R"({"vmSize":"Standard_E16ds_v5","storageProfile":{"dataDisks":[)" + disk + "]}}";
}

}  // namespace

TEST_CASE("imds document: the NVMe VM fixture", "[imds]") {
  const ImdsCompute c = parse_ok(imds_doc("nvme_vm.json"));
  CHECK(c.vm_size == "Standard_E16ds_v6");
  CHECK(c.location == "westeurope");
  CHECK(c.zone == "2");
  CHECK(c.name == "vm-nvme-01");
  CHECK(c.resource_id.find("/providers/Microsoft.Compute/virtualMachines/vm-nvme-01") != std::string::npos);
  REQUIRE(c.os_disk);
  CHECK_FALSE(c.os_disk->lun);
  CHECK(c.os_disk->storage_account_type == "Premium_LRS");
  CHECK(c.os_disk->disk_size_gb == 30);
  CHECK(c.os_disk->caching == "ReadWrite");
  REQUIRE(c.data_disks.size() == 3);
  const ImdsDisk& d0 = c.data_disks[0];
  CHECK(d0.lun == 0u);
  CHECK(d0.name == "vm-nvme-01-data-lun0");
  CHECK(d0.caching == "ReadOnly");
  CHECK(d0.disk_size_gb == 1024);
  CHECK(d0.storage_account_type == "Premium_LRS");
  CHECK_FALSE(d0.write_accelerator);
  CHECK_FALSE(d0.ops_per_second_throttle);
  CHECK_FALSE(d0.bytes_per_second_throttle);
  CHECK(c.data_disks[1].lun == 1u);
  CHECK(c.data_disks[1].disk_size_gb == 512);
  CHECK(c.data_disks[1].caching == "None");
  CHECK(c.data_disks[2].lun == 2u);
  CHECK(c.data_disks[2].storage_account_type == "StandardSSD_LRS");
  CHECK(c.data_disks[2].disk_size_gb == 256);
}

TEST_CASE("imds document: the other fixtures", "[imds]") {
  const ImdsCompute scsi = parse_ok(imds_doc("scsi_vm.json"));
  CHECK(scsi.vm_size == "Standard_E16ds_v5");
  REQUIRE(scsi.data_disks.size() == 4);
  const double sizes[] = {128, 1000, 1024, 2048};
  for (unsigned i = 0; i < 4; ++i) {
    CHECK(scsi.data_disks[i].lun == i);
    CHECK(scsi.data_disks[i].disk_size_gb == sizes[i]);
    CHECK(scsi.data_disks[i].storage_account_type == "Premium_LRS");
  }

  const ImdsCompute mix = parse_ok(imds_doc("ultra_v2_mix.json"));
  REQUIRE(mix.data_disks.size() == 3);
  CHECK(mix.data_disks[0].storage_account_type == "UltraSSD_LRS");
  CHECK(mix.data_disks[0].ops_per_second_throttle == 20000);
  CHECK(mix.data_disks[0].bytes_per_second_throttle == 524288000);
  CHECK(mix.data_disks[1].storage_account_type == "PremiumV2_LRS");
  CHECK_FALSE(mix.data_disks[1].ops_per_second_throttle);
  CHECK_FALSE(mix.data_disks[1].bytes_per_second_throttle);
  CHECK(mix.data_disks[2].storage_account_type == "Standard_LRS");

  for (const auto& [file, gb] : {std::pair{"p30_lun0.json", 1024.0}, std::pair{"p10_lun0.json", 128.0}}) {
    const ImdsCompute c = parse_ok(imds_doc(file));
    CHECK(c.vm_size == "Standard_E16ds_v5");
    REQUIRE(c.data_disks.size() == 1);
    CHECK(c.data_disks[0].lun == 0u);
    CHECK(c.data_disks[0].disk_size_gb == gb);
    CHECK(c.data_disks[0].storage_account_type == "Premium_LRS");
  }
}

TEST_CASE("imds document: JSON numbers and booleans, the whole instance document", "[imds]") {
  const ImdsCompute c = parse_ok(R"({"vmSize":"Standard_M64ms","zone":1,"storageProfile":{"dataDisks":[
      {"lun":3,"diskSizeGB":1023.5,"writeAcceleratorEnabled":true,"opsPerSecondThrottle":5000,
       "bytesPerSecondThrottle":"","managedDisk":{"storageAccountType":"Premium_LRS"}},
      {"lun":"4","writeAcceleratorEnabled":"True","managedDisk":null}]}})");
  CHECK(c.zone == "1");
  REQUIRE(c.data_disks.size() == 2);
  CHECK(c.data_disks[0].lun == 3u);
  CHECK(c.data_disks[0].disk_size_gb == 1023.5);
  CHECK(c.data_disks[0].write_accelerator);
  CHECK(c.data_disks[0].ops_per_second_throttle == 5000);
  CHECK_FALSE(c.data_disks[0].bytes_per_second_throttle);
  CHECK(c.data_disks[1].write_accelerator);
  CHECK_FALSE(c.data_disks[1].disk_size_gb);
  CHECK_FALSE(c.os_disk);

  const ImdsCompute whole = parse_ok(R"({"compute":)" + imds_doc("p30_lun0.json") + R"(,"network":{}})");
  CHECK(whole.vm_size == "Standard_E16ds_v5");
  CHECK(whole.data_disks.size() == 1);
  // No storageProfile: a bad answer (every VM has an OS disk), not a VM without disks.
  CHECK(parse_error(R"({"vmSize":"Standard_D2s_v5","storageProfile":null})") == "storageProfile: missing");
  CHECK(parse_error(R"({"vmSize":"Standard_D2s_v5"})") == "storageProfile: missing");
  const ImdsCompute bare = parse_ok(R"({"vmSize":"Standard_D2s_v5","storageProfile":{}})");
  CHECK(bare.data_disks.empty());
  CHECK_FALSE(bare.os_disk);
  CHECK(parse_error(with_disk(R"({"lun":"0","diskSizeGB":"99999999999999999999999"})")) ==
        "storageProfile.dataDisks[0].diskSizeGB: '99999999999999999999999' is out of range");
}

TEST_CASE("imds document: broken documents say what and where", "[imds][bad-input]") {
  const std::string good = imds_doc("nvme_vm.json");
  CHECK(parse_error(good.substr(0, good.size() / 2)).rfind("not JSON (", 0) == 0);
  CHECK(parse_error("<html>Service Unavailable</html>").rfind("not JSON", 0) == 0);
  CHECK(parse_error("") == "empty document");
  CHECK(parse_error("[]") == "not a JSON object (an array)");
  CHECK(parse_error(R"("Standard_E16ds_v5")") == "not a JSON object ('Standard_E16ds_v5')");
  CHECK(parse_error(R"({"location":"westeurope"})") == "vmSize: missing");
  CHECK(parse_error(R"({"vmSize":""})") == "vmSize: missing");
  CHECK(parse_error(R"({"vmSize":{}})") == "vmSize: an object is not a string");
  CHECK(parse_error(with_disk(R"({"lun":"x"})")) == "storageProfile.dataDisks[0].lun: 'x' is not a number");
  CHECK(parse_error(with_disk(R"({"lun":""})")) == "storageProfile.dataDisks[0].lun: missing");
  CHECK(parse_error(with_disk(R"({"name":"d"})")) == "storageProfile.dataDisks[0].lun: missing");
  CHECK(parse_error(with_disk(R"({"lun":-1})")) == "storageProfile.dataDisks[0].lun: -1 is not a whole number >= 0");
  CHECK(parse_error(with_disk(R"({"lun":1.5})")) == "storageProfile.dataDisks[0].lun: 1.5 is not a whole number >= 0");
  CHECK(parse_error(with_disk(R"({"lun":"0"},{"lun":"1","diskSizeGB":"abc"})")) ==
        "storageProfile.dataDisks[1].diskSizeGB: 'abc' is not a number");
  CHECK(parse_error(with_disk(R"({"lun":"0","opsPerSecondThrottle":"1e999"})")) ==
        "storageProfile.dataDisks[0].opsPerSecondThrottle: '1e999' is not a finite number >= 0");
  CHECK(parse_error(with_disk(R"({"lun":"0","bytesPerSecondThrottle":"nan"})")) ==
        "storageProfile.dataDisks[0].bytesPerSecondThrottle: 'nan' is not a finite number >= 0");
  CHECK(parse_error(with_disk(R"({"lun":"0","diskSizeGB":"-5"})")) ==
        "storageProfile.dataDisks[0].diskSizeGB: '-5' is not a finite number >= 0");
  CHECK(parse_error(with_disk(R"({"lun":"0","diskSizeGB":" 5"})")) ==
        "storageProfile.dataDisks[0].diskSizeGB: ' 5' is not a number");
  CHECK(parse_error(with_disk(R"({"lun":"0","writeAcceleratorEnabled":"maybe"})")) ==
        "storageProfile.dataDisks[0].writeAcceleratorEnabled: 'maybe' is not true or false");
  // A control character in the bad value is shown escaped, never raw.
  CHECK(parse_error(with_disk(R"({"lun":"\u0001x"})")) == "storageProfile.dataDisks[0].lun: '\\u0001x' is not a number");
}

TEST_CASE("imds document: nested types that are wrong", "[imds][bad-input]") {
  const std::string v = R"({"vmSize":"Standard_E16ds_v5","storageProfile":)";
  CHECK(parse_error(v + R"("x"})") == "storageProfile: 'x' is not an object");
  CHECK(parse_error(v + R"({"dataDisks":{}}})") == "storageProfile.dataDisks: an object is not an array");
  CHECK(parse_error(v + R"({"dataDisks":["disk"]}})") == "storageProfile.dataDisks[0]: 'disk' is not an object");
  CHECK(parse_error(v + R"({"osDisk":5}})") == "storageProfile.osDisk: 5 is not an object");
  CHECK(parse_error(v + R"({"osDisk":{"managedDisk":[]}}})") ==
        "storageProfile.osDisk.managedDisk: an array is not an object");
  CHECK(parse_error(v + R"({"osDisk":{"managedDisk":{"storageAccountType":["Premium_LRS"]}}}})") ==
        "storageProfile.osDisk.managedDisk.storageAccountType: an array is not a string");
  CHECK(parse_error(with_disk(R"({"lun":"0","caching":{"mode":"None"}})")) ==
        "storageProfile.dataDisks[0].caching: an object is not a string");
  CHECK(parse_error(with_disk(R"({"lun":"0","diskSizeGB":true})")) ==
        "storageProfile.dataDisks[0].diskSizeGB: true is not a number");
  std::string many;
  for (int i = 0; i <= static_cast<int>(kImdsMaxDataDisks); ++i) many += (i ? ",{\"lun\":" : "{\"lun\":") + std::to_string(i) + "}";
  CHECK(parse_error(with_disk(many)) == "storageProfile.dataDisks: 257 disks, more than 256");
  // Deep nesting is refused without exhausting the stack.
  CHECK(parse_error(std::string(100000, '[') + std::string(100000, ']')).rfind("not a JSON object", 0) == 0);
}

TEST_CASE("imds: azure_vm_by_dmi and parse_imds_mode", "[imds]") {
  const auto dmi = [](const std::string& vendor, const std::string& tag) {
    TempDir d;
    if (!vendor.empty()) d.write("class/dmi/id/sys_vendor", vendor);
    if (!tag.empty()) d.write("class/dmi/id/chassis_asset_tag", tag);
    return azure_vm_by_dmi(d.str());
  };
  const std::string tag = "7783-7084-3265-9085-8269-3286-77";
  CHECK(dmi("Microsoft Corporation\n", tag + "\n"));
  CHECK(dmi("Microsoft Corporation", tag + "  \n"));
  CHECK_FALSE(dmi("Microsoft Corporation\n", "0000-0000-0000\n"));  // Hyper-V elsewhere
  CHECK_FALSE(dmi("QEMU\n", tag + "\n"));
  CHECK_FALSE(dmi("Microsoft Corporation\n", ""));
  CHECK_FALSE(dmi("", ""));
  CHECK_FALSE(azure_vm_by_dmi("/nonexistent"));

  CHECK(parse_imds_mode("auto") == ImdsMode::auto_detect);
  CHECK(parse_imds_mode("on") == ImdsMode::on);
  CHECK(parse_imds_mode("off") == ImdsMode::off);
  CHECK_FALSE(parse_imds_mode("yes"));
  CHECK_FALSE(parse_imds_mode(""));
}

namespace {

struct CollectorSetup {
  ImdsTestServer server;
  std::shared_ptr<ImdsWatcher> watcher;
  ImdsCollector collector;
  explicit CollectorSetup(std::string document)
      : server(std::move(document)),
        watcher(std::make_shared<ImdsWatcher>(ImdsOptions{ImdsMode::on, server.url()}, "/nonexistent")),
        collector(watcher) {}
  Families collect() {
    Families fs;
    REQUIRE_FALSE(collector.collect(fs));
    return fs;
  }
};

std::vector<std::string> lines_of(const Families& fs) {
  std::vector<std::string> out;
  std::istringstream in(to_text(fs));
  for (std::string l; std::getline(in, l);)
    if (l[0] != '#') out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("imds collector: health before the first answer, then the document", "[imds]") {
  using diskperf::test::value;
  CollectorSetup s(imds_doc("nvme_vm.json"));
  CHECK(lines_of(s.collect()) == std::vector<std::string>{
                                     "diskperf_azure_imds_up 0",
                                     "diskperf_azure_imds_last_success_timestamp_seconds 0",
                                     "diskperf_azure_imds_requests_total 0",
                                     "diskperf_azure_imds_request_failures_total 0",
                                 });
  s.watcher->refresh_once();
  const Families fs = s.collect();
  const auto lines = lines_of(fs);
  REQUIRE(lines.size() >= 4);
  CHECK(lines[0] == "diskperf_azure_imds_up 1");
  CHECK(value(fs, "diskperf_azure_imds_last_success_timestamp_seconds", {}) > 1.7e9);
  CHECK(lines[2] == "diskperf_azure_imds_requests_total 1");
  CHECK(lines[3] == "diskperf_azure_imds_request_failures_total 0");
  const std::vector<std::string> rest(lines.begin() + 4, lines.end());
  CHECK(rest == std::vector<std::string>{
                    R"(diskperf_azure_imds_vm_info{vm_size="Standard_E16ds_v6",location="westeurope",zone="2"} 1)",
                    R"(diskperf_azure_imds_disk_info{role="os",lun="",name="vm-nvme-01_OsDisk_1_5f3e2a1b9c8d4e7f",storage_account_type="Premium_LRS",caching="ReadWrite",write_accelerator="false"} 1)",
                    R"(diskperf_azure_imds_disk_info{role="data",lun="0",name="vm-nvme-01-data-lun0",storage_account_type="Premium_LRS",caching="ReadOnly",write_accelerator="false"} 1)",
                    R"(diskperf_azure_imds_disk_info{role="data",lun="1",name="vm-nvme-01-data-lun1",storage_account_type="Premium_LRS",caching="None",write_accelerator="false"} 1)",
                    R"(diskperf_azure_imds_disk_info{role="data",lun="2",name="vm-nvme-01-data-lun2",storage_account_type="StandardSSD_LRS",caching="None",write_accelerator="false"} 1)",
                    R"(diskperf_azure_imds_disk_size_bytes{role="os",lun=""} 32212254720)",
                    R"(diskperf_azure_imds_disk_size_bytes{role="data",lun="0"} 1099511627776)",
                    R"(diskperf_azure_imds_disk_size_bytes{role="data",lun="1"} 549755813888)",
                    R"(diskperf_azure_imds_disk_size_bytes{role="data",lun="2"} 274877906944)",
                });
  const auto* req = diskperf::test::family(fs, "diskperf_azure_imds_requests_total");
  REQUIRE(req);
  CHECK(req->type == prometheus::MetricType::Counter);
  CHECK(diskperf::test::family(fs, "diskperf_azure_imds_up")->type == prometheus::MetricType::Gauge);

  // IMDS fails: the document's series stay, up goes to 0, the collector still succeeds.
  s.server.mode = ImdsTestServer::Mode::error500;
  s.watcher->refresh_once();
  const Families failed = s.collect();
  CHECK(value(failed, "diskperf_azure_imds_up", {}) == 0);
  CHECK(value(failed, "diskperf_azure_imds_request_failures_total", {}) == 1);
  CHECK(value(failed, "diskperf_azure_imds_requests_total", {}) == 2);
  CHECK(value(failed, "diskperf_azure_imds_vm_info", {{"vm_size", "Standard_E16ds_v6"}}) == 1);
  CHECK(diskperf::test::count(failed, "diskperf_azure_imds_disk_info") == 4);
}

TEST_CASE("imds collector: label values from the network are made safe", "[imds][bad-input]") {
  const std::string long_name(1000, 'n');
  CollectorSetup s(R"({"vmSize":"Standard_E\u0001\u001b[31m","location":"west\"europe\\\n","storageProfile":{
      "dataDisks":[{"lun":"0","name":")" + long_name + R"(","caching":"None\r","diskSizeGB":"1"},
                   {"lun":"0","name":"second-lun0","diskSizeGB":"2"},
                   {"lun":"1","name":"\u00e9\u4e2d\ud83d\ude00","managedDisk":{"storageAccountType":"\u007f"}}]}})");
  s.watcher->refresh_once();
  REQUIRE(s.watcher->state()->up);
  const Families fs = s.collect();
  const std::string text = to_text(fs);
  CHECK(std::count_if(text.begin(), text.end(), [](char c) {
          return (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f;
        }) == 0);
  CHECK(text.find(R"(vm_size="Standard_E)" "\xEF\xBF\xBD\xEF\xBF\xBD" R"([31m")") != std::string::npos);
  CHECK(text.find("location=\"west\\\"europe\\\\\xEF\xBF\xBD\"") != std::string::npos);  // newline too
  CHECK(text.find("name=\"" + std::string(256, 'n') + "\"") != std::string::npos);
  CHECK(text.find("caching=\"None\xEF\xBF\xBD\"") != std::string::npos);
  CHECK(text.find("name=\"\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\"") != std::string::npos);
  CHECK(text.find("storage_account_type=\"\xEF\xBF\xBD\"") != std::string::npos);
  // LUN 0 twice: only the first is served (two series with the same labels would break a scrape).
  CHECK(diskperf::test::count(fs, "diskperf_azure_imds_disk_info", {{"lun", "0"}}) == 1);
  CHECK(text.find("second-lun0") == std::string::npos);
  CHECK(diskperf::test::value(fs, "diskperf_azure_imds_disk_size_bytes", {{"lun", "0"}}) == 1073741824);
}
