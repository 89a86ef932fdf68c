#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "collectors/queue_collector.h"
#include "daemon/exposition.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {
using Labels = std::map<std::string, std::string>;

std::shared_ptr<DeviceFilter> all() { return std::make_shared<DeviceFilter>(std::string("."), std::nullopt); }

// A copy of a fixture tree with a <procfs>/partitions listing its partitions' sizes (in KiB, as
// the kernel's), so that the queue collector sees them unchanged; a tree without one makes every
// disk with partitions due at each scrape.
HostPaths copy_with_partitions(const std::string& scenario, const TempDir& tmp) {
  HostPaths p = copy_fixture(scenario, tmp);
  std::string text = "major minor  #blocks  name\n\n";
  for (const auto& e : std::filesystem::directory_iterator(tmp.path / "sys/class/block")) {
    std::error_code ec;
    const auto dir = std::filesystem::canonical(e.path(), ec);
    if (ec || !std::filesystem::exists(dir / "partition")) continue;
    std::ifstream in(dir / "size");
    std::uint64_t sectors = 0;
    if (in >> sectors) text += "   8 1 " + std::to_string(sectors >> 1) + " " + e.path().filename().string() + "\n";
  }
  tmp.write("proc/partitions", text);
  p.procfs = (tmp.path / "proc").string();
  return p;
}

Families collect(QueueCollector& c) {
  Families out;
  REQUIRE_FALSE(c.collect(out));
  return out;
}

Families collect(const std::string& scenario) {
  QueueCollector c(sysfs_fixture(scenario), all());
  return collect(c);
}
}  // namespace

TEST_CASE("queue: Azure SCSI data disks, exact values in base units", "[queue]") {
  Families fs = collect("azure");
  CHECK(value(fs, "diskperf_disk_queue_depth", {{"device", "sdc"}}) == 2048);
  CHECK(value(fs, "diskperf_disk_queue_depth", {{"device", "sdd"}}) == 254);
  CHECK(value(fs, "diskperf_disk_queue_depth", {{"device", "sde"}}) == 2048);
  CHECK_FALSE(value(fs, "diskperf_disk_queue_depth", {{"device", "dm-0"}}));  // not SCSI: absent, not 0
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdc"}}) == 2048);
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 254);
  CHECK(value(fs, "diskperf_disk_max_sectors_bytes", {{"device", "sdc"}}) == 1280 * 1024);
  CHECK(value(fs, "diskperf_disk_max_hw_sectors_bytes", {{"device", "sdc"}}) == 2048 * 1024);
  CHECK(value(fs, "diskperf_disk_read_ahead_bytes", {{"device", "sdc"}}) == 4096 * 1024);
  CHECK(value(fs, "diskperf_disk_read_ahead_bytes", {{"device", "sdd"}}) == 128 * 1024);
  CHECK(value(fs, "diskperf_disk_logical_block_size_bytes", {{"device", "sdc"}}) == 512);
  CHECK(value(fs, "diskperf_disk_physical_block_size_bytes", {{"device", "sdc"}}) == 4096);
  CHECK(value(fs, "diskperf_disk_minimum_io_size_bytes", {{"device", "dm-0"}}) == 65536);
  CHECK(value(fs, "diskperf_disk_optimal_io_size_bytes", {{"device", "dm-0"}}) == 196608);
  CHECK(value(fs, "diskperf_disk_optimal_io_size_bytes", {{"device", "sdc"}}) == 0);
  CHECK(value(fs, "diskperf_disk_rotational", {{"device", "sdc"}}) == 1);
  CHECK(value(fs, "diskperf_disk_rotational", {{"device", "sda"}}) == 0);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdc"}}) == 4294967296.0 * 512);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sda1"}}) == 62687199.0 * 512);
  CHECK(value(fs, "diskperf_disk_inflight_requests", {{"device", "sdc"}, {"op", "read"}}) == 3);
  CHECK(value(fs, "diskperf_disk_inflight_requests", {{"device", "sdc"}, {"op", "write"}}) == 1);
  CHECK(value(fs, "diskperf_disk_hw_queues", {{"device", "sdc"}}) == 8);
  CHECK(value(fs, "diskperf_disk_hw_queues", {{"device", "sda"}}) == 4);
  CHECK_FALSE(value(fs, "diskperf_disk_hw_queues", {{"device", "dm-0"}}));  // bio-based: no mq/
}

