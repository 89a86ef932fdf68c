// HostDir (openat-relative reads) must behave as the path-based functions do,
// and read_open_file must see a file rewritten in place (issue 9).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "collectors/host_fs.h"
#include "test_helpers.h"

using namespace diskperf;
using namespace diskperf::test;

namespace {
std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}
}  // namespace

TEST_CASE("host_fs: HostDir reads, lists and follows links as the path functions do", "[host_fs]") {
  TempDir tmp;
  tmp.write("dev/sdc/queue/nr_requests", "254\n");
  tmp.write("dev/sdc/size", "2048\n");
  tmp.write("dev/sdc/big", std::string(5000, 'x'));
  std::filesystem::create_directory_symlink(tmp.path / "dev/sdc", tmp.path / "block_sdc");
  std::filesystem::create_symlink("../../devices/sdc", tmp.path / "dev/sdc/link");
  const std::string root = (tmp.path / "block_sdc").string();
  HostDir dir(root);
  REQUIRE(dir.ok());
  CHECK(dir.open_status() == ReadStatus::ok);
  CHECK(dir.read_file("queue/nr_requests").data == "254\n");
  CHECK(dir.read_file("queue/nr_requests").data == read_file(root + "/queue/nr_requests").data);
  FileContent missing = dir.read_file("queue/nope");
  CHECK(missing.status == ReadStatus::absent);
  CHECK(missing.error == read_file(root + "/queue/nope").error);
  CHECK(missing.error == "open " + root + "/queue/nope: No such file or directory");
  FileContent big = dir.read_file("big", 4096);
  CHECK(big.status == ReadStatus::too_large);
  CHECK(big.error == read_file(root + "/big", 4096).error);
  CHECK(dir.read_file("big", 5000).data.size() == 5000);
  CHECK(dir.exists("size") == ReadStatus::ok);
  CHECK(dir.exists("nope") == ReadStatus::absent);
  CHECK(sorted(dir.list_dir()) == sorted(list_dir(root)));
  CHECK(sorted(dir.list_dir()) == std::vector<std::string>{"big", "link", "queue", "size"});
  CHECK(sorted(dir.list_dir()) == sorted(dir.list_dir()));  // listing itself twice starts over
  CHECK(dir.list_dir("queue") == std::vector<std::string>{"nr_requests"});
  ReadStatus st = ReadStatus::ok;
  CHECK(dir.list_dir("nope", &st).empty());
  CHECK(st == ReadStatus::absent);
  CHECK(dir.read_link("link") == "../../devices/sdc");
  CHECK(dir.read_link("size").empty());
  HostDir queue(dir, "queue");
  CHECK(queue.path() == root + "/queue");
  CHECK(queue.read_file("nr_requests").data == "254\n");
}

TEST_CASE("host_fs: a HostDir that cannot be opened fails every call like the path functions", "[host_fs]") {
  TempDir tmp;
  const std::string root = (tmp.path / "gone").string();
  HostDir dir(root);
  CHECK_FALSE(dir.ok());
  CHECK(dir.open_status() == ReadStatus::absent);
  FileContent f = dir.read_file("dev");
  CHECK(f.status == ReadStatus::absent);
  CHECK(f.error == read_file(root + "/dev").error);
  CHECK(dir.exists("dev") == ReadStatus::absent);
  ReadStatus st = ReadStatus::ok;
  CHECK(dir.list_dir("", &st).empty());
  CHECK(st == ReadStatus::absent);
  CHECK(dir.read_link("x").empty());
  HostDir child(dir, "queue");
  CHECK_FALSE(child.ok());
  CHECK(child.read_file("nr_requests").status == ReadStatus::absent);
}

TEST_CASE("host_fs: read_open_file reads from the start each time and sees in-place rewrites", "[host_fs]") {
  TempDir tmp;
  tmp.write("inflight", "       3        1\n");
  HostDir dir(tmp.str());
  int fd = dir.open_file("inflight");
  REQUIRE(fd >= 0);
  CHECK(read_open_file(fd, dir.path(), "inflight").data == "       3        1\n");
  CHECK(read_open_file(fd, dir.path(), "inflight").data == "       3        1\n");
  tmp.write("inflight", "0 0\n");  // truncates and rewrites the same inode
  CHECK(read_open_file(fd, dir.path(), "inflight").data == "0 0\n");
  tmp.write("inflight", std::string(5000, '7'));
  FileContent big = read_open_file(fd, dir.path(), "inflight", 4096);
  CHECK(big.status == ReadStatus::too_large);
  CHECK(big.error == "read " + tmp.str() + "/inflight: larger than 4096 bytes");
  ::close(fd);
  CHECK(dir.open_file("nope") == -1);
}

