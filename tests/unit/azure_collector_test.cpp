#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include "collectors/azure_collector.h"
#include "daemon/exposition.h"
#include "daemon/gatherer.h"
#include "test_helpers.h"

using namespace diskperf;
using diskperf::test::fixture;
using diskperf::test::sample;
using diskperf::test::slurp;
using diskperf::test::TempDir;

namespace {

constexpr double kNow = 1761903060;    // 60 s after the samples' timestamps
constexpr time_t kMtime = 1761903030;  // the fixture copy's mtime

const std::string kManaged = "azure/PerfCounters.managed.sample";
const std::string kPremium = "azure/PerfCounters.premium-unmanaged.sample";

void set_mtime(const std::string& path, time_t t) {
  struct timespec ts[2] = {{t, 0}, {t, 0}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), ts, 0) == 0);
}

// Rewrites `path` in place as the extension does: open with O_TRUNC, then write.
void rewrite(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("open " + path);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

// The diskperf_azure_* sample lines of the exposition text, in order.
std::vector<std::string> azure_lines(const Families& fs, bool with_file_metrics = true) {
  std::vector<std::string> out;
  std::istringstream in(to_text(fs));
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("diskperf_azure_", 0) != 0) continue;
    if (!with_file_metrics && l.rfind("diskperf_azure_perfcounters_", 0) == 0) continue;
    out.push_back(l);
  }
  return out;
}

std::vector<std::string> with_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& l : lines)
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}

Families collect(AzureCollector& c, std::optional<std::string>* err = nullptr) {
  Families fs;
  auto e = c.collect(fs);
  if (err) *err = e;
  else REQUIRE_FALSE(e);
  return fs;
}

// A collector over a copy of `content` in a temp dir, with a pinned clock.
struct Setup {
  TempDir dir;
  std::string path;
  AzureCollector collector;
  explicit Setup(const std::string& content)
      : path((dir.path / "PerfCounters").string()), collector(path, [] { return kNow; }) {
    dir.write("PerfCounters", content);
    set_mtime(path, kMtime);
  }
};

const std::vector<std::string> kManagedExpected = {
    "diskperf_azure_perfcounters_present 1",
    "diskperf_azure_perfcounters_torn_reads_total 0",
    "diskperf_azure_perfcounters_mtime_seconds 1761903030",
    "diskperf_azure_perfcounters_mtime_age_seconds 30",
    "diskperf_azure_perfcounters_counters 56",
    "diskperf_azure_perfcounters_rejected_lines 0",
    "diskperf_azure_perfcounters_timestamp_seconds 1761903000",
    "diskperf_azure_perfcounters_timestamp_age_seconds 60",
    "diskperf_azure_perfcounters_stale 0",
    R"(diskperf_azure_disk_info{device="sda",storage_type="Premium",caching="ReadWrite",storage_account="",disk_name="vm-sample-01_OsDisk_1"} 1)",
    R"(diskperf_azure_disk_info{device="sdb",storage_type="",caching="",storage_account="",disk_name=""} 1)",
    R"(diskperf_azure_disk_info{device="sdc",storage_type="Premium",caching="None",storage_account="",disk_name="vm-sample-01-datadisk00"} 1)",
    R"(diskperf_azure_disk_info{device="sdd",storage_type="Premium",caching="ReadOnly",storage_account="",disk_name="vm-sample-01-datadisk01"} 1)",
    R"(diskperf_azure_disk_info{device="sde",storage_type="Premium",caching="ReadWrite",storage_account="",disk_name="vm-sample-01-datadisk02"} 1)",
    R"(diskperf_azure_disk_sla_iops{device="sda"} 500)",
    R"(diskperf_azure_disk_sla_iops{device="sdc"} 7500)",
    R"(diskperf_azure_disk_sla_iops{device="sdd"} 7500)",
    R"(diskperf_azure_disk_sla_iops{device="sde"} 7500)",
    R"(diskperf_azure_disk_sla_throughput_bytes_per_second{device="sda"} 1e+08)",
    R"(diskperf_azure_disk_sla_throughput_bytes_per_second{device="sdc"} 2.5e+08)",
    R"(diskperf_azure_disk_sla_throughput_bytes_per_second{device="sdd"} 2.5e+08)",
    R"(diskperf_azure_disk_sla_throughput_bytes_per_second{device="sde"} 2.5e+08)",
    R"(diskperf_azure_vm_info{instance_type="Standard_E32s_v3",data_provider_version="2.0.0"} 1)",
    "diskperf_azure_vm_sla_iops 51200",
    "diskperf_azure_vm_sla_throughput_bytes_per_second 7.68e+08",
    "diskperf_azure_config_error 0",
};

