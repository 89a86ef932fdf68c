#pragma once
// HTTP wiring on CivetWeb: the telemetry path (default /metrics), a landing
// page at /, /-/healthy, and POST /-/reload (with --web.enable-lifecycle). Scrapes run the Gatherer, and
// reloads the reload function, on a helper thread with an 8 MiB stack that CivetWeb's worker (100 KiB
// stack) starts and waits for; nothing here blocks on a probe.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/gatherer.h"

#include "config/web_config.h"

class CivetServer;

namespace diskperf {

struct HttpOptions {
  std::string listen_address = ":9859";  ///< host:port, :port, or [v6]:port
  std::string telemetry_path = "/metrics";
  /// CivetWeb worker threads, all started at once (Debian's CivetWeb: 100 KiB stacks).
  /// One thread serves one connection, idle or not, until its request is read
  /// (at most request_timeout_ms): 256 lets 200 idle or slow connections leave
  /// room for scrapes, for about 19 KiB RSS per thread (bench/RESULTS.md).
  int num_threads = 256;
  int request_timeout_ms = 10000;
  int max_request_size = 8192;           ///< bytes of request line + headers; larger: 400
  bool enable_lifecycle = false;         ///< --web.enable-lifecycle: POST /-/reload
  std::string web_config_file;           ///< --web.config.file (read by the daemon)
  WebConfig web;                         ///< TLS, basic auth, headers from that file
};

/// Reloads the configuration; returns the errors (empty on success).
using ReloadFn = std::function<std::vector<std::string>()>;

/// Translates a Prometheus-style listen address to CivetWeb's
/// `listening_ports` syntax: ":9859" -> "9859", "127.0.0.1:9859" unchanged,
/// "[::1]:9859" unchanged. Throws std::invalid_argument when malformed.
std::string civetweb_listening_port(const std::string& listen_address);

class HttpServer {
 public:
  /// Starts listening at once, with TLS when options.web.tls is set; every
  /// endpoint asks for basic auth when options.web.basic_auth_users is set.
  /// Throws std::runtime_error (with CivetWeb's or OpenSSL's reason) when
  /// the address cannot be bound or a TLS file cannot be loaded.
  /// POST /-/reload calls `reload` when options.enable_lifecycle is set,
  /// and answers 403 otherwise, as Prometheus does.
  HttpServer(const HttpOptions& options, std::shared_ptr<const Gatherer> gatherer, ReloadFn reload = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Ports actually bound (useful with port 0).
  std::vector<int> listening_ports() const;

 private:
  struct Handlers;
  std::unique_ptr<Handlers> handlers_;
  std::optional<TlsServerConfig> tls_;  // read by CivetWeb's init_ssl callback
  std::unique_ptr<CivetServer> server_;
  std::string wake_host_;  // where ListenerWake connects while the server closes
};

}  // namespace diskperf
