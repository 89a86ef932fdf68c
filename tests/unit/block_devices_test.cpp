// Descriptor budget of the shared /sys/block view (collectors/block_devices.h) and of the queue
// collector's held attribute files: what stays open between scrapes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "collectors/block_devices.h"
#include "collectors/block_view.h"
#include "collectors/device_filter.h"
#include "collectors/queue_collector.h"
#include "sysfs_test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {

// Descriptors of this process whose target path contains `part`.
std::size_t open_fds_on(const std::string& part) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(e.path(), ec).string();
    if (!ec && target.find(part) != std::string::npos) ++n;
  }
  return n;
}

Families collect(QueueCollector& c) {
  Families out;
  REQUIRE_FALSE(c.collect(out));
  return out;
}

// Replaces the device directory behind <sysfs>/block/<dev> by a copy, with a new /sys/block link
// (new inode), as the kernel does when a device goes away and comes back; the old directory is
// moved to `old` (so descriptors still open on it can be found by path).
void replace_device(const HostPaths& p, const std::string& dev, const std::filesystem::path& old) {
  const std::filesystem::path link = std::filesystem::path(p.sysfs) / "block" / dev;
  const std::filesystem::path dir = std::filesystem::canonical(link);
  std::filesystem::rename(dir, old);
  std::filesystem::copy(old, dir, std::filesystem::copy_options::recursive |
                                      std::filesystem::copy_options::copy_symlinks);
  std::filesystem::create_symlink(std::filesystem::read_symlink(link), link.string() + ".new");
  std::filesystem::rename(link.string() + ".new", link);
}

}  // namespace

TEST_CASE("queue: a replaced device whose new directory is beyond the budget leaves no descriptors on the old one",
          "[queue][fd]") {
  TempDir tmp;
  HostPaths p = copy_fixture("azure", tmp);
  auto only_sdd = std::make_shared<const DeviceFilter>(std::string("^sdd$"), std::nullopt);
  // What holding everything takes here: every directory, and sdd's attribute files.
  long needed = 0;
  {
    auto view = std::make_shared<BlockView>(p, nullptr, std::make_shared<FdBudget>(1000));
    QueueCollector c(view, only_sdd);
    collect(c);
    needed = view->fd_budget()->used();
  }
  REQUIRE(needed > 6);
  // Exactly that budget: when sdd comes back, its new directory cannot be held while the old
  // one still is.
  auto budget = std::make_shared<FdBudget>(needed);
  auto view = std::make_shared<BlockView>(p, nullptr, budget);
  QueueCollector c(view, only_sdd);
  collect(c);
  CHECK(budget->used() == needed);
  const std::filesystem::path old = tmp.path / "old_sdd";
  replace_device(p, "sdd", old);
  tmp.write(std::filesystem::relative(std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sdd") /
                                          "queue/nr_requests",
                                      tmp.path)
                .string(),
            "64\n");
  Families fs = collect(c);
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 64);
  fs = collect(c);
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 64);
  // Nothing of the old device is kept open, and its descriptors are back in the budget.
  CHECK(open_fds_on(old.string()) == 0);
  CHECK(budget->used() <= needed);
  fs = collect(c);  // now held again
  CHECK(value(fs, "diskperf_disk_nr_requests", {{"device", "sdd"}}) == 64);
  CHECK(open_fds_on(old.string()) == 0);
}

TEST_CASE("block devices: directories beyond the budget are not kept open by a listing",
          "[block][fd]") {
  // Found by a breaker: directories beyond the budget were opened and kept open in the Listing
  // (cached for the scrape), so a daemon with RLIMIT_NOFILE 1024 and 1600 devices ran out of
  // descriptors and lost the queue series of ~580 devices. Now they are path-based.
  TempDir tmp;
  HostPaths p = copy_fixture("azure", tmp);
  BlockDevices block(p.sysfs, std::make_shared<FdBudget>(0));
  const BlockDevices::Listing listing = block.list();
  REQUIRE(listing.devices.size() == 6);
  CHECK(block.held() == 0);
  CHECK(open_fds_on(tmp.path.string()) == 0);
}

TEST_CASE("queue: a disk replaced by another with the same major:minor gets its own settings at once", "[queue]") {
  // A disk detached and another attached at the same LUN between two scrapes (same sdX, same
  // 8:48, same size) must not keep the first disk's model, wwid and block sizes until its cached
  // settings are due: the new /sys/block entry (a new link inode) tells them apart.
  TempDir tmp;
  HostPaths p = copy_fixture("azure", tmp);
  auto only_sdd = std::make_shared<const DeviceFilter>(std::string("^sdd$"), std::nullopt);
  QueueCollector c(std::make_shared<BlockView>(p, nullptr), only_sdd);
  Families fs = collect(c);
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdd").at("model") == "Virtual Disk");
  CHECK(value(fs, "diskperf_disk_logical_block_size_bytes", {{"device", "sdd"}}) == 512);
  replace_device(p, "sdd", tmp.path / "old_sdd");
  const std::string dir =
      std::filesystem::relative(std::filesystem::canonical(std::filesystem::path(p.sysfs) / "block/sdd"), tmp.path);
  tmp.write(dir + "/device/model", "Other Disk\n");
  tmp.write(dir + "/queue/logical_block_size", "4096\n");
  fs = collect(c);
  CHECK(labels_of(fs, "diskperf_disk_info", "device", "sdd").at("model") == "Other Disk");
  CHECK(value(fs, "diskperf_disk_logical_block_size_bytes", {{"device", "sdd"}}) == 4096);
}

TEST_CASE("queue: partitions are reported when <sysfs>/class/block is missing", "[queue]") {
  // Found by a breaker: partitions came only from class/block, so a tree without it (a captured
  // host, CONFIG_SYSFS_DEPRECATED) lost every partition series silently. Now the disks'
  // subdirectories are looked at instead.
  TempDir tmp;
  HostPaths p = copy_fixture("partitions", tmp);
  std::filesystem::remove_all(tmp.path / "sys/class/block");
  QueueCollector c(p, std::make_shared<const DeviceFilter>(std::string("."), std::nullopt));
  Families fs = collect(c);
  CHECK(labels_of(fs, "diskperf_disk_partition_info", "device", "sdb1").at("disk") == "sdb");
  CHECK(value(fs, "diskperf_disk_partition_start_bytes", {{"device", "sdb1"}}) == 1048576);
}