const std::vector<std::string> kPremiumExpected = {
    "diskperf_azure_perfcounters_present 1",
    "diskperf_azure_perfcounters_torn_reads_total 0",
    "diskperf_azure_perfcounters_mtime_seconds 1761903030",
    "diskperf_azure_perfcounters_mtime_age_seconds 30",
    "diskperf_azure_perfcounters_counters 65",
    "diskperf_azure_perfcounters_rejected_lines 0",
    "diskperf_azure_perfcounters_timestamp_seconds 1761903001",
    "diskperf_azure_perfcounters_timestamp_age_seconds 59",
    "diskperf_azure_perfcounters_stale 0",
    R"(diskperf_azure_disk_info{device="sda",storage_type="Standard",caching="ReadWrite",storage_account="samplestd01",disk_name="vm-sample-01-osdisk.vhd"} 1)",
    R"(diskperf_azure_disk_info{device="sdb",storage_type="",caching="",storage_account="",disk_name=""} 1)",
    R"(diskperf_azure_disk_info{device="sdc",storage_type="Premium",caching="None",storage_account="sampleprem01",disk_name="vm-sample-01-data00.vhd"} 1)",
    R"(diskperf_azure_disk_info{device="sdd",storage_type="Premium",caching="ReadOnly",storage_account="sampleprem01",disk_name="vm-sample-01-data01.vhd"} 1)",
    R"(diskperf_azure_disk_info{device="sde",storage_type="Premium",caching="ReadWrite",storage_account="sampleprem01",disk_name="vm-sample-01-data02.vhd"} 1)",
    R"(diskperf_azure_disk_sla_iops{device="sdc"} 7500)",
    R"(diskperf_azure_disk_sla_iops{device="sdd"} 7500)",
    R"(diskperf_azure_disk_sla_iops{device="sde"} 7500)",
    R"(diskperf_azure_disk_sla_throughput_bytes_per_second{device="sdc"} 2.5e+08)",
    R"(diskperf_azure_disk_sla_throughput_bytes_per_second{device="sdd"} 2.5e+08)",
    R"(diskperf_azure_disk_sla_throughput_bytes_per_second{device="sde"} 2.5e+08)",
    R"(diskperf_azure_vm_info{instance_type="Standard_E32s_v3",data_provider_version="2.0.0"} 1)",
    "diskperf_azure_vm_sla_iops 51200",
    "diskperf_azure_vm_sla_throughput_bytes_per_second 7.68e+08",
    "diskperf_azure_config_error 0",
    R"(diskperf_azure_storage_ops{storage_account="samplestd01",op="read"} 0)",
    R"(diskperf_azure_storage_ops{storage_account="samplestd01",op="write"} 1840)",
    R"(diskperf_azure_storage_bytes{storage_account="samplestd01",op="read"} 0)",
    R"(diskperf_azure_storage_bytes{storage_account="samplestd01",op="write"} 61521968)",
    // read latencies: empty flag 1 in the sample, so absent
    R"(diskperf_azure_storage_e2e_latency_seconds{storage_account="samplestd01",op="write"} 0.003923158695650001)",
    R"(diskperf_azure_storage_server_latency_seconds{storage_account="samplestd01",op="write"} 0.00370677619565)",
    R"(diskperf_azure_storage_throughput_bytes_per_second{storage_account="samplestd01",op="read"} 0)",
    // 0.977865346273 MiB/s x 1048576 (= 61521968 bytes / 60 s)
    R"(diskperf_azure_storage_throughput_bytes_per_second{storage_account="samplestd01",op="write"} 1025366.1333335573)",
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  return s;
}

std::string drop_lines_with(const std::string& text, const std::vector<std::string>& needles) {
  std::string out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    bool drop = false;
    for (const auto& n : needles) drop = drop || l.find(n) != std::string::npos;
    if (!drop) out += l + "\n";
  }
  return out;
}

std::set<std::string> devices(const Families& fs) {
  std::set<std::string> out;
  if (const auto* f = diskperf::test::family(fs, "diskperf_azure_disk_info"))
    for (std::size_t i = 0; i < f->size(); ++i)
      for (const auto& l : f->labels(i))
        if (l.name == "device") out.insert(l.value);
  return out;
}

}  // namespace

TEST_CASE("azure collector: managed sample, every series exact", "[azure]") {
  Setup s(slurp(fixture(kManaged)));
  CHECK(azure_lines(collect(s.collector)) == kManagedExpected);
}