TEST_CASE("queue: info series with scheduler, cache, model, wwid and Azure LUN", "[queue]") {
  Families fs = collect("azure");
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdc") ==
        Labels{{"device", "sdc"},
               {"scheduler", "mq-deadline"},
               {"write_cache", "write back"},
               {"model", "Virtual Disk"},
               {"vendor", "Msft"},
               {"wwid", "naa.600224800e9b1c3a1d6f2e4b9c7a5d30"},
               {"azure_lun", "0"},
               {"by_id", "scsi-3600224800e9b1c3a1d6f2e4b9c7a5d30,wwn-0x600224800e9b1c3a1d6f2e4b9c7a5d30"}});
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdd")["azure_lun"] == "1");
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdd")["scheduler"] == "none");
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sde")["azure_lun"] == "2");
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sda")["azure_lun"] == "");  // azure/root is not scsi1/lunN
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "dm-0")["by_id"] ==
        "dm-name-vg_data-lv_data,dm-uuid-LVM-Xk2wQp9Rv3Ls8Tn4Ym5Zb6Cd7Ef8Gh9Ij0Kl1Mn2Op3Qr4St5Uv6Wx7Yz8Ab9Cd0");
  CHECK(count(fs, "diskperf_disk_info") == 6);  // sda sdb sdc sdd sde dm-0
  CHECK(value(fs, "diskperf_disk_partition_info", {{"device", "sda1"}, {"disk", "sda"}, {"partition", "1"}}) == 1);
  CHECK(value(fs, "diskperf_disk_partition_start_bytes", {{"device", "sda1"}}) == 227328.0 * 512);
  CHECK(count(fs, "diskperf_disk_partition_info") == 1);
}

TEST_CASE("queue: NVMe namespaces have no queue_depth series; wwid from the namespace", "[queue]") {
  Families fs = collect("nvme-stack");
  CHECK_FALSE(family(fs, "diskperf_disk_queue_depth"));
  CHECK(value(fs, "diskperf_disk_max_hw_sectors_bytes", {{"device", "nvme2n1"}}) == 128 * 1024);
  CHECK(value(fs, "diskperf_disk_hw_queues", {{"device", "nvme0n1"}}) == 8);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "md127"}}) == 15002927104.0 * 512);
  auto l = labels_of(fs, "diskperf_disk_info", "device", "nvme3n1");
  CHECK(l["model"] == "Microsoft NVMe Direct Disk v2");
  CHECK(l["vendor"] == "");
  CHECK(l["wwid"] == "eui.3a7b0c1d2e3f4053");
  CHECK(l["by_id"] == "nvme-Microsoft_NVMe_Direct_Disk_v2_f1e2d3c4b5a69783");
}

TEST_CASE("queue: partitions map to their disk; garbage values and vanished devices are absent", "[queue]") {
  Families fs = collect("partitions");
  CHECK(value(fs, "diskperf_disk_partition_info", {{"device", "sdb1"}, {"disk", "sdb"}, {"partition", "1"}}) == 1);
  CHECK(value(fs, "diskperf_disk_partition_info", {{"device", "sdc2"}, {"disk", "sdc"}, {"partition", "2"}}) == 1);
  CHECK(count(fs, "diskperf_disk_partition_info") == 4);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdc2"}}) == 1048576.0 * 512);
  // sdx: every garbage attribute gives an absent series; its sound ones stay.
  for (const char* name : {"diskperf_disk_queue_depth", "diskperf_disk_nr_requests", "diskperf_disk_rotational",
                           "diskperf_disk_max_sectors_bytes", "diskperf_disk_read_ahead_bytes",
                           "diskperf_disk_size_bytes", "diskperf_disk_inflight_requests"}) {
    INFO(name);
    CHECK(count(fs, name, {{"device", "sdx"}}) == 0);
  }
  CHECK(value(fs, "diskperf_disk_logical_block_size_bytes", {{"device", "sdx"}}) == 512);
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdx")["scheduler"] == "");
  // sdz: listed in /sys/block but its directory is gone: no series at all.
  for (const auto& f : fs)
    for (std::size_t i = 0; i < f.size(); ++i)
      for (const auto& l : f.labels(i)) CHECK(l.value != "sdz");
}

