#include "daemon/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <CivetServer.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "daemon/basic_auth.h"
#include "daemon/exposition.h"
#include "daemon/listener_wake.h"
#include "collectors/large_stack.h"
#include "daemon/process_setup.h"
#include "daemon/tls.h"

namespace diskperf {
namespace {

// What every handler shares: the basic auth check and the configured headers.
struct Context {
  BasicAuth auth;
  std::string headers;  // "Name: value\r\n" lines from http_server_config.headers
};

// A response to HEAD has the headers of the GET response and no body (RFC 9110 9.3.2).
bool is_head(mg_connection* conn) {
  const mg_request_info* ri = mg_get_request_info(conn);
  return ri && ri->request_method && std::string_view(ri->request_method) == "HEAD";
}

// CivetWeb runs with keep-alive off (its default): it closes the connection
// after every response, and every response says so (Connection: close), or an
// HTTP/1.1 client would send its next request into the closed connection.
void send(const Context& ctx, mg_connection* conn, int status, const char* reason, const char* content_type,
          const std::string& body, const std::string& extra_headers = "") {
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            status, reason, content_type, body.size(), extra_headers.c_str(), ctx.headers.c_str());
  if (!is_head(conn)) mg_write(conn, body.data(), body.size());
}

// 405 for a method the path does not take; `allow` lists those it does.
bool method_not_allowed(const Context& ctx, mg_connection* conn, const char* allow) {
  send(ctx, conn, 405, "Method Not Allowed", "text/plain; charset=utf-8", "Method Not Allowed\n",
       std::string("Allow: ") + allow + "\r\n");
  return true;
}

// Base of every handler: answers 401 unless the request carries valid
// basic auth credentials (when users are configured).
class GuardedHandler : public CivetHandler {
 public:
  explicit GuardedHandler(const Context* ctx) : ctx_(ctx) {}
  bool handleGet(CivetServer*, mg_connection* conn) override {
    return authorized(conn) ? get(conn) : true;
  }
  bool handleHead(CivetServer*, mg_connection* conn) override {  // get() sends no body for HEAD
    return authorized(conn) ? get(conn) : true;
  }
  bool handlePost(CivetServer*, mg_connection* conn) override {
    return authorized(conn) ? post(conn) : true;
  }
  bool handlePut(CivetServer*, mg_connection* conn) override {
    return authorized(conn) ? post(conn) : true;
  }
  // Without these CivetWeb answers DELETE and PATCH with a 405 of its own (no Allow) and OPTIONS
  // with 404.
  bool handleDelete(CivetServer*, mg_connection* conn) override { return authorized(conn) ? other(conn) : true; }
  bool handlePatch(CivetServer*, mg_connection* conn) override { return authorized(conn) ? other(conn) : true; }
  bool handleOptions(CivetServer*, mg_connection* conn) override { return authorized(conn) ? other(conn) : true; }

 protected:
  /// GET, and HEAD: send() leaves out the body of a HEAD request's response.
  virtual bool get(mg_connection* conn) = 0;
  /// POST and PUT.
  virtual bool post(mg_connection* conn) { return method_not_allowed(ctx(), conn, "GET, HEAD"); }
  /// DELETE, PATCH and OPTIONS: taken by no path (405 with the path's Allow, as post() does).
  virtual bool other(mg_connection* conn) { return method_not_allowed(ctx(), conn, "GET, HEAD"); }
  const Context& ctx() const { return *ctx_; }

 private:
  bool authorized(mg_connection* conn) {
    if (ctx_->auth.check(mg_get_header(conn, "Authorization"))) return true;
    send(*ctx_, conn, 401, "Unauthorized", "text/plain; charset=utf-8", "Unauthorized\n",
         "WWW-Authenticate: Basic realm=\"diskperf_exporter\"\r\n");
    return false;
  }
  const Context* ctx_;
};

class MetricsHandler final : public GuardedHandler {
  struct ClientGone {};  // thrown by the chunk sink when a write fails

