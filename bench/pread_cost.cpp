// pread_cost DIR PREFIX: the cost of one pread(2) at offset 0 of a held sysfs attribute file,
// as the queue collector reads them at every scrape (collectors/host_fs.h, HostDir::read_kept).
// Opens the live attributes the queue collector reads (queue/nr_requests ... diskseq) of every
// DIR/<entry> whose name starts with PREFIX, reads them all three times to warm up, then 20
// times with 20 ms pauses (so that caches cool as between scrapes), and prints the files held and
// the mean wall time per read in nanoseconds. Used by bench/scrape_vs_node_exporter loops to put
// real sysfs (/sys/block/loopN) beside the tmpfs fixture. Build: g++ -O2 -o pread_cost pread_cost.cpp
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DIR PREFIX\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1], prefix = argv[2];
  const char* attrs[] = {"queue/nr_requests", "queue/max_sectors_kb", "queue/read_ahead_kb",
                         "queue/rotational",  "queue/scheduler",      "queue/write_cache",
                         "size",              "inflight",             "diskseq"};
  std::vector<int> fds;
  DIR* d = opendir(root.c_str());
  if (!d) {
    std::perror(root.c_str());
    return 1;
  }
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    for (const char* a : attrs) {
      const int fd = open((root + "/" + name + "/" + a).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) fds.push_back(fd);
    }
  }
  closedir(d);
  if (fds.empty()) {
    std::fprintf(stderr, "no files under %s/%s*\n", root.c_str(), prefix.c_str());
    return 1;
  }
  char buf[4096];
  long bytes = 0;
  for (int r = 0; r < 3; ++r)
    for (int fd : fds) bytes += pread(fd, buf, sizeof buf, 0);
  constexpr int kRounds = 20;
  std::chrono::steady_clock::duration reading{};
  for (int r = 0; r < kRounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int fd : fds) bytes += pread(fd, buf, sizeof buf, 0);
    reading += std::chrono::steady_clock::now() - t0;
    usleep(20000);
  }
  const double ns = std::chrono::duration<double, std::nano>(reading).count() / (kRounds * fds.size());
  std::printf("%s/%s*: %zu files held, %.0f ns per pread (%ld bytes read)\n", root.c_str(), prefix.c_str(),
              fds.size(), ns, bytes);
  return 0;
}