TEST_CASE("azure collector: premium-unmanaged sample, every series exact", "[azure]") {
  Setup s(slurp(fixture(kPremium)));
  CHECK(azure_lines(collect(s.collector)) == kPremiumExpected);
}

TEST_CASE("azure collector: CRLF and a missing final newline give the same series", "[azure][bad-input]") {
  const std::string text = slurp(fixture(kPremium));
  for (const auto& variant : {replace_all(text, "\n", "\r\n"), text.substr(0, text.size() - 1)}) {
    Setup s(variant);
    CHECK(azure_lines(collect(s.collector)) == kPremiumExpected);
  }
}

TEST_CASE("azure collector: absent file is normal, quiet, and drops the disks", "[azure][bad-input]") {
  auto ring = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", ring));
  spdlog::set_level(spdlog::level::trace);

  TempDir dir;
  const std::string path = (dir.path / "PerfCounters").string();
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<AzureCollector>(path, [] { return kNow; }));
  auto* collector = cs.back().get();
  Gatherer g(std::move(cs));
  auto fs = g.Collect();
  CHECK(sample(fs, "diskperf_scrape_collector_success", "collector", "azure") == 1);
  CHECK(azure_lines(fs) == std::vector<std::string>{"diskperf_azure_perfcounters_present 0",
                                                     "diskperf_azure_perfcounters_torn_reads_total 0"});
  // Appears, then goes away again: its disks go with it.
  dir.write("PerfCounters", slurp(fixture(kManaged)));
  Families present;
  REQUIRE_FALSE(collector->collect(present));
  CHECK(devices(present).size() == 5);
  std::filesystem::remove(path);
  fs = g.Collect();
  CHECK(sample(fs, "diskperf_azure_perfcounters_present") == 0);
  CHECK(devices(fs).empty());
  CHECK(sample(fs, "diskperf_scrape_collector_success", "collector", "azure") == 1);

  for (const auto& msg : ring->last_raw()) CHECK(msg.level < spdlog::level::warn);
  spdlog::set_default_logger(previous);
}

TEST_CASE("azure collector: empty file is a torn read; the last good parse is served", "[azure][bad-input]") {
  Setup s("");
  auto fs = collect(s.collector);
  CHECK(sample(fs, "diskperf_azure_perfcounters_present") == 1);
  CHECK(sample(fs, "diskperf_azure_perfcounters_torn_reads_total") == 1);
  CHECK(devices(fs).empty());
  CHECK_FALSE(sample(fs, "diskperf_azure_perfcounters_counters"));

  rewrite(s.path, slurp(fixture(kManaged)));
  set_mtime(s.path, kMtime);
  CHECK(azure_lines(collect(s.collector), false) == azure_lines(collect(s.collector), false));
  rewrite(s.path, "");
  set_mtime(s.path, kMtime);
  fs = collect(s.collector);
  CHECK(sample(fs, "diskperf_azure_perfcounters_torn_reads_total") == 2);
  auto expected = kManagedExpected;
  expected[1] = "diskperf_azure_perfcounters_torn_reads_total 2";
  CHECK(azure_lines(fs) == expected);
}

TEST_CASE("azure collector: the sample cut at every byte offset never shows a wrong value",
          "[azure][bad-input]") {
  for (const auto& name : {kManaged, kPremium}) {
    const std::string text = slurp(fixture(name));
    const auto full_lines = name == kManaged ? kManagedExpected : kPremiumExpected;
    const std::set<std::string> full(full_lines.begin(), full_lines.end());
    const auto full_info = with_prefix(full_lines, "diskperf_azure_disk_info");
    Setup primed(text);
    REQUIRE(azure_lines(collect(primed.collector)) == full_lines);
    Setup fresh("");
    std::size_t torn_primed = 0;
    for (std::size_t k = 0; k < text.size(); ++k) {
      INFO(name << " cut at " << k);
      rewrite(primed.path, text.substr(0, k));
      auto p = azure_lines(collect(primed.collector), false);
      // Primed: always every disk of the full file, and nothing that is not in it.
      REQUIRE(with_prefix(p, "diskperf_azure_disk_info") == full_info);
      for (const auto& l : p) REQUIRE(full.count(l) == 1);
      // Fresh collector (no last good parse): only values of complete lines,
      // and no partial disk while the file may still be being written.
      AzureCollector c(primed.path, [] { return kMtime + 0.5; });
      set_mtime(primed.path, kMtime);
      for (const auto& l : azure_lines(collect(c), false)) REQUIRE(full.count(l) == 1);
      // Once settled, content without the writer's last block is served as is
      // (a writer that does not write it): every line is then one of the file's.
      AzureCollector settled(primed.path, [] { return kNow; });
      for (const auto& l : azure_lines(collect(settled), false)) {
        INFO(l);
        if (l.find("_info{") == std::string::npos) REQUIRE(full.count(l) == 1);
      }
    }
    rewrite(primed.path, text);
    auto fs = collect(primed.collector);
    torn_primed = static_cast<std::size_t>(*sample(fs, "diskperf_azure_perfcounters_torn_reads_total"));
    WARN(name << ": " << torn_primed << " of " << text.size() << " cuts counted as torn reads");
    CHECK(torn_primed > text.size() * 9 / 10);
    CHECK(azure_lines(fs, false) == azure_lines(collect(primed.collector), false));
  }
}