TEST_CASE("host_fs: read_kept keeps one descriptor per file within the budget", "[host_fs]") {
  TempDir tmp;
  tmp.write("dm/name", "vg-data\n");
  auto budget = std::make_shared<FdBudget>(1);
  {
    HostDir dir(tmp.str());
    CHECK(dir.read_kept("dm/name", budget).data == "vg-data\n");
    CHECK(budget->used() == 1);
    tmp.write("dm/name", "vg-renamed\n");  // in place, as sysfs produces a new text
    CHECK(dir.read_kept("dm/name", budget).data == "vg-renamed\n");
    CHECK(budget->used() == 1);  // the same descriptor
    static const char same_name[] = "dm/name";  // another array: found by its text, not its address
    CHECK(dir.read_kept(same_name, budget).data == "vg-renamed\n");
    CHECK(budget->used() == 1);
    // A second file does not fit the budget: read by opening it, every time.
    tmp.write("dm/uuid", "LVM-abc\n");
    CHECK(dir.read_kept("dm/uuid", budget).data == "LVM-abc\n");
    CHECK(budget->used() == 1);
    std::filesystem::remove(tmp.path / "dm/uuid");
    FileContent gone = dir.read_kept("dm/uuid", budget);
    CHECK(gone.status == ReadStatus::absent);
    CHECK(gone.error == dir.read_file("dm/uuid").error);  // the same report as read_file
    // A file that cannot be opened takes nothing from the budget.
    auto spare = std::make_shared<FdBudget>(5);
    FileContent absent = dir.read_kept("md/level", spare);
    CHECK(absent.status == ReadStatus::absent);
    CHECK(absent.error == dir.read_file("md/level").error);
    CHECK(spare->used() == 0);
    // Not a regular file: refused as read_file refuses it.
    REQUIRE(::mkfifo((tmp.path / "fifo").c_str(), 0600) == 0);
    CHECK(dir.read_kept("fifo", spare).status == dir.read_file("fifo").status);
    CHECK(spare->used() == 0);
  }
  CHECK(budget->used() == 0);  // given back with the directory
  // Path-based directories (beyond the budget) keep nothing.
  HostDir by_path = HostDir::by_path(tmp.str());
  CHECK(by_path.read_kept("dm/name", budget).data == "vg-renamed\n");
  CHECK(budget->used() == 0);
}

TEST_CASE("host_fs: read_file reads a file whole whatever its size hint", "[host_fs]") {
  TempDir dir;
  std::string big;
  for (int i = 0; big.size() < 300000; ++i) big += "line " + std::to_string(i) + "\n";
  const std::string path = (dir.path / "big").string();
  dir.write("big", big);
  for (std::size_t hint : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, big.size() - 1, big.size(),
                           big.size() + 1, big.size() * 3}) {
    INFO("hint " << hint);
    FileContent f = read_file(path, 16u << 20, hint);
    REQUIRE(f.ok());
    CHECK(f.data == big);
  }
  // The limit still holds with a hint above it; procfs files (size 0 in stat) are read whole.
  CHECK(read_file(path, 1000, big.size()).status == ReadStatus::too_large);
  FileContent self = read_file("/proc/self/status", 16u << 20, 10);
  REQUIRE(self.ok());
  CHECK(self.data.find("VmRSS") != std::string::npos);
  CHECK(self.data.back() == '\n');
  CHECK(read_file(path, big.size(), big.size()).data == big);  // exactly at the limit
}

TEST_CASE("host_fs: unlinked() tells a removed directory on tmpfs and ext4, and is false on sysfs", "[host_fs]") {
  TempDir tmp;
  tmp.write("sda/size", "8\n");
  HostDir dir(tmp.str() + "/sda");
  CHECK_FALSE(dir.unlinked());
  std::filesystem::remove_all(tmp.path / "sda");
  CHECK(dir.unlinked());
  CHECK(dir.unlinked());  // asked again: the answer is not cached, only the file system type is
  // This host's sysfs: no link count to go by there (a removed device's files fail with ENODEV
  // instead), so no fstat is made at all.
  std::vector<std::string> block = list_dir("/sys/block");
  if (!block.empty()) {
    HostDir sys("/sys/block/" + block.front());
    REQUIRE(sys.ok());
    CHECK_FALSE(sys.unlinked());
    CHECK_FALSE(sys.unlinked());
  }
  CHECK_FALSE(HostDir::by_path(tmp.str()).unlinked());
}