TEST_CASE("queue: devices read on several threads give the same families in the same order", "[queue]") {
  for (const char* scenario : {"azure", "nvme-stack", "partitions"}) {
    INFO(scenario);
    QueueCollector one(std::make_shared<BlockView>(sysfs_fixture(scenario), nullptr), all(), 1);
    const std::string want = to_text(collect(one));
    CHECK(want.find("diskperf_disk_info{") != std::string::npos);
    for (std::size_t threads : {2, 3, 8}) {
      INFO(threads << " threads");
      QueueCollector many(std::make_shared<BlockView>(sysfs_fixture(scenario), nullptr), all(), threads);
      for (int scrape = 0; scrape < 3; ++scrape) CHECK(to_text(collect(many)) == want);
    }
  }
}

TEST_CASE("queue: a device removed between the listing and its reads leaves no series", "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  const std::size_t threads = GENERATE(1, 3);
  INFO(threads << " threads");
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), threads);
  Families before = collect(c);
  CHECK(value(before, "diskperf_disk_queue_depth", {{"device", "sdd"}}) == 254);
  std::string removed;
  c.set_before_device_read([&](const std::string& dev) {
    if (dev != "sdd") return;
    std::filesystem::path link = std::filesystem::path(p.sysfs) / "block/sdd";
    std::filesystem::path target = std::filesystem::canonical(link);
    std::filesystem::remove_all(target);  // the link stays, as in a listing taken just before
    removed = target.string();
  });
  Families after = collect(c);
  REQUIRE_FALSE(removed.empty());
  CHECK(count(after, "diskperf_disk_info", {{"device", "sdd"}}) == 0);
  CHECK(count(after, "diskperf_disk_queue_depth", {{"device", "sdd"}}) == 0);
  CHECK(count(after, "diskperf_disk_inflight_requests", {{"device", "sdd"}}) == 0);
  CHECK(value(after, "diskperf_disk_queue_depth", {{"device", "sdc"}}) == 2048);
  CHECK(value(after, "diskperf_disk_queue_depth", {{"device", "sde"}}) == 2048);
}

namespace {
// The azure fixture's sdd, below the copy's root.
const std::string kSdd =
    "sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/f8b3781b-1e82-4818-a1c3-63d806ec15bb/host3/"
    "target3:0:0/3:0:0:1/";
}  // namespace

TEST_CASE("queue: settings are cached; size and inflight are read at every scrape", "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), 1, std::chrono::hours(1));
  collect(c);
  CHECK(c.settings_reads() == 6);  // sda sdb sdc sdd sde dm-0
  collect(c);
  CHECK(c.settings_reads() == 6);  // nothing changed, nothing due: no settings read
  // A setting written by hand (SCSI queue depth, block size) shows only when due; the live
  // files show at once.
  tmp.write(kSdd + "queue_depth", "32\n");
  tmp.write(kSdd + "block/sdd/queue/physical_block_size", "512\n");
  tmp.write(kSdd + "block/sdd/inflight", "       5        6\n");
  Families fs = collect(c);
  CHECK(c.settings_reads() == 6);
  CHECK(value(fs, "diskperf_disk_queue_depth", {{"device", "sdd"}}) == 254);
  CHECK(value(fs, "diskperf_disk_physical_block_size_bytes", {{"device", "sdd"}}) == 4096);
  CHECK(value(fs, "diskperf_disk_inflight_requests", {{"device", "sdd"}, {"op", "read"}}) == 5);
  CHECK(value(fs, "diskperf_disk_inflight_requests", {{"device", "sdd"}, {"op", "write"}}) == 6);
  // A new size (a resize, new media) reads the device's settings again in the same scrape.
  tmp.write(kSdd + "block/sdd/size", "2097152\n");
  fs = collect(c);
  CHECK(c.settings_reads() == 7);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 2097152.0 * 512);
  CHECK(value(fs, "diskperf_disk_queue_depth", {{"device", "sdd"}}) == 32);
  CHECK(value(fs, "diskperf_disk_physical_block_size_bytes", {{"device", "sdd"}}) == 512);
  CHECK(value(fs, "diskperf_disk_queue_depth", {{"device", "sdc"}}) == 2048);
  // So does a change in a disk's partitions: sda1 goes.
  CHECK(value(fs, "diskperf_disk_partition_info", {{"device", "sda1"}, {"disk", "sda"}, {"partition", "1"}}) == 1);
  std::filesystem::remove(tmp.path / "sys/class/block/sda1");
  std::filesystem::remove_all(std::filesystem::canonical(tmp.path / "sys/block/sda") / "sda1");
  fs = collect(c);
  CHECK(c.settings_reads() == 8);
  CHECK_FALSE(family(fs, "diskperf_disk_partition_info"));
  CHECK_FALSE(value(fs, "diskperf_disk_size_bytes", {{"device", "sda1"}}));
}