 public:
  MetricsHandler(const Context* c, std::shared_ptr<const Gatherer> g)
      : GuardedHandler(c), gatherer_(std::move(g)) {}
  bool get(mg_connection* conn) override {
    if (is_head(conn)) {  // the headers of a scrape's response, without the scrape
      mg_printf(conn,
                "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n%sCache-Control: no-store\r\nConnection: close\r\n\r\n",
                kExpositionContentType, ctx().headers.c_str());
      return true;
    }
    const bool gz = accepts_gzip(mg_get_header(conn, "Accept-Encoding"));
    const mg_request_info* ri = mg_get_request_info(conn);
    const bool chunked = ri && ri->http_version && std::string_view(ri->http_version) == "1.1";
    // The whole scrape, sending included, runs on the large-stack thread
    // while this worker waits (the connection is used by one thread at a
    // time): the scrape's memory is allocated and freed there, and what
    // glibc keeps per thread after free (its tcache) goes when the thread
    // ends. Freed on the worker, it stayed in each of the 256 workers' caches
    // in turn (RSS grew by ~1.8 MB per 300 scrapes of a small host).
    bool sent = false;
    try {
      run_with_large_stack([&] {
        const Families families = gatherer_->Collect();
        sent = true;  // from here on the response is under way: stream/send_whole report their own errors
        if (chunked) {
          stream(conn, families, gz);
        } else {
          send_whole(conn, families, gz);  // HTTP/1.0 has no chunked encoding
        }
      });
    } catch (const std::exception& e) {
      spdlog::error("scrape failed: {}", e.what());
      if (!sent) {
        send(ctx(), conn, 500, "Internal Server Error", "text/plain; charset=utf-8", std::string(e.what()) + "\n");
      }
    }
    release_free_memory();
    return true;
  }

 private:
  // The exposition in chunks (Transfer-Encoding: chunked) as it is rendered
  // and compressed: no buffer of the whole text (2.7 MB on a 1,200-device host).
  void stream(mg_connection* conn, const Families& families, bool gz) {
    mg_printf(conn,
              "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n%sTransfer-Encoding: chunked\r\n%s"
              "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
              kExpositionContentType, gz ? "Content-Encoding: gzip\r\n" : "", ctx().headers.c_str());
    // A chunk not sent in full (the client closed the connection, or read
    // nothing for request_timeout_ms) ends the response there: sending the
    // next chunks after a dropped one would corrupt the stream (or, with
    // whole chunks dropped, leave a well-formed body with series missing),
    // and wait request_timeout_ms again for every write of every piece
    // (a stalled client held a worker for minutes instead of one timeout).
    auto chunk = [conn](std::string_view piece) {
      if (!piece.empty() && mg_send_chunk(conn, piece.data(), static_cast<unsigned>(piece.size())) < 0) {
        throw ClientGone();
      }
    };
    try {
      if (gz) {
        GzipWriter z(chunk);
        write_gzip(families, z, deflated_);
        z.finish();
      } else {
        write_text(families, chunk);
      }
      mg_send_chunk(conn, "", 0);  // the last chunk
    } catch (const ClientGone&) {
      spdlog::warn("scrape response not sent in full: the client closed the connection or stopped reading");
    } catch (const std::exception& e) {
      // The status is sent: the last chunk is not, and the connection is
      // closed when the handler returns, so the client sees the body end
      // without its last chunk and fails the scrape instead of taking a
      // partial exposition.
      spdlog::error("scrape failed while sending: {}", e.what());
    }
  }

  void send_whole(mg_connection* conn, const Families& families, bool gz) {
    try {
      // Room for the last scrape's size and 1/16 more.
      const std::size_t expected = last_size_.load(std::memory_order_relaxed);
      std::string text = to_text(families, expected + expected / 16);
      last_size_.store(text.size(), std::memory_order_relaxed);
      if (gz) {
        send(ctx(), conn, 200, "OK", kExpositionContentType, gzip(text), "Content-Encoding: gzip\r\n");
      } else {
        send(ctx(), conn, 200, "OK", kExpositionContentType, text);
      }
    } catch (const std::exception& e) {
      spdlog::error("scrape failed: {}", e.what());
      send(ctx(), conn, 500, "Internal Server Error", "text/plain; charset=utf-8", std::string(e.what()) + "\n");
    }
  }

