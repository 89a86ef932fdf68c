#pragma once
// A loopback HTTP server standing in for the Azure Instance Metadata Service in the IMDS unit
// tests: 127.0.0.1, a port chosen by the kernel, a thread per connection; answers as its mode
// says (400 without `Metadata: true`, as IMDS does) and records when each request came.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace diskperf::test {

class ImdsTestServer {
 public:
  enum class Mode { ok, bad_request, error500, error429, garbage, slow, hang, big, big_unsized, redirect };
  using Clock = std::chrono::steady_clock;

  explicit ImdsTestServer(std::string document) : document_(std::move(document)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(listen_fd_, 16) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("test server: cannot listen on 127.0.0.1");
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~ImdsTestServer() {
    stopping_ = true;
    acceptor_.join();
    std::vector<std::thread> connections;
    {
      std::lock_guard lock(mu_);
      connections.swap(connections_);
    }
    for (auto& t : connections) t.join();
    ::close(listen_fd_);
  }
  ImdsTestServer(const ImdsTestServer&) = delete;
  ImdsTestServer& operator=(const ImdsTestServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::atomic<Mode> mode{Mode::ok};
  std::atomic<int> slow_ms{300};
  void set_document(std::string d) {
    std::lock_guard lock(mu_);
    document_ = std::move(d);
  }
  std::size_t requests() const {
    std::lock_guard lock(mu_);
    return times_.size();
  }
  std::vector<Clock::time_point> times() const {
    std::lock_guard lock(mu_);
    return times_;
  }
  std::string last_request() const {
    std::lock_guard lock(mu_);
    return last_request_;
  }
  /// Waits until `n` requests have come, up to `limit`.
  bool wait_requests(std::size_t n, std::chrono::milliseconds limit) const {
    const auto until = Clock::now() + limit;
    while (requests() < n) {
      if (Clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

 private:
  void accept_loop() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard lock(mu_);
      connections_.emplace_back([this, fd] {
        serve(fd);
        ::close(fd);
      });
    }
  }

  // Waits for `fd` to be readable, 20 ms at a time, until the server stops.
  bool readable(int fd) const {
    while (!stopping_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }

  static void send_all(int fd, const std::string& s) {
    for (std::size_t done = 0; done < s.size();) {
      const ssize_t n = ::send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }
  static void respond(int fd, int code, const std::string& body, const std::string& extra = "", bool sized = true) {
    std::string head = "HTTP/1.1 " + std::to_string(code) + " X\r\nContent-Type: application/json\r\n" + extra;
    if (sized) head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    send_all(fd, head + "Connection: close\r\n\r\n" + body);
  }

  void serve(int fd) {
    std::string req;
    char buf[4096];
    while (req.find("\r\n\r\n") == std::string::npos) {
      if (!readable(fd)) return;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      req.append(buf, static_cast<std::size_t>(n));
    }
    std::string lower = req;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string document;
    {
      std::lock_guard lock(mu_);
      times_.push_back(Clock::now());
      last_request_ = req;
      document = document_;
    }
    if (lower.find("\r\nmetadata: true\r\n") == std::string::npos)
      return respond(fd, 400, R"({"error":"Bad request. Required metadata header not specified"})");
    switch (mode.load()) {
      case Mode::ok: return respond(fd, 200, document);
      case Mode::bad_request: return respond(fd, 400, R"({"error":"Bad request."})");
      case Mode::error500: return respond(fd, 500, R"({"error":"Internal server error"})");
      case Mode::error429: return respond(fd, 429, R"({"error":"Too many requests"})");
      case Mode::garbage: return respond(fd, 200, "<html>Service Unavailable</html>");
      case Mode::big: return respond(fd, 200, std::string(2u << 20, ' '));
      case Mode::big_unsized: return respond(fd, 200, std::string(2u << 20, ' '), "", false);
      case Mode::redirect: return respond(fd, 302, "", "Location: " + url() + "/elsewhere\r\n");
      case Mode::slow: {
        const auto until = Clock::now() + std::chrono::milliseconds(slow_ms.load());
        while (!stopping_ && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return respond(fd, 200, document);
      }
      case Mode::hang:  // silent until the client gives up (closes) or the server stops
        while (readable(fd) && ::recv(fd, buf, sizeof buf, 0) > 0) {
        }
        return;
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::string document_;                          // guarded by mu_
  std::vector<Clock::time_point> times_;          // guarded by mu_
  std::string last_request_;                      // guarded by mu_
  std::vector<std::thread> connections_;          // guarded by mu_
  std::thread acceptor_;
};

/// A loopback port nothing listens on (bound, then closed): connecting to it is refused.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace diskperf::test