// A clock a test moves by hand (QueueCollector::set_clock).
struct FakeClock {
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  void attach(QueueCollector& c) {
    c.set_clock([this] { return now; });
  }
};

TEST_CASE("queue: settings older than the max age are read again; a max age of 0 reads them at every scrape",
          "[queue]") {
  using namespace std::chrono_literals;
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  QueueCollector every(std::make_shared<BlockView>(p, nullptr), all(), 1, std::chrono::nanoseconds::zero());
  QueueCollector aged(std::make_shared<BlockView>(p, nullptr), all(), 1, 10min);
  FakeClock clock;
  clock.attach(every);
  clock.attach(aged);
  collect(every);
  collect(aged);
  CHECK(aged.settings_reads() == 6);
  tmp.write(kSdd + "block/sdd/queue/nr_requests", "64\n");
  tmp.write(kSdd + "block/sdd/queue/scheduler", "[none] mq-deadline\n");
  CHECK(value(collect(every), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 64);
  CHECK(every.settings_reads() == 12);
  // Seen for the first time: read again within a minute (not before 45 s), whatever the max age,
  // and once only (a scrape every second from 44 to 61 s reads each device once).
  clock.now += 44s;
  CHECK(value(collect(aged), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 254);
  CHECK(aged.settings_reads() == 6);
  for (int second = 45; second <= 61; ++second) {
    clock.now += 1s;
    collect(aged);
  }
  Families fs = collect(aged);
  CHECK(aged.settings_reads() == 12);
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 64);
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdd")["scheduler"] == "none");
  // Then within the max age: not before 3/4 of it (7.5 min), all by its end.
  tmp.write(kSdd + "block/sdd/queue/nr_requests", "32\n");
  clock.now += 432s;
  CHECK(value(collect(aged), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 64);
  CHECK(aged.settings_reads() == 12);
  clock.now += 170s;
  CHECK(value(collect(aged), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 32);
  CHECK(aged.settings_reads() == 18);
}

TEST_CASE("queue: a disk or partition caught while being added is read again at the next scrape", "[queue]") {
  using namespace std::chrono_literals;
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), 1, 10min);
  FakeClock clock;
  clock.attach(c);
  // A disk whose queue/ is not registered yet (its /sys/block entry comes first): no settings
  // now, and read again at every scrape until queue/logical_block_size can be read.
  const std::filesystem::path sdd = std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sdd");
  std::filesystem::rename(sdd / "queue", tmp.path / "sdd_queue");
  Families fs = collect(c);
  CHECK_FALSE(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}));
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdd"}}));
  CHECK(c.settings_reads() == 6);
  collect(c);
  CHECK(c.settings_reads() == 7);
  std::filesystem::rename(tmp.path / "sdd_queue", sdd / "queue");
  CHECK(value(collect(c), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 254);
  CHECK(c.settings_reads() == 8);
  collect(c);
  CHECK(c.settings_reads() == 8);
  // A partition whose /sys/class/block link is there before its files: left out, and its disk
  // read again at the next scrape.
  const std::filesystem::path sdc = std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sdc");
  std::filesystem::create_directory(sdc / "sdc1");
  std::filesystem::create_symlink(std::filesystem::relative(sdc / "sdc1", tmp.path / "sys/class/block"),
                                  tmp.path / "sys/class/block/sdc1");
  fs = collect(c);
  CHECK(c.settings_reads() == 9);
  CHECK_FALSE(value(fs, "diskperf_disk_partition_info", {{"device", "sdc1"}, {"disk", "sdc"}, {"partition", "1"}}));
  // Then `partition` alone (start and size still missing): shown, and read again next time.
  tmp.write(std::filesystem::relative(sdc / "sdc1/partition", tmp.path).string(), "1\n");
  fs = collect(c);
  CHECK(c.settings_reads() == 10);
  CHECK(value(fs, "diskperf_disk_partition_info", {{"device", "sdc1"}, {"disk", "sdc"}, {"partition", "1"}}) == 1);
  CHECK_FALSE(value(fs, "diskperf_disk_partition_start_bytes", {{"device", "sdc1"}}));
  for (auto [f, v] : {std::pair{"start", "2048\n"}, {"size", "4096\n"}, {"dev", "8:33\n"}})
    tmp.write(std::filesystem::relative(sdc / "sdc1" / f, tmp.path).string(), v);
  // Not yet in /proc/partitions either: read again at every scrape until it is.
  collect(c);
  CHECK(c.settings_reads() == 11);
  collect(c);
  CHECK(c.settings_reads() == 12);
  std::ofstream(tmp.path / "proc/partitions", std::ios::app) << "   8       33       2048 sdc1\n";
  fs = collect(c);
  CHECK(c.settings_reads() == 12);
  CHECK(value(fs, "diskperf_disk_partition_info", {{"device", "sdc1"}, {"disk", "sdc"}, {"partition", "1"}}) == 1);
  CHECK(value(fs, "diskperf_disk_partition_start_bytes", {{"device", "sdc1"}}) == 2048.0 * 512);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdc1"}}) == 4096.0 * 512);
  collect(c);
  CHECK(c.settings_reads() == 12);
  // The reads at the next scrape did not end sdd's first minute: what a udev rule sets on the
  // new disk still shows within a minute of its first read (all six devices are due then).
  tmp.write(std::filesystem::relative(sdd / "queue/scheduler", tmp.path).string(), "[bfq] none\n");
  clock.now += 61s;
  fs = collect(c);
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdd")["scheduler"] == "bfq");
  CHECK(c.settings_reads() == 18);
  // Without <procfs>/partitions the disks with partitions (sda, sdc) are read at every scrape.
  std::filesystem::remove(tmp.path / "proc/partitions");
  collect(c);
  CHECK(c.settings_reads() == 20);
}

