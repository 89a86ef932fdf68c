// The shared /sys/block view: held device directories, partitions from
// /sys/class/block, which devices may stack, the descriptor budget, and
// readings shared within one scrape (ScrapeEpoch, PerScrape, the Gatherer
// advancing the epoch), and the device-mapper volumes kept between scrapes
// (DmVolumeCache).

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>

#include "collectors/block_view.h"
#include "collectors/dm_table_source.h"
#include "collectors/metric_families.h"
#include "collectors/process_collector.h"
#include "collectors/queue_collector.h"
#include "collectors/stable_names.h"
#include "collectors/topology_collector.h"
#include "collectors/volume_topology.h"
#include "daemon/exposition.h"
#include "daemon/gatherer.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names(const BlockDevices::Listing& l) {
  std::vector<std::string> out;
  for (const auto& d : l.devices) out.push_back(d.name);
  return out;
}

std::vector<std::pair<std::string, std::string>> partitions(const BlockDevices::Listing& l) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : l.partitions) out.emplace_back(p.name, p.disk);
  return out;
}

// A collector that asks a shared PerScrape value for its reading.
class SharingCollector final : public Collector {
 public:
  SharingCollector(std::string name, std::shared_ptr<PerScrape<int>> shared, int* reads)
      : name_(std::move(name)), shared_(std::move(shared)), reads_(reads) {}
  std::string_view name() const override { return name_; }
  std::optional<std::string> collect(Families&) override {
    shared_->get([&] { return ++*reads_; });
    return std::nullopt;
  }

 private:
  std::string name_;
  std::shared_ptr<PerScrape<int>> shared_;
  int* reads_;
};

}  // namespace

TEST_CASE("block devices: sorted listing, partitions from class/block, which devices may stack", "[block]") {
  BlockDevices b(sysfs_fixture("partitions").sysfs, std::make_shared<FdBudget>(1000));
  BlockDevices::Listing l = b.list();
  REQUIRE_FALSE(l.error);
  CHECK(names(l) == std::vector<std::string>{"dm-0", "md1", "sdb", "sdc", "sdx", "sdz"});
  CHECK(partitions(l) == std::vector<std::pair<std::string, std::string>>{
                             {"sdb1", "sdb"}, {"sdb2", "sdb"}, {"sdc1", "sdc"}, {"sdc2", "sdc"}});
  REQUIRE(l.find("sdc"));
  CHECK_FALSE(l.find("sdc")->may_stack);  // a SCSI disk (its link goes into /sys/devices/pci...)
  CHECK(l.find("dm-0")->may_stack);       // /sys/devices/virtual/block/dm-0
  CHECK(l.find("md1")->may_stack);
  CHECK_FALSE(l.find("sdc")->is_virtual);
  CHECK(l.find("dm-0")->is_virtual);
  CHECK(l.find("md1")->is_virtual);
  CHECK(l.find_partition("sdc2")->disk == "sdc");
  CHECK_FALSE(l.find_partition("sdc"));
  CHECK_FALSE(l.find("sdq"));
  // sdz's directory is gone (dangling link): listed, its directory not opened, not held.
  CHECK_FALSE(l.find("sdz")->dir->ok());
  CHECK_FALSE(l.find("sdz")->held);
  CHECK(l.find("sdc")->held);
  CHECK(b.held() == 5);
}

TEST_CASE("block devices: a plain directory in /sys/block may stack but is not taken for virtual", "[block]") {
  TempDir tmp;
  tmp.write("sys/block/sdq/dev", "65:0\n");
  BlockDevices b(tmp.str() + "/sys", std::make_shared<FdBudget>(1000));
  BlockDevices::Listing l = b.list();
  REQUIRE(l.find("sdq"));
  CHECK(l.find("sdq")->may_stack);
  CHECK_FALSE(l.find("sdq")->is_virtual);  // unknown: read as a disk (device/ attributes looked for)
}

