#include "daemon/listener_wake.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

namespace diskperf {
namespace {

void connect_once(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return;
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(static_cast<std::uint16_t>(port));
    if (::inet_pton(AF_INET6, host == "::" ? "::1" : host.c_str(), &a.sin6_addr) == 1)
      (void)::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    const std::string h = host.empty() || host == "0.0.0.0" ? "127.0.0.1" : host;
    if (::inet_pton(AF_INET, h.c_str(), &a.sin_addr) == 1)
      (void)::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  ::close(fd);  // a non-blocking connect to a local listener has reached its accept queue
}

}  // namespace

std::string listen_host(const std::string& address) {
  const auto colon = address.rfind(':');
  std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host;
}

ListenerWake::ListenerWake(std::string host, int port)
    : thread_([this, host = std::move(host), port] {
        while (!done_.load()) {
          connect_once(host, port);
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }) {}

ListenerWake::~ListenerWake() {
  done_ = true;
  thread_.join();
}

}  // namespace diskperf