TEST_CASE("queue: a partition resized in place (procfs partitions) or added again is read again at once",
          "[queue]") {
  using namespace std::chrono_literals;
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  // sda1: 62687199 sectors, 31343599 KiB in /proc/partitions (sectors >> 1).
  tmp.write("proc/partitions", "major minor  #blocks  name\n\n   8        0   31457280 sda\n   8        1   31343599 sda1\n");
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), 1, 10min);
  FakeClock clock;
  clock.attach(c);
  CHECK(value(collect(c), "diskperf_disk_size_bytes", {{"device", "sda1"}}) == 62687199.0 * 512);
  CHECK(c.settings_reads() == 6);
  const std::filesystem::path sda1 = std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sda") / "sda1";
  const std::string rel = std::filesystem::relative(sda1, tmp.path).string();
  // growpart: the partition's size changes, its disk's size and the listing do not.
  tmp.write(rel + "/size", "62914560\n");
  CHECK(value(collect(c), "diskperf_disk_size_bytes", {{"device", "sda1"}}) == 62687199.0 * 512);  // procfs not yet
  tmp.write("proc/partitions", "major minor  #blocks  name\n\n   8        0   31457280 sda\n   8        1   31457280 sda1\n");
  CHECK(value(collect(c), "diskperf_disk_size_bytes", {{"device", "sda1"}}) == 62914560.0 * 512);
  CHECK(c.settings_reads() == 7);
  collect(c);
  CHECK(c.settings_reads() == 7);
  // Deleted and added again at another start with the same size: a new /sys/class/block link.
  tmp.write(rel + "/start", "4096\n");
  const std::filesystem::path link = tmp.path / "sys/class/block/sda1";
  std::filesystem::create_symlink(std::filesystem::read_symlink(link), link.string() + ".new");
  std::filesystem::rename(link.string() + ".new", link);
  CHECK(value(collect(c), "diskperf_disk_partition_start_bytes", {{"device", "sda1"}}) == 4096.0 * 512);
  CHECK(c.settings_reads() == 8);
}

