#include "daemon/http_server.h"

#include <CivetServer.h>

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "daemon/exposition.h"

namespace diskperf {
namespace {

void send(mg_connection* conn, int status, const char* reason, const char* content_type,
          const std::string& body, const char* extra_headers = "") {
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
            "Cache-Control: no-store\r\n\r\n",
            status, reason, content_type, body.size(), extra_headers);
  mg_write(conn, body.data(), body.size());
}

class MetricsHandler final : public CivetHandler {
 public:
  explicit MetricsHandler(std::shared_ptr<prometheus::Collectable> g) : gatherer_(std::move(g)) {}
  bool handleGet(CivetServer*, mg_connection* conn) override {
    try {
      std::string text = to_text(gatherer_->Collect());
      if (accepts_gzip(mg_get_header(conn, "Accept-Encoding"))) {
        send(conn, 200, "OK", kExpositionContentType, gzip(text), "Content-Encoding: gzip\r\n");
      } else {
        send(conn, 200, "OK", kExpositionContentType, text);
      }
    } catch (const std::exception& e) {
      spdlog::error("scrape failed: {}", e.what());
      send(conn, 500, "Internal Server Error", "text/plain; charset=utf-8", std::string(e.what()) + "\n");
    }
    return true;
  }

 private:
  std::shared_ptr<prometheus::Collectable> gatherer_;
};

class HealthyHandler final : public CivetHandler {
 public:
  bool handleGet(CivetServer*, mg_connection* conn) override {
    send(conn, 200, "OK", "text/plain; charset=utf-8", "Healthy\n");
    return true;
  }
};

class ReloadHandler final : public CivetHandler {
 public:
  ReloadHandler(bool enabled, ReloadFn reload) : enabled_(enabled), reload_(std::move(reload)) {}
  bool handlePost(CivetServer*, mg_connection* conn) override { return handlePut(nullptr, conn); }
  bool handlePut(CivetServer*, mg_connection* conn) override {
    if (!enabled_ || !reload_) {
      send(conn, 403, "Forbidden", "text/plain; charset=utf-8", "Lifecycle API is not enabled.\n");
      return true;
    }
    std::vector<std::string> errors = reload_();
    if (errors.empty()) {
      send(conn, 200, "OK", "text/plain; charset=utf-8", "");
    } else {
      std::string body = "failed to reload config:\n";
      for (const auto& e : errors) body += e + "\n";
      send(conn, 500, "Internal Server Error", "text/plain; charset=utf-8", body);
    }
    return true;
  }

 private:
  bool enabled_;
  ReloadFn reload_;
};

// "/" is matched as a prefix by CivetWeb, so it also answers unknown paths.
class LandingHandler final : public CivetHandler {
 public:
  explicit LandingHandler(std::string telemetry_path) : telemetry_path_(std::move(telemetry_path)) {}
  bool handleGet(CivetServer*, mg_connection* conn) override {
    const mg_request_info* ri = mg_get_request_info(conn);
    if (!ri || !ri->local_uri || std::string_view(ri->local_uri) != "/") {
      send(conn, 404, "Not Found", "text/plain; charset=utf-8", "404 page not found\n");
      return true;
    }
    std::string page =
        "<!DOCTYPE html>\n<html><head><title>diskperf_exporter</title></head><body>\n"
        "<h1>diskperf_exporter</h1>\n<p>Disk performance against cloud tier caps.</p>\n"
        "<ul><li><a href=\"" + telemetry_path_ + "\">Metrics</a></li>\n"
        "<li><a href=\"/-/healthy\">Health</a></li></ul>\n</body></html>\n";
    send(conn, 200, "OK", "text/html; charset=utf-8", page);
    return true;
  }

 private:
  std::string telemetry_path_;
};

}  // namespace

struct HttpServer::Handlers {
  MetricsHandler metrics;
  HealthyHandler healthy;
  LandingHandler landing;
  ReloadHandler reload;
};

std::string civetweb_listening_port(const std::string& addr) {
  std::size_t colon = addr.rfind(':');
  if (colon == std::string::npos || colon + 1 >= addr.size()) {
    throw std::invalid_argument("listen address '" + addr + "' is not host:port");
  }
  std::string port = addr.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535) {
    throw std::invalid_argument("listen address '" + addr + "' has an invalid port");
  }
  std::string host = addr.substr(0, colon);
  if (host.empty() || host == "0.0.0.0") return port;
  if (host.front() == '[' && host.back() != ']') {
    throw std::invalid_argument("listen address '" + addr + "' has an unterminated IPv6 literal");
  }
  return host + ":" + port;
}

HttpServer::HttpServer(const HttpOptions& o, std::shared_ptr<prometheus::Collectable> gatherer, ReloadFn reload)
    : handlers_(new Handlers{MetricsHandler(std::move(gatherer)), HealthyHandler(),
                             LandingHandler(o.telemetry_path), ReloadHandler(o.enable_lifecycle, std::move(reload))}) {
  std::vector<std::string> options = {
      "listening_ports", civetweb_listening_port(o.listen_address),
      "num_threads", std::to_string(o.num_threads),
      "request_timeout_ms", std::to_string(o.request_timeout_ms),
  };
  try {
    server_ = std::make_unique<CivetServer>(options);
  } catch (const CivetException& e) {
    throw std::runtime_error("cannot listen on " + o.listen_address + ": " + e.what());
  }
  server_->addHandler(o.telemetry_path, handlers_->metrics);
  server_->addHandler("/-/healthy", handlers_->healthy);
  server_->addHandler("/-/reload", handlers_->reload);
  server_->addHandler("/", handlers_->landing);
}

HttpServer::~HttpServer() {
  if (server_) server_->close();
}

std::vector<int> HttpServer::listening_ports() const { return server_->getListeningPorts(); }

}  // namespace diskperf