TEST_CASE("block devices: of the virtual devices only dm, md and bcache may stack", "[block]") {
  TempDir tmp;
  for (const char* name : {"loop3", "zram0", "nbd1", "dm-7", "md127", "md_data", "bcache0"}) {
    tmp.write(std::string("sys/devices/virtual/block/") + name + "/dev", "7:3\n");
    std::filesystem::create_directories(tmp.path / "sys/block");
    std::filesystem::create_directory_symlink(std::string("../devices/virtual/block/") + name,
                                              tmp.path / "sys/block" / name);
  }
  BlockDevices b(tmp.str() + "/sys", std::make_shared<FdBudget>(1000));
  BlockDevices::Listing l = b.list();
  for (const char* name : {"loop3", "zram0", "nbd1"}) {
    INFO(name);
    REQUIRE(l.find(name));
    CHECK(l.find(name)->is_virtual);
    CHECK_FALSE(l.find(name)->may_stack);
  }
  for (const char* name : {"dm-7", "md127", "md_data", "bcache0"}) {
    INFO(name);
    REQUIRE(l.find(name));
    CHECK(l.find(name)->may_stack);
  }
}

TEST_CASE("block devices: directories are held across listings and replaced with a new entry", "[block]") {
  TempDir tmp;
  HostPaths p = copy_fixture("azure", tmp);
  auto budget = std::make_shared<FdBudget>(1000);
  BlockDevices b(p.sysfs, budget);
  BlockDevices::Listing first = b.list();
  CHECK(budget->used() == 6);
  BlockDevices::Listing again = b.list();
  CHECK(again.find("sdd")->dir == first.find("sdd")->dir);  // the same open directory
  // A new /sys/block entry for sdd (a new device under the same name): a new directory.
  const fs::path link = fs::path(p.sysfs) / "block/sdd";
  fs::create_symlink(fs::read_symlink(link), link.string() + ".new");
  fs::rename(link.string() + ".new", link);
  BlockDevices::Listing replaced = b.list();
  CHECK(replaced.find("sdd")->dir != first.find("sdd")->dir);
  CHECK(replaced.find("sdd")->dir->ok());
  // Gone: no longer listed, its descriptor given back once nobody uses it.
  fs::remove(fs::path(p.sysfs) / "block/sde");
  fs::remove(fs::path(p.sysfs) / "class/block/sde");
  first = again = replaced = BlockDevices::Listing{};
  BlockDevices::Listing after = b.list();
  CHECK(names(after) == std::vector<std::string>{"dm-0", "sda", "sdb", "sdc", "sdd"});
  CHECK(b.held() == 5);
  CHECK(budget->used() == 5);
  // No class/block: partitions from the disks' subdirectories.
  fs::remove_all(fs::path(p.sysfs) / "class");
  after = b.list();
  CHECK(partitions(after) == std::vector<std::pair<std::string, std::string>>{{"sda1", "sda"}});
  CHECK(after.devices.size() == 5);
  // No /sys/block: the error every collector reports.
  fs::remove_all(fs::path(p.sysfs) / "block");
  CHECK(b.list().error == "list " + p.sysfs + "/block: cannot read directory");
}