  std::shared_ptr<const Gatherer> gatherer_;
  std::atomic<std::size_t> last_size_{0};  ///< bytes of the last whole exposition (HTTP/1.0)
  DeflatedSegments deflated_;              ///< compressed families of earlier gzip responses (HTTP/1.1)
};

class HealthyHandler final : public GuardedHandler {
 public:
  using GuardedHandler::GuardedHandler;
  bool get(mg_connection* conn) override {
    send(ctx(), conn, 200, "OK", "text/plain; charset=utf-8", "Healthy\n");
    return true;
  }
};

class ReloadHandler final : public GuardedHandler {
 public:
  ReloadHandler(const Context* c, bool enabled, ReloadFn reload)
      : GuardedHandler(c), enabled_(enabled), reload_(std::move(reload)) {}
  bool get(mg_connection* conn) override { return method_not_allowed(ctx(), conn, "POST, PUT"); }
  bool other(mg_connection* conn) override { return get(conn); }
  bool post(mg_connection* conn) override {
    if (!enabled_ || !reload_) {
      send(ctx(), conn, 403, "Forbidden", "text/plain; charset=utf-8", "Lifecycle API is not enabled.\n");
      return true;
    }
    std::vector<std::string> errors;
    try {
      run_with_large_stack([&] { errors = reload_(); });
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
    if (errors.empty()) {
      send(ctx(), conn, 200, "OK", "text/plain; charset=utf-8", "");
    } else {
      std::string body = "failed to reload config:\n";
      for (const auto& e : errors) body += e + "\n";
      send(ctx(), conn, 500, "Internal Server Error", "text/plain; charset=utf-8", body);
    }
    return true;
  }

 private:
  bool enabled_;
  ReloadFn reload_;
};

// "/" is matched as a prefix by CivetWeb, so it also answers unknown paths.
class LandingHandler final : public GuardedHandler {
 public:
  LandingHandler(const Context* c, std::string telemetry_path)
      : GuardedHandler(c), telemetry_path_(std::move(telemetry_path)) {}
  bool get(mg_connection* conn) override {
    if (!root(conn)) return not_found(conn);
    std::string page =
        "<!DOCTYPE html>\n<html><head><title>diskperf_exporter</title></head><body>\n"
        "<h1>diskperf_exporter</h1>\n<p>Disk performance against cloud tier caps.</p>\n"
        "<ul><li><a href=\"" + telemetry_path_ + "\">Metrics</a></li>\n"
        "<li><a href=\"/-/healthy\">Health</a></li></ul>\n</body></html>\n";
    send(ctx(), conn, 200, "OK", "text/html; charset=utf-8", page);
    return true;
  }
  bool post(mg_connection* conn) override {
    return root(conn) ? method_not_allowed(ctx(), conn, "GET, HEAD") : not_found(conn);
  }
  bool other(mg_connection* conn) override { return post(conn); }

 private:
  static bool root(mg_connection* conn) {
    const mg_request_info* ri = mg_get_request_info(conn);
    return ri && ri->local_uri && std::string_view(ri->local_uri) == "/";
  }
  bool not_found(mg_connection* conn) {
    send(ctx(), conn, 404, "Not Found", "text/plain; charset=utf-8", "404 page not found\n");
    return true;
  }
  std::string telemetry_path_;
};

}  // namespace

struct HttpServer::Handlers {
  Context context;  // first: the handlers below point at it
  MetricsHandler metrics;
  HealthyHandler healthy;
  LandingHandler landing;
  ReloadHandler reload;
  Handlers(const HttpOptions& o, std::string headers, std::shared_ptr<const Gatherer> g, ReloadFn r)
      : context{BasicAuth(o.web.basic_auth_users), std::move(headers)},
        metrics(&context, std::move(g)),
        healthy(&context),
        landing(&context, o.telemetry_path),
        reload(&context, o.enable_lifecycle, std::move(r)) {}
};

namespace {
struct HostPort {
  std::string host;    ///< "" for ":port"
  std::uint16_t port;
};

// `addr` as host and port: one host:port (CivetWeb would take a comma-separated list, with TLS
// on its last entry only, and options after a space) with a decimal port up to 65535. Throws
// std::invalid_argument saying what is wrong.
HostPort split_listen_address(const std::string& addr) {
  if (addr.find_first_of(", \t\r\n") != std::string::npos) {
    throw std::invalid_argument("listen address '" + addr + "' must be one host:port, without commas or spaces");
  }
  const std::size_t colon = addr.rfind(':');
  if (colon == std::string::npos || colon + 1 >= addr.size()) {
    throw std::invalid_argument("listen address '" + addr + "' is not host:port");
  }
  const std::string port = addr.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535) {
    throw std::invalid_argument("listen address '" + addr + "' has an invalid port");
  }
  return {addr.substr(0, colon), static_cast<std::uint16_t>(std::stoi(port))};
}
}  // namespace

