// loopctl: removes a detached loop device node through /dev/loop-control
// (LOOP_CTL_REMOVE), which util-linux's losetup cannot do. The e2e tests use
// it so that a detached loop device really leaves /proc/diskstats.
//   loopctl remove N
#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "remove") != 0) {
    std::fprintf(stderr, "usage: loopctl remove N\n");
    return 2;
  }
  int fd = ::open("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "loopctl: open /dev/loop-control: %s\n", std::strerror(errno));
    return 1;
  }
  long n = std::strtol(argv[2], nullptr, 10);
  // The kernel refuses with EBUSY while the device is still open or bound.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (::ioctl(fd, LOOP_CTL_REMOVE, n) >= 0) return 0;
    if (errno != EBUSY) break;
    ::usleep(100000);
  }
  std::fprintf(stderr, "loopctl: remove loop%ld: %s\n", n, std::strerror(errno));
  return 1;
}