TEST_CASE("block devices: `dev` of a held directory is read once, of one not held at every listing", "[block]") {
  TempDir tmp;
  HostPaths p = copy_fixture("azure", tmp);
  const fs::path sdc_dev = fs::canonical(fs::path(p.sysfs) / "block/sdc") / "dev";
  const fs::path dm0_dev = fs::canonical(fs::path(p.sysfs) / "block/dm-0") / "dev";
  auto rewrite = [](const fs::path& f, const char* text) { std::ofstream(f, std::ios::trunc) << text; };
  fs::remove(dm0_dev);  // not readable when dm-0's directory is opened
  BlockDevices held(p.sysfs, std::make_shared<FdBudget>(1000));
  BlockDevices not_held(p.sysfs, std::make_shared<FdBudget>(0));
  BlockDevices::Listing h = held.list(), n = not_held.list();
  REQUIRE(h.find("sdc")->held);
  REQUIRE_FALSE(n.find("sdc")->held);
  CHECK(h.find("sdc")->held_dev);
  CHECK(h.find("sdc")->dev().data == "8:32\n");
  CHECK_FALSE(n.find("sdc")->held_dev);
  CHECK(n.find("sdc")->dev().data == "8:32\n");
  CHECK_FALSE(h.find("dm-0")->held_dev);
  CHECK(h.find("dm-0")->dev().status == ReadStatus::absent);  // gone, as the queue collector sees it
  CHECK(n.find("dm-0")->dev().status == ReadStatus::absent);
  // The files change (a fixture can do what the kernel does not for the same directory).
  rewrite(sdc_dev, "8:99\n");
  rewrite(dm0_dev, "254:0\n");
  h = held.list();
  n = not_held.list();
  CHECK(h.find("sdc")->dev().data == "8:32\n");  // read once: the held directory is the same device
  CHECK(n.find("sdc")->dev().data == "8:99\n");  // read again
  CHECK(h.find("dm-0")->held_dev);              // read once it could be read
  CHECK(h.find("dm-0")->dev().data == "254:0\n");
  rewrite(dm0_dev, "254:7\n");
  CHECK(held.list().find("dm-0")->dev().data == "254:0\n");
  // The topology's volume number comes from the same reading.
  CHECK(read_volumes(held.list(), p.devfs).volumes.at("dm-0").devno == std::pair<unsigned, unsigned>(254, 0));
  CHECK(read_volumes(not_held.list(), p.devfs).volumes.at("dm-0").devno == std::pair<unsigned, unsigned>(254, 7));
  // dm/name and dm/uuid of a held directory are read through kept descriptors, and a rename
  // (the text rewritten in place) is seen at the next reading.
  auto budget = std::make_shared<FdBudget>(1000);
  const long before = budget->used();
  BlockDevices kept(p.sysfs, budget);
  const std::string name0 = read_volumes(kept.list(), p.devfs, budget).volumes.at("dm-0").name;
  CHECK_FALSE(name0.empty());
  const long with_kept = budget->used();
  rewrite(fs::canonical(fs::path(p.sysfs) / "block/dm-0") / "dm/name", "renamed\n");
  CHECK(read_volumes(kept.list(), p.devfs, budget).volumes.at("dm-0").name == "renamed");
  CHECK(budget->used() == with_kept);  // nothing more opened and kept
  CHECK(with_kept > before);
  // Not held and `dev` removed: absent at once.
  fs::remove(sdc_dev);
  CHECK(not_held.list().find("sdc")->dev().status == ReadStatus::absent);
}

TEST_CASE("block devices: past the descriptor budget devices are still read, just not held", "[block]") {
  const HostPaths p = sysfs_fixture("azure");
  auto none = std::make_shared<FdBudget>(0);
  BlockDevices b(p.sysfs, none);
  BlockDevices::Listing l = b.list();
  CHECK(l.devices.size() == 6);
  CHECK(l.find("sdc")->dir->ok());
  CHECK(l.find("sdc")->dir->fd() == -1);  // path-based: no descriptor
  CHECK_FALSE(l.find("sdc")->held);
  CHECK(b.held() == 0);
  CHECK(none->used() == 0);
  // The queue, topology and tier output is the same with and without held descriptors.
  long used = -1;
  auto text = [&](std::shared_ptr<FdBudget> budget) {
    auto view = std::make_shared<BlockView>(p, nullptr, budget, std::make_shared<DirectoryDmTableSource>(dm_tables_dir("azure")));
    auto filter = std::make_shared<const DeviceFilter>(std::string(".*"), std::nullopt);
    QueueCollector q(view, filter);
    TopologyCollector t(view, filter);
    Families out;
    CHECK_FALSE(q.collect(out));
    CHECK_FALSE(t.collect(out));
    CHECK_FALSE(q.collect(out));  // a second scrape: from held files when there are
    used = budget->used();
    return to_text(out);
  };
  auto plenty = std::make_shared<FdBudget>(100000);
  const std::string held = text(plenty);
  // Per device its directory, `size` and `inflight` (the queue collector's live files); dm-0's
  // dm/name and dm/uuid are not held (with the dm volume cache on, they are read seldom, or here,
  // without <procfs>/partitions, opened at every scrape rather than held for good).
  CHECK(used == 6 * 3);
  CHECK(plenty->used() == 0);  // all given back with the view
  CHECK(text(none) == held);
  CHECK(used == 0);
}