TEST_CASE("queue: a disk listed in procfs partitions has its size read only when that listing changes",
          "[queue]") {
  using namespace std::chrono_literals;
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  // sdd: 4294967296 sectors, 2147483648 KiB; sdc is not listed (its size is read at every scrape).
  const std::string header = "major minor  #blocks  name\n\n   8 1 31343599 sda1\n";
  tmp.write("proc/partitions", header + "   8 48 2147483648 sdd\n");
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), 1, 10min);
  FakeClock clock;
  clock.attach(c);
  Families fs = collect(c);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 4294967296.0 * 512);
  CHECK(c.settings_reads() == 6);
  // sdd's `size` is not read while procfs lists the same size: a new value in the file alone
  // (a fixture can do that, the kernel cannot) is not seen; the unlisted sdc's is, at once.
  tmp.write(kSdd + "block/sdd/size", "4294967298\n");
  const std::string sdc =
      std::filesystem::relative(std::filesystem::canonical(tmp.path / "sys/block/sdc"), tmp.path).string();
  tmp.write(sdc + "/size", "8388608\n");
  fs = collect(c);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 4294967296.0 * 512);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdc"}}) == 8388608.0 * 512);
  CHECK(c.settings_reads() == 7);  // sdc: its size changed
  // The kernel's resize: procfs lists the new size (in KiB): sdd is read again in that scrape.
  tmp.write("proc/partitions", header + "   8 48 2147483649 sdd\n");
  fs = collect(c);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 4294967298.0 * 512);
  CHECK(c.settings_reads() == 8);
  collect(c);
  CHECK(c.settings_reads() == 8);
  // A resize within the same KiB (one 512-byte sector) shows when the settings are due.
  tmp.write(kSdd + "block/sdd/size", "4294967299\n");
  clock.now += 61s;  // past the first-minute read
  CHECK(value(collect(c), "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 4294967299.0 * 512);
  // Unlisted again (the kernel drops a disk without capacity): its size is read at every scrape.
  tmp.write("proc/partitions", header);
  tmp.write(kSdd + "block/sdd/size", "0\n");
  CHECK(value(collect(c), "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 0);
  tmp.write(kSdd + "block/sdd/size", "2\n");
  CHECK(value(collect(c), "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 1024);
}

TEST_CASE("queue: whether procfs partitions could be read is exported; sizes are right either way", "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), 1, std::chrono::hours(1));
  Families fs = collect(c);
  CHECK(value(fs, "diskperf_queue_procfs_partitions_readable", {}) == 1);
  std::filesystem::remove(tmp.path / "proc/partitions");
  tmp.write(kSdd + "block/sdd/size", "2097152\n");
  fs = collect(c);
  CHECK(value(fs, "diskperf_queue_procfs_partitions_readable", {}) == 0);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 2097152.0 * 512);
  tmp.write("proc/partitions", "garbage\n");  // readable, lists nothing: sizes from the size files
  tmp.write(kSdd + "block/sdd/size", "2097154\n");
  fs = collect(c);
  CHECK(value(fs, "diskperf_queue_procfs_partitions_readable", {}) == 1);
  CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "sdd"}}) == 2097154.0 * 512);
}

TEST_CASE("queue: the diskstats device filter applies; partitions follow their disk", "[queue]") {
  QueueCollector c(sysfs_fixture("azure"), std::make_shared<DeviceFilter>(std::string("^sd[cd]$"), std::nullopt));
  Families fs = collect(c);
  CHECK(count(fs, "diskperf_disk_info") == 2);
  CHECK_FALSE(family(fs, "diskperf_disk_partition_info"));
  QueueCollector d(sysfs_fixture("azure"), std::make_shared<DeviceFilter>(std::nullopt, std::nullopt));
  Families def = collect(d);
  CHECK(count(def, "diskperf_disk_info") == 6);
  CHECK(value(def, "diskperf_disk_partition_info", {{"device", "sda1"}, {"disk", "sda"}, {"partition", "1"}}));
}

TEST_CASE("queue: an unreadable /sys/block fails the collector; an empty one does not", "[queue]") {
  HostPaths p;
  p.sysfs = "/nonexistent/sys";
  QueueCollector c(p, all());
  Families out;
  auto err = c.collect(out);
  REQUIRE(err);
  CHECK(*err == "list /nonexistent/sys/block: cannot read directory");
  CHECK(out.empty());
  TempDir tmp;
  std::filesystem::create_directories(tmp.path / "sys/block");
  p.sysfs = (tmp.path / "sys").string();
  QueueCollector e(p, all());
  CHECK_FALSE(e.collect(out));
  CHECK(out.empty());
}