std::string civetweb_listening_port(const std::string& addr) {
  const HostPort hp = split_listen_address(addr);
  const std::string port = std::to_string(hp.port);
  const std::string& host = hp.host;
  if (host.empty() || host == "0.0.0.0") return port;
  if (host.front() == '[' && host.back() != ']') {
    throw std::invalid_argument("listen address '" + addr + "' has an unterminated IPv6 literal");
  }
  if (host.front() == '[' && mg_check_feature(8) == 0) {  // 8: IPv6 (civetweb.h)
    throw std::invalid_argument("listen address '" + addr +
                                "': this CivetWeb is built without IPv6; use an IPv4 address or :port");
  }
  return host + ":" + port;
}

namespace {
// Why CivetWeb could not listen on `addr` (host:port or :port, IPv4, already
// checked by civetweb_listening_port), from a lookup and a bind of our own:
// CivetWeb's C++ constructor reports only "null context". Empty when that bind
// succeeds (the cause was elsewhere).
std::string bind_failure(const std::string& addr) {
  const HostPort hp = split_listen_address(addr);
  const std::string& host = hp.host;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (!host.empty() && ::inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
    addrinfo hints{};
    hints.ai_family = AF_INET;  // as CivetWeb resolves a name without IPv6
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
      return "cannot resolve host '" + host + "': " + ::gai_strerror(rc);
    }
    sa.sin_addr = reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr;
    ::freeaddrinfo(found);
  }
  sa.sin_port = htons(hp.port);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // as CivetWeb does
  std::string reason;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) reason = std::strerror(errno);
  ::close(fd);
  return reason;
}
}  // namespace

HttpServer::HttpServer(const HttpOptions& o, std::shared_ptr<const Gatherer> gatherer, ReloadFn reload) {
  std::string headers;
  for (const auto& [k, v] : o.web.headers) headers += k + ": " + v + "\r\n";
  handlers_ = std::make_unique<Handlers>(o, std::move(headers), std::move(gatherer), std::move(reload));
  std::string port = civetweb_listening_port(o.listen_address);
  wake_host_ = listen_host(o.listen_address);
  CivetCallbacks callbacks{};
  // A worker's stack pages touched by a request stay resident after it: 256
  // workers take requests in turn, so all of them end up with the deepest
  // stack a request reached (24 KiB each; 12 KiB before the first). Handed
  // back here, when CivetWeb has closed the connection: this callback runs
  // 7 KiB below the top of the worker's stack (a handler runs 23 KiB below,
  // under CivetWeb's request buffers), so all but the pages in use go.
  // Measured on the 1,200-device fixture: RSS 20.5 -> 17.5 MB.
  callbacks.connection_closed = [](const mg_connection*) { release_unused_stack(); };
  if (o.web.tls) {
    port += "s";
    check_tls_config(*o.web.tls);  // a bad file fails here, with OpenSSL's reason
    tls_ = o.web.tls;
    // CivetWeb loads OpenSSL and builds the SSL_CTX; we set it up.
    callbacks.init_ssl = [](void* ssl_ctx, void* user_data) -> int {
      auto* tls = static_cast<const TlsServerConfig*>(static_cast<CivetServer*>(user_data)->getUserContext());
      try {
        configure_server_ssl_ctx(ssl_ctx, *tls);
        return 1;  // certificate set up by us
      } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return -1;
      }
    };
  }
  std::vector<std::string> options = {
      "listening_ports", port,
      "num_threads", std::to_string(o.num_threads),
      "request_timeout_ms", std::to_string(o.request_timeout_ms),
      "max_request_size", std::to_string(o.max_request_size),
  };
  try {
    server_ = std::make_unique<CivetServer>(options, &callbacks, tls_ ? &*tls_ : nullptr);
  } catch (const CivetException& e) {
    const std::string reason = bind_failure(o.listen_address);
    throw std::runtime_error("cannot listen on " + o.listen_address + ": " + (reason.empty() ? e.what() : reason));
  }
  server_->addHandler(o.telemetry_path, handlers_->metrics);
  server_->addHandler("/-/healthy", handlers_->healthy);
  server_->addHandler("/-/reload", handlers_->reload);
  server_->addHandler("/", handlers_->landing);
}

HttpServer::~HttpServer() {
  if (!server_) return;
  const std::vector<int> ports = server_->getListeningPorts();
  std::unique_ptr<ListenerWake> wake;
  if (!ports.empty()) wake = std::make_unique<ListenerWake>(wake_host_, ports.front());
  server_->close();
}

std::vector<int> HttpServer::listening_ports() const { return server_->getListeningPorts(); }

}  // namespace diskperf