TEST_CASE("per-scrape readings: one read per epoch, none shared without an epoch", "[block]") {
  auto epoch = std::make_shared<ScrapeEpoch>();
  PerScrape<int> shared(epoch);
  int reads = 0;
  auto read = [&] { return ++reads; };
  CHECK(*shared.get(read) == 1);
  CHECK(*shared.get(read) == 1);
  epoch->advance();
  CHECK(*shared.get(read) == 2);
  PerScrape<int> alone(nullptr);
  CHECK(*alone.get(read) == 3);
  CHECK(*alone.get(read) == 4);
}

TEST_CASE("the gatherer starts a new epoch per scrape: collectors of one scrape share a reading", "[block]") {
  auto epoch = std::make_shared<ScrapeEpoch>();
  auto shared = std::make_shared<PerScrape<int>>(epoch);
  int reads = 0;
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<SharingCollector>("first", shared, &reads));
  cs.push_back(std::make_unique<SharingCollector>("second", shared, &reads));
  Gatherer g(std::move(cs), epoch);
  g.Collect();
  CHECK(reads == 1);
  g.Collect();
  CHECK(reads == 2);
}

namespace {

// Writes <tmp>/proc/partitions listing dm-0 at `kib` KiB (none: not listed).
void write_partitions(const TempDir& tmp, std::optional<std::uint64_t> kib) {
  std::string text = "major minor  #blocks  name\n\n   8       32 1073741824 sdc\n";
  if (kib) text += " 254        0 " + std::to_string(*kib) + " dm-0\n";
  tmp.write("proc/partitions", text);
}

// The azure fixture in a temp dir, with a <procfs>/partitions (write_partitions).
HostPaths dm_fixture(const TempDir& tmp, std::optional<std::uint64_t> kib) {
  HostPaths p = copy_fixture("azure", tmp);
  p.procfs = (tmp.path / "proc").string();
  write_partitions(tmp, kib);
  return p;
}

std::string dm0_table(const VolumeScan& scan) {
  const VolumeInfo& v = scan.volumes.at("dm-0");
  REQUIRE(v.dm_table);
  return v.dm_table->text;
}

}  // namespace

