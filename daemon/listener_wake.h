#pragma once
// Ends CivetWeb's stop sooner: its accept loop looks at the stop flag only between polls of up to
// 2 s, so while the server closes, a thread connects to the listening port now and then; each
// connection ends the poll at once.

#include <atomic>
#include <string>
#include <thread>

namespace diskperf {

class ListenerWake {
 public:
  /// Starts connecting to `host`:`port` (an any-address host means 127.0.0.1) every 50 ms.
  ListenerWake(std::string host, int port);
  ~ListenerWake();  ///< stops and joins
  ListenerWake(const ListenerWake&) = delete;
  ListenerWake& operator=(const ListenerWake&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

/// The host part of a --web.listen-address ("127.0.0.1:9859" -> "127.0.0.1", ":9859" -> "").
std::string listen_host(const std::string& listen_address);

}  // namespace diskperf