// Breaker finding: a device directory removed and copied back under the same
// /sys/block link (whose inode number stays; tmpfs and ext4 trees reuse inode
// numbers at once) stayed missing for good: the removed directory stayed held.
TEST_CASE("queue: a held directory found removed is opened anew at the next scrape", "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  QueueCollector c(p, all());
  CHECK(value(collect(c), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 254);
  const std::filesystem::path sdd = std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sdd");
  const std::filesystem::path saved = tmp.path / "saved_sdd";
  std::filesystem::copy(sdd, saved, std::filesystem::copy_options::recursive |
                                        std::filesystem::copy_options::copy_symlinks);
  std::filesystem::remove_all(sdd);
  std::filesystem::copy(saved, sdd, std::filesystem::copy_options::recursive |
                                        std::filesystem::copy_options::copy_symlinks);
  std::ofstream(sdd / "queue/nr_requests") << "128\n";
  // The scrape that finds the held directory removed leaves the device out (it cannot tell
  // the copy from a new device yet); the next one reads the directory now at the path.
  Families first = collect(c);
  CHECK(count(first, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 0);
  Families second = collect(c);
  CHECK(value(second, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 128);
  CHECK(value(second, "diskperf_disk_nr_requests", {{"device", "sdc"}}) == 2048);
  CHECK(value(collect(c), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 128);
}

TEST_CASE("queue: held attribute files follow a replaced device directory and files that appear", "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  // sde's SCSI queue_depth is absent at first.
  const std::filesystem::path sde_qd =
      std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sde/device") / "queue_depth";
  std::filesystem::remove(sde_qd);
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), 1, std::chrono::nanoseconds::zero());
  Families fs = collect(c);
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 254);
  CHECK_FALSE(value(fs, "diskperf_disk_queue_depth", {{"device", "sde"}}));
  // The device goes away and comes back with new settings: a new directory with the same name,
  // while the old one still exists elsewhere (descriptors held on it must not be used), and, as
  // the kernel does for a new device, a new /sys/block link (a new inode).
  const std::filesystem::path link = std::filesystem::path(p.sysfs) / "block/sdd";
  const std::filesystem::path sdd = std::filesystem::canonical(link);
  const std::filesystem::path old = tmp.path / "old_sdd";
  std::filesystem::rename(sdd, old);
  std::filesystem::copy(old, sdd, std::filesystem::copy_options::recursive |
                                      std::filesystem::copy_options::copy_symlinks);
  // (made before the old one goes, so that the file system cannot hand out the old inode number)
  std::filesystem::create_symlink(std::filesystem::read_symlink(link), link.string() + ".new");
  std::filesystem::rename(link.string() + ".new", link);
  tmp.write(std::filesystem::relative(sdd / "queue/nr_requests", tmp.path).string(), "64\n");
  // A setting that was absent appears (settings read at every scrape with a max age of 0).
  tmp.write(std::filesystem::relative(sde_qd, tmp.path).string(), "16\n");
  fs = collect(c);
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 64);
  CHECK(value(fs, "diskperf_disk_queue_depth", {{"device", "sde"}}) == 16);
  // In-place rewrites are seen through the held descriptors.
  tmp.write(std::filesystem::relative(sdd / "inflight", tmp.path).string(), "       7        2\n");
  fs = collect(c);
  CHECK(value(fs, "diskperf_disk_inflight_requests", {{"device", "sdd"}, {"op", "read"}}) == 7);
  CHECK(value(fs, "diskperf_disk_inflight_requests", {{"device", "sdd"}, {"op", "write"}}) == 2);
}