TEST_CASE("azure collector: 9 and 12 field lines are counted and skipped", "[azure][bad-input]") {
  std::string text = slurp(fixture(kManaged));
  text.insert(0, "1;disk;SLA;sdz;0;7500;Ops/sec;0;1761903000;\n1;disk;SLA;sdy;0;1;Ops/sec;0;1761903000;vm;x;y;\n");
  Setup s(text);
  auto expected = kManagedExpected;
  expected[5] = "diskperf_azure_perfcounters_rejected_lines 2";
  CHECK(azure_lines(collect(s.collector)) == expected);
}

TEST_CASE("azure collector: nan, inf, 1e400 and -1 are not exported as numbers", "[azure][bad-input]") {
  std::string text = slurp(fixture(kManaged));
  text = replace_all(text, "1;disk;SLA;sdc;0;7500;", "1;disk;SLA;sdc;0;nan;");
  text = replace_all(text, "1;disk;SLA;sdd;0;7500;", "1;disk;SLA;sdd;0;inf;");
  text = replace_all(text, "1;disk;SLA;sde;0;7500;", "1;disk;SLA;sde;0;1e400;");
  text = replace_all(text, "1;disk;SLA;/dev/sda;0;500;", "1;disk;SLA;/dev/sda;0;-1;");
  text = replace_all(text, "SLA Throughput;sdc;0;250;", "SLA Throughput;sdc;0;-inf;");
  text = replace_all(text, "per VM;;0;768;", "per VM;;0;-1;");
  Setup s(text);
  auto fs = collect(s.collector);
  CHECK(devices(fs).size() == 5);  // the disks' identities stay
  CHECK_FALSE(diskperf::test::family(fs, "diskperf_azure_disk_sla_iops")->size());
  CHECK(sample(fs, "diskperf_azure_disk_sla_throughput_bytes_per_second", "device", "sdd") == 250e6);
  CHECK_FALSE(sample(fs, "diskperf_azure_disk_sla_throughput_bytes_per_second", "device", "sdc"));
  CHECK_FALSE(sample(fs, "diskperf_azure_vm_sla_throughput_bytes_per_second"));
  CHECK(sample(fs, "diskperf_azure_vm_sla_iops") == 51200);
  CHECK(sample(fs, "diskperf_azure_perfcounters_rejected_lines") == 0);
}

TEST_CASE("azure collector: config;Error text becomes the error label", "[azure]") {
  std::string text = replace_all(slurp(fixture(kManaged)), "3;config;Error;;0;0;",
                                 "3;config;Error;;0;(03101)Failed to retrieve local data;");
  Setup s(text);
  auto lines = with_prefix(azure_lines(collect(s.collector)), "diskperf_azure_config_error");
  CHECK(lines == std::vector<std::string>{
                     R"(diskperf_azure_config_error{error="(03101)Failed to retrieve local data"} 1)"});
}

TEST_CASE("azure collector: stale after three refresh intervals, still served", "[azure]") {
  TempDir dir;
  const std::string path = (dir.path / "PerfCounters").string();
  dir.write("PerfCounters", slurp(fixture(kManaged)));
  set_mtime(path, 1761903000);
  double now = 1761903180;
  AzureCollector c(path, [&now] { return now; });
  auto fs = collect(c);
  CHECK(sample(fs, "diskperf_azure_perfcounters_stale") == 0);
  CHECK(sample(fs, "diskperf_azure_perfcounters_timestamp_age_seconds") == 180);
  now = 1761903181;
  fs = collect(c);
  CHECK(sample(fs, "diskperf_azure_perfcounters_stale") == 1);
  CHECK(sample(fs, "diskperf_azure_perfcounters_mtime_age_seconds") == 181);
  CHECK(devices(fs).size() == 5);
  // A fresh mtime does not hide old counter timestamps (the writer's data sources failed).
  set_mtime(path, 1761903170);
  CHECK(sample(collect(c), "diskperf_azure_perfcounters_stale") == 1);
}