// What the cache may miss until the max age (a rename, a table of the same length on the same
// devices) is what the test rewrites in place; each trigger then shows the table written last.
TEST_CASE("dm volumes are kept between scrapes until their members, entry or size, or the listing change, or they are due",
          "[block][topology]") {
  using namespace std::chrono_literals;
  TempDir tmp;
  const std::uint64_t kib = 12884877312 / 2;
  HostPaths p = dm_fixture(tmp, kib);
  const fs::path table = tmp.path / "dmtables/dm-0";
  const std::string striped = "0 12884877312 striped 3 128 8:32 2048 8:48 2048 8:64 2048\n";
  auto tables = std::make_shared<CountingDmTables>((tmp.path / "dmtables").string());
  auto epoch = std::make_shared<ScrapeEpoch>();
  auto budget = std::make_shared<FdBudget>(1000);
  auto view = std::make_shared<BlockView>(p, epoch, budget, tables, 10min);
  auto now = std::chrono::steady_clock::time_point{} + 1h;
  view->set_clock([&] { return now; });
  auto scan = [&] {
    epoch->advance();
    return view->volumes();
  };
  auto filter = std::make_shared<const DeviceFilter>(std::string(".*"), std::nullopt);
  TopologyCollector topology(view, filter);
  auto topology_text = [&] {
    Families out;
    REQUIRE_FALSE(topology.collect(out));
    return to_text(out);
  };

  CHECK(dm0_table(*scan()) == striped);
  CHECK(tables->reads == 1);
  CHECK(view->dm_volumes_kept() == 1);
  CHECK(budget->used() == 6);  // the six /sys/block directories; dm-0's dm/ files, read seldom, not held
  const std::string first = topology_text();  // the same scrape: nothing read again
  CHECK(tables->reads == 1);

  // Rewritten in place: kept. The next scrape shows what the first did, from nothing read.
  tmp.write("dmtables/dm-0", "0 12884877312 linear 8:32 2048\n");
  tmp.write("sys/devices/virtual/block/dm-0/dm/name", "renamed\n");
  epoch->advance();
  CHECK(topology_text() == first);
  CHECK(dm0_table(*view->volumes()) == striped);
  CHECK(tables->reads == 1);

  SECTION("its size in /proc/partitions changed (lvextend)") {
    write_partitions(tmp, kib + 1024);
    auto s = scan();
    CHECK(dm0_table(*s) == "0 12884877312 linear 8:32 2048\n");
    CHECK(s->volumes.at("dm-0").name == "renamed");
    CHECK(tables->reads == 2);
    scan();
    CHECK(tables->reads == 2);  // kept again under the new size
  }
  SECTION("its members changed (slaves/), also when what came with the change is gone by then") {
    // pvmove of a small LV between two scrapes: its dm device came and went, the LV is on
    // another disk now (same length, same listing).
    fs::remove(tmp.path / "sys/devices/virtual/block/dm-0/slaves/sde");
    CHECK(scan()->volumes.at("dm-0").members.size() == 2);
    CHECK(tables->reads == 2);
    scan();
    CHECK(tables->reads == 2);  // kept again with its new members
  }
  SECTION("a block device added or removed (a new LV, pvmove's dm device)") {
    fs::create_directory(tmp.path / "sys/block/dm-9");
    CHECK(dm0_table(*scan()) == "0 12884877312 linear 8:32 2048\n");
    CHECK(tables->reads == 2);
    tmp.write("dmtables/dm-0", striped);
    fs::remove(tmp.path / "sys/block/dm-9");
    CHECK(dm0_table(*scan()) == striped);
    CHECK(tables->reads == 3);
  }
  SECTION("its /sys/block entry is a new one") {
    // Made beside the old one and renamed over it: a new inode, as sysfs gives a new device (a
    // file system that reuses a freed inode at once would give the old number to a link made
    // after the removal).
    const fs::path link = tmp.path / "sys/block/dm-0";
    fs::create_directory_symlink(fs::read_symlink(link), tmp.path / "sys/block/.dm-0.new");
    fs::rename(tmp.path / "sys/block/.dm-0.new", link);
    CHECK(dm0_table(*scan()) == "0 12884877312 linear 8:32 2048\n");
    CHECK(tables->reads == 2);
  }
  SECTION("due: between 3/4 of the max age and all of it") {
    now += 7min;  // before 3/4 of 10 min
    CHECK(dm0_table(*scan()) == striped);
    CHECK(tables->reads == 1);
    now += 3min;  // 10 min after the read
    CHECK(dm0_table(*scan()) == "0 12884877312 linear 8:32 2048\n");
    CHECK(tables->reads == 2);
  }
  SECTION("gone from the listing: forgotten") {
    fs::remove(tmp.path / "sys/block/dm-0");
    CHECK(scan()->volumes.count("dm-0") == 0);
    CHECK(view->dm_volumes_kept() == 0);
  }
  SECTION("a table that does not parse (half written) is not kept") {
    tmp.write("dmtables/dm-0", "0 12884877312 striped 3 128 8:32");  // cut short: 1 device of 3
    write_partitions(tmp, kib + 1);  // read again now
    CHECK(scan()->volumes.at("dm-0").dm_table->text == "0 12884877312 striped 3 128 8:32");
    CHECK(view->dm_volumes_kept() == 0);
    tmp.write("dmtables/dm-0", striped);
    CHECK(dm0_table(*scan()) == striped);
    CHECK(view->dm_volumes_kept() == 1);
  }
  SECTION("a table that could not be read is not kept") {
    fs::remove(table);
    write_partitions(tmp, kib + 1);  // read again now
    CHECK(scan()->volumes.at("dm-0").dm_table->status == DmTableText::Status::unavailable);
    CHECK(view->dm_volumes_kept() == 0);
    tmp.write("dmtables/dm-0", striped);
    CHECK(dm0_table(*scan()) == striped);  // read at the next scrape
    CHECK(tables->reads == 3);
  }
}