TEST_CASE("queue: a virtual device's device/ attributes are never read; its other series are unchanged",
          "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), all(), 1, std::chrono::nanoseconds::zero());
  const Labels dm0_info{{"device", "dm-0"},
                        {"scheduler", "none"},
                        {"write_cache", "write through"},
                        {"model", ""},
                        {"vendor", ""},
                        {"wwid", ""},
                        {"azure_lun", ""},
                        {"by_id",
                         "dm-name-vg_data-lv_data,"
                         "dm-uuid-LVM-Xk2wQp9Rv3Ls8Tn4Ym5Zb6Cd7Ef8Gh9Ij0Kl1Mn2Op3Qr4St5Uv6Wx7Yz8Ab9Cd0"}};
  auto check_dm0 = [&](const Families& fs) {
    CHECK_FALSE(value(fs, "diskperf_disk_queue_depth", {{"device", "dm-0"}}));
    CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "dm-0"}}) == 256);
    CHECK(value(fs, "diskperf_disk_minimum_io_size_bytes", {{"device", "dm-0"}}) == 65536);
    CHECK(value(fs, "diskperf_disk_optimal_io_size_bytes", {{"device", "dm-0"}}) == 196608);
    CHECK(value(fs, "diskperf_disk_size_bytes", {{"device", "dm-0"}}) == 12884877312.0 * 512);
    CHECK(labels_of(fs, "diskperf_disk_info", "device", "dm-0") == dm0_info);
  };
  check_dm0(collect(c));
  // A kernel never makes device/ under /sys/devices/virtual (no parent device). Files put there
  // in the fixture are ignored: they are not opened, neither at the first scrape of a new
  // collector nor when the settings are read again (here at every scrape: max age 0), and the
  // output is the same.
  for (const char* f : {"queue_depth", "model", "vendor", "wwid"})
    tmp.write(std::string("sys/devices/virtual/block/dm-0/device/") + f, "16\n");
  check_dm0(collect(c));
  QueueCollector fresh(p, all());
  check_dm0(collect(fresh));
  // The same files on a real disk are read (sdc's SCSI device: queue_depth 2048 -> 16).
  const auto sdc_dev = std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sdc/device");
  tmp.write(std::filesystem::relative(sdc_dev / "queue_depth", tmp.path).string(), "16\n");
  CHECK(value(collect(c), "diskperf_disk_queue_depth", {{"device", "sdc"}}) == 16);
}

TEST_CASE("queue: a held device whose `dev` is absent is skipped until `dev` can be read", "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  const auto sdd_dev = std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sdd") / "dev";
  std::filesystem::remove(sdd_dev);
  QueueCollector c(p, all());
  CHECK(count(collect(c), "diskperf_disk_info", {{"device", "sdd"}}) == 0);  // gone
  tmp.write(std::filesystem::relative(sdd_dev, tmp.path).string(), "8:48\n");
  CHECK(value(collect(c), "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 254);
}

TEST_CASE("queue: /dev/disk links are read again when their directory changes", "[queue][slow]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  // Directories changed in the last 2 s are never cached; wait so this one is.
  std::this_thread::sleep_for(std::chrono::milliseconds(3100));
  QueueCollector c(p, all());
  collect(c);
  Families fs = collect(c);  // from the cache
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdc").at("azure_lun") == "0");
  const std::string by_id = labels_of(fs, "diskperf_disk_info", "device", "sdc").at("by_id");
  std::filesystem::create_symlink("../../sdc", tmp.path / "dev/disk/by-id/scsi-new-link");
  std::filesystem::remove(tmp.path / "dev/disk/azure/scsi1/lun0");
  fs = collect(c);
  CHECK(by_id == "scsi-3600224800e9b1c3a1d6f2e4b9c7a5d30,wwn-0x600224800e9b1c3a1d6f2e4b9c7a5d30");
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdc").at("by_id") ==
        "scsi-3600224800e9b1c3a1d6f2e4b9c7a5d30,scsi-new-link,wwn-0x600224800e9b1c3a1d6f2e4b9c7a5d30");
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdc").at("azure_lun") == "");
}

// Breaker finding: a /sys/block entry that is a link loop (a captured tree) was exported as an
// info series with every label empty.
TEST_CASE("queue: a /sys/block entry that cannot be read at all gives no series", "[queue]") {
  TempDir tmp;
  HostPaths p = copy_with_partitions("azure", tmp);
  std::filesystem::create_symlink("loopy2", tmp.path / "sys/block/loopy");
  std::filesystem::create_symlink("loopy", tmp.path / "sys/block/loopy2");
  QueueCollector c(p, all());
  Families fs = collect(c);
  CHECK(count(fs, "diskperf_disk_info") == 6);
  for (const auto& f : fs)
    for (std::size_t i = 0; i < f.size(); ++i)
      for (const auto& l : f.labels(i)) CHECK(l.value.find("loopy") == std::string::npos);
}
