// The daemon speaks systemd's notify protocol: READY=1 only once the port
// accepts connections, then WATCHDOG=1 every WATCHDOG_USEC / 2.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

bool port_accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

struct Daemon {
  pid_t pid = -1;
  ~Daemon() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

}  // namespace

TEST_CASE("READY=1 after the listener is up, then WATCHDOG=1 at half WATCHDOG_USEC", "[systemd]") {
  std::string sock_path = (std::filesystem::temp_directory_path() / ("diskperf-notify-" + std::to_string(getpid()))).string();
  ::unlink(sock_path.c_str());
  int s = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  REQUIRE(s >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path.c_str());
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);

  std::vector<std::string> env_s = {"NOTIFY_SOCKET=" + sock_path, "WATCHDOG_USEC=400000", "PATH=/usr/bin:/bin"};
  std::vector<char*> env;
  for (auto& e : env_s) env.push_back(e.data());
  env.push_back(nullptr);
  std::vector<std::string> args_s = {DISKPERF_EXPORTER_BIN, "--web.listen-address=127.0.0.1:0", "--log.level=warn"};
  std::vector<char*> args;
  for (auto& a : args_s) args.push_back(a.data());
  args.push_back(nullptr);
  Daemon d;
  REQUIRE(::posix_spawn(&d.pid, args[0], nullptr, nullptr, args.data(), env.data()) == 0);

  int port = 0;
  std::vector<Clock::time_point> pings;
  auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline && pings.size() < 6) {
    pollfd p{s, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    char buf[512];
    ssize_t n = ::recv(s, buf, sizeof buf - 1, 0);
    REQUIRE(n > 0);
    std::string msg(buf, static_cast<std::size_t>(n));
    if (msg.find("READY=1") != std::string::npos && port == 0) {
      auto at = msg.find("on port ");
      REQUIRE(at != std::string::npos);
      port = std::stoi(msg.substr(at + 8));
      REQUIRE(port > 0);
      CHECK(port_accepts(port));  // ready means the listener is already up
    }
    if (msg.find("WATCHDOG=1") != std::string::npos) {
      CHECK(port != 0);  // no ping before READY
      pings.push_back(Clock::now());
    }
  }
  REQUIRE(port != 0);
  REQUIRE(pings.size() == 6);
  for (std::size_t i = 1; i < pings.size(); ++i) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(pings[i] - pings[i - 1]).count();
    CHECK(ms >= 150);
    CHECK(ms <= 300);  // period 200 ms = WATCHDOG_USEC / 2
  }
  // SIGTERM: STOPPING=1 and a clean exit 0 within 5 s.
  REQUIRE(::kill(d.pid, SIGTERM) == 0);
  bool stopping = false;
  auto stop_deadline = Clock::now() + std::chrono::seconds(5);
  int status = 0;
  pid_t done = 0;
  while (Clock::now() < stop_deadline && done == 0) {
    pollfd p{s, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) {
      char buf[512];
      ssize_t n = ::recv(s, buf, sizeof buf - 1, 0);
      if (n > 0 && std::string(buf, static_cast<std::size_t>(n)).find("STOPPING=1") != std::string::npos) stopping = true;
    }
    done = ::waitpid(d.pid, &status, WNOHANG);
  }
  REQUIRE(done == d.pid);
  d.pid = -1;
  CHECK(stopping);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  ::close(s);
  ::unlink(sock_path.c_str());
}