TEST_CASE("dm volumes are read at every scrape when not in /proc/partitions, or with a max age of 0",
          "[block][topology]") {
  using namespace std::chrono_literals;
  TempDir tmp;
  const std::uint64_t kib = 12884877312 / 2;
  const bool listed = GENERATE(false, true);
  HostPaths p = dm_fixture(tmp, listed ? std::optional<std::uint64_t>(kib) : std::nullopt);
  if (!listed) p.procfs = GENERATE(as<std::string>{}, "/nonexistent", "");  // listed elsewhere, or unreadable
  INFO("listed " << listed << ", procfs " << p.procfs);
  auto tables = std::make_shared<CountingDmTables>((tmp.path / "dmtables").string());
  auto epoch = std::make_shared<ScrapeEpoch>();
  auto budget = std::make_shared<FdBudget>(1000);
  BlockView view(p, epoch, budget, tables, listed ? std::chrono::nanoseconds::zero() : std::chrono::nanoseconds(10min));
  for (int i = 1; i <= 3; ++i) {
    epoch->advance();
    tmp.write("dmtables/dm-0", "0 12884877312 linear 8:32 " + std::to_string(i) + "\n");
    CHECK(dm0_table(*view.volumes()) == "0 12884877312 linear 8:32 " + std::to_string(i) + "\n");
    CHECK(tables->reads == i);
  }
  CHECK(view.dm_volumes_kept() == 0);
  // dm/name and dm/uuid: held when read at every scrape by design (max age 0), opened and closed
  // when the volume just could not be kept this time (the descriptors would stay for good).
  CHECK(budget->used() == (listed ? 6 + 2 : 6));
}

TEST_CASE("md arrays are read at every scrape while the dm volumes on them are kept", "[block][topology]") {
  TempDir tmp;
  HostPaths p = copy_fixture("nvme-stack", tmp);
  p.procfs = (tmp.path / "proc").string();
  tmp.write("proc/partitions", " 254 0 7501463552 dm-0\n 254 1 7501348864 dm-1\n   9 127 7501365248 md127\n");
  auto tables = std::make_shared<CountingDmTables>((tmp.path / "dmtables").string());
  auto epoch = std::make_shared<ScrapeEpoch>();
  BlockView view(p, epoch, nullptr, tables);
  epoch->advance();
  CHECK(view.volumes()->volumes.at("md127").md_array_state == "clean");
  CHECK(tables->reads == 2);
  CHECK(view.dm_volumes_kept() == 2);
  const fs::path state = fs::canonical(tmp.path / "sys/block/md127") / "md/array_state";
  std::ofstream(state) << "degraded\n";
  epoch->advance();
  CHECK(view.volumes()->volumes.at("md127").md_array_state == "degraded");
  CHECK(tables->reads == 2);
}

namespace {

// Entries of /proc/self/fd, less the listing's own descriptor: the
// descriptors open before the listing.
std::size_t listed_fds() {
  DIR* d = ::opendir("/proc/self/fd");
  std::size_t n = 0;
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n - 1;
}

}  // namespace