TEST_CASE("azure collector: unreadable or oversized file fails the collector, keeps the last good parse",
          "[azure][bad-input]") {
  Setup s(slurp(fixture(kManaged)));
  collect(s.collector);
  std::mt19937 rng(3);
  std::string garbage(10u << 20, '\0');
  for (auto& ch : garbage) ch = static_cast<char>(rng() & 0xff);
  rewrite(s.path, garbage);
  std::optional<std::string> err;
  auto fs = collect(s.collector, &err);
  REQUIRE(err);
  CHECK(err->find("larger than 1048576 bytes") != std::string::npos);
  CHECK(devices(fs).size() == 5);
  CHECK(sample(fs, "diskperf_azure_perfcounters_present") == 1);

  // Binary garbage under the size cap: all lines rejected, counted as a torn read
  // (it lacks the writer's last block), the last good parse is served.
  rewrite(s.path, garbage.substr(0, 200000) + "\n");
  fs = collect(s.collector);
  CHECK(devices(fs).size() == 5);
  CHECK(sample(fs, "diskperf_azure_perfcounters_torn_reads_total") == 1);
  // Without a last good parse, the garbage parse is served once the file has
  // settled: no disks, lines rejected.
  set_mtime(s.path, kMtime);
  AzureCollector fresh(s.path, [] { return kNow; });
  fs = collect(fresh);
  CHECK(devices(fs).empty());
  CHECK(sample(fs, "diskperf_azure_perfcounters_counters") == 0);
  CHECK(*sample(fs, "diskperf_azure_perfcounters_rejected_lines") > 500);

  // A directory where the file should be.
  TempDir dir;
  std::filesystem::create_directory(dir.path / "PerfCounters");
  AzureCollector on_dir((dir.path / "PerfCounters").string());
  Families out;
  auto derr = on_dir.collect(out);
  REQUIRE(derr);
  CHECK(derr->find("not a regular file") != std::string::npos);
}

TEST_CASE("azure collector: 1,000 in-place rewrites while scraping never lose a disk", "[azure][concurrency]") {
  const std::string a = slurp(fixture(kManaged));  // sda sdb sdc sdd sde
  const std::string b = drop_lines_with(slurp(fixture(kPremium)), {";sdd;", ";sde;"});  // sda sdb sdc
  REQUIRE(a.size() > 4096);
  REQUIRE(b.size() > 4096);  // two pages: a reader can catch the first alone
  const std::set<std::string> set_a{"sda", "sdb", "sdc", "sdd", "sde"}, set_b{"sda", "sdb", "sdc"};
  Setup s(a);
  REQUIRE(devices(collect(s.collector)) == set_a);

  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> scrapes{0}, bad{0}, seen_a{0}, seen_b{0};
  auto scraper = [&] {
    while (!done.load()) {
      Families fs;
      if (s.collector.collect(fs)) ++bad;
      const auto d = devices(fs);
      // A's sda has an SLA (Premium); B's sda is Standard without one: the values
      // must come from the same file as the disk set.
      const bool sda_sla = sample(fs, "diskperf_azure_disk_sla_iops", "device", "sda").has_value();
      const auto acct = sample(fs, "diskperf_azure_storage_ops", "storage_account", "samplestd01");
      if (d == set_a && sda_sla && !acct) ++seen_a;
      else if (d == set_b && !sda_sla && acct) ++seen_b;
      else ++bad;
      ++scrapes;
    }
  };
  std::thread r1(scraper), r2(scraper);
  for (int i = 0; i < 1000; ++i) rewrite(s.path, i % 2 ? a : b);
  done = true;
  r1.join();
  r2.join();
  Families fs;
  REQUIRE_FALSE(s.collector.collect(fs));
  const auto torn = *sample(fs, "diskperf_azure_perfcounters_torn_reads_total");
  WARN("scrapes " << scrapes << " (A " << seen_a << ", B " << seen_b << "), torn reads " << torn);
  CHECK(bad == 0);
  CHECK(seen_a > 0);
  CHECK(seen_b > 0);
  CHECK(devices(fs) == set_a);  // the last write was A
}