TEST_CASE("process_open_fds by poll(2) counts what /proc/self/fd lists, O_PATH aside", "[process]") {
  int extra[3];
  for (int& fd : extra) fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // Both counts are taken with no descriptor of their own open at that moment.
  const std::size_t before = listed_fds();
  auto polled = count_open_fds_by_poll(1024);
  REQUIRE(polled);
  CHECK(*polled == before);
  for (int fd : extra) ::close(fd);
  CHECK(*count_open_fds_by_poll(1024) == before - 3);
  // An O_PATH descriptor is listed but poll(2) reports it as POLLNVAL.
  const int path_fd = ::open("/dev/null", O_PATH | O_CLOEXEC);
  REQUIRE(path_fd >= 0);
  CHECK(listed_fds() == before - 2);
  CHECK(*count_open_fds_by_poll(1024) == before - 3);
  ::close(path_fd);
  CHECK_FALSE(count_open_fds_by_poll(0));
  CHECK_FALSE(count_open_fds_by_poll(std::size_t{1} << 40));  // more than RLIMIT_NOFILE: poll cannot
}

TEST_CASE("process_open_fds by stat(2) of /proc/self/fd counts what it lists, O_PATH included", "[process]") {
  auto stat_count = count_open_fds_by_stat("/proc/self/fd");
  if (!stat_count) {
    WARN("kernel before 6.2: /proc/self/fd reports st_size 0; only the fallback is tested");
    return;
  }
  int extra[3];
  for (int& fd : extra) fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const std::size_t before = listed_fds();
  CHECK(*count_open_fds_by_stat("/proc/self/fd") == before);
  for (int fd : extra) ::close(fd);
  CHECK(*count_open_fds_by_stat("/proc/self/fd") == before - 3);
  const int path_fd = ::open("/dev/null", O_PATH | O_CLOEXEC);
  REQUIRE(path_fd >= 0);
  CHECK(*count_open_fds_by_stat("/proc/self/fd") == before - 2);  // the O_PATH descriptor counts
  CHECK(listed_fds() == before - 2);
  ::close(path_fd);
  // Not procfs: a directory with st_size > 0 (tmpfs, ext4) is not taken for a count.
  TempDir tmp;
  tmp.write("fd/0", "x");
  struct stat st {};
  REQUIRE(::stat((tmp.str() + "/fd").c_str(), &st) == 0);
  REQUIRE(st.st_size > 0);
  CHECK_FALSE(count_open_fds_by_stat(tmp.str() + "/fd"));
  CHECK_FALSE(count_open_fds_by_stat("/proc/self/nonexistent"));
}

TEST_CASE("process collector: start time read once, the same at every scrape", "[process]") {
  ProcessCollector c;
  Families a, b;
  REQUIRE_FALSE(c.collect(a));
  REQUIRE_FALSE(c.collect(b));
  const auto first = value(a, "process_start_time_seconds", {});
  REQUIRE(first);
  CHECK(value(b, "process_start_time_seconds", {}) == first);
  const double now = static_cast<double>(std::time(nullptr));
  CHECK(*first <= now + 1);
  CHECK(*first > now - 24 * 3600);  // this test process started today
  CHECK(value(a, "process_open_fds", {}) > 2);
  // No descriptor of the collector's own is open when it counts.
  Families c2;
  const std::size_t open_now = listed_fds();
  REQUIRE_FALSE(c.collect(c2));
  CHECK(value(c2, "process_open_fds", {}) == static_cast<double>(open_now));
}

TEST_CASE("stable names: a device's by-id names joined in order, split back for the tier rules", "[block]") {
  const StableNames names = read_stable_names(sysfs_fixture("azure").devfs);
  CHECK(names.by_id.at("sdc") == "scsi-3600224800e9b1c3a1d6f2e4b9c7a5d30,wwn-0x600224800e9b1c3a1d6f2e4b9c7a5d30");
  CHECK(split_by_id(names.by_id.at("sdc")) ==
        std::vector<std::string>{"scsi-3600224800e9b1c3a1d6f2e4b9c7a5d30", "wwn-0x600224800e9b1c3a1d6f2e4b9c7a5d30"});
  CHECK(split_by_id("").empty());
  CHECK(split_by_id("one") == std::vector<std::string>{"one"});
  CHECK(names.azure_lun.at("sdc") == std::set<unsigned>{0});
}
