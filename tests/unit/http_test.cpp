#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>

#include <civetweb.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <thread>

#include "collectors/metric_families.h"
#include "daemon/exposition.h"
#include "daemon/gatherer.h"
#include "daemon/http_server.h"
#include "test_helpers.h"

using namespace diskperf;
using diskperf::test::gunzip;

namespace {

// Minimal HTTP/1.0 client for tests: sends one request, returns the raw response.
std::string http_request(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size()));
  std::string resp;
  char buf[8192];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) resp.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return resp;
}

std::string http_get(int port, const std::string& path, const std::string& headers = "") {
  return http_request(port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n" + headers + "\r\n");
}

std::string body(const std::string& resp) { return resp.substr(resp.find("\r\n\r\n") + 4); }

// Body of a chunked response (RFC 9112 7.1), or "<bad chunking>".
std::string dechunk(const std::string& resp) {
  std::string in = body(resp), out;
  std::size_t pos = 0;
  for (;;) {
    std::size_t eol = in.find("\r\n", pos);
    if (eol == std::string::npos) return "<bad chunking>";
    std::size_t n = std::stoul(in.substr(pos, eol - pos), nullptr, 16);
    if (n == 0) return in.compare(eol, 4, "\r\n\r\n") == 0 ? out : "<bad chunking>";
    if (in.compare(eol + 2 + n, 2, "\r\n") != 0) return "<bad chunking>";
    out.append(in, eol + 2, n);
    pos = eol + 2 + n + 2;
  }
}

// Without the lines that differ between two scrapes (collector durations).
std::string stable_lines(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    eol = eol == std::string::npos ? text.size() : eol + 1;
    if (text.compare(pos, 43, "diskperf_scrape_collector_duration_seconds{") != 0) out.append(text, pos, eol - pos);
    pos = eol;
  }
  return out;
}

class FixedCollector final : public Collector {
 public:
  std::string_view name() const override { return "fixed"; }
  std::optional<std::string> collect(Families& out) override {
    add_sample(add_family(out, "diskperf_test_value", "A test value.", prometheus::MetricType::Gauge), 42,
               {{"device", "sdc"}});
    return std::nullopt;
  }
};

// 30,000 samples (about 1.5 MB of text): many pieces when streamed.
class BigCollector final : public Collector {
 public:
  std::string_view name() const override { return "big"; }
  std::optional<std::string> collect(Families& out) override {
    auto& f = add_family(out, "diskperf_test_big_total", "Many samples.", prometheus::MetricType::Counter);
    for (int i = 0; i < 30000; ++i) f.add(i * 1.5, {{"device", "dev" + std::to_string(i)}, {"op", "read"}});
    return std::nullopt;
  }
};

// A regex of `depth` nested groups around "sdc": legal, and deep for
// libstdc++'s recursive std::regex compiler and matcher.
std::string nested_regex(int depth) {
  return std::string(static_cast<std::size_t>(depth), '(') + "sdc" + std::string(static_cast<std::size_t>(depth), ')');
}

// Matches a device name against a deeply nested regex at every scrape, as the
// device filter does with a complex configured pattern.
class DeepRegexCollector final : public Collector {
 public:
  std::string_view name() const override { return "deep_regex"; }
  std::optional<std::string> collect(Families& out) override {
    std::regex re(nested_regex(400));
    add_sample(add_family(out, "diskperf_test_match", "Whether sdc matched.", prometheus::MetricType::Gauge),
               std::regex_search("sdc", re) ? 1 : 0, {});
    return std::nullopt;
  }
};

std::string http_post(int port, const std::string& path) {
  return http_request(port, "POST " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
}

// A gatherer of one collector of type C.
template <typename C>
std::shared_ptr<Gatherer> gatherer_of() {
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<C>());
  return std::make_shared<Gatherer>(std::move(cs));
}

}  // namespace

// Regression (issue 8): Debian's CivetWeb workers have 100 KiB stacks; a
// device regex nested 400 deep crashed the daemon at every scrape (SIGSEGV in
// std::regex), and a reload compiling one nested 300 deep crashed POST /-/reload.
TEST_CASE("HTTP server: scrapes and reloads that recurse deeply do not overflow a worker's stack", "[http]") {
  auto g = gatherer_of<DeepRegexCollector>();
  HttpOptions o;
  o.listen_address = "127.0.0.1:0";
  o.enable_lifecycle = true;
  int reloads = 0;
  HttpServer server(o, g, [&] {
    std::regex re(nested_regex(2000));
    ++reloads;
    return std::regex_search("sdc", re) ? std::vector<std::string>{} : std::vector<std::string>{"no match"};
  });
  int port = server.listening_ports().at(0);
  std::string m = http_get(port, "/metrics");
  CHECK(m.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(body(m).find("diskperf_test_match 1") != std::string::npos);
  CHECK(body(m).find("diskperf_scrape_collector_success{collector=\"deep_regex\"} 1") != std::string::npos);
  CHECK(http_post(port, "/-/reload").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(reloads == 1);
}

TEST_CASE("listen address translation", "[http]") {
  CHECK(civetweb_listening_port(":9859") == "9859");
  CHECK(civetweb_listening_port("0.0.0.0:9859") == "9859");
  CHECK(civetweb_listening_port("127.0.0.1:9859") == "127.0.0.1:9859");
  if (mg_check_feature(8)) {  // a CivetWeb with IPv6
    CHECK(civetweb_listening_port("[::1]:9859") == "[::1]:9859");
  } else {  // Debian 12's: refused with the reason, not "null context" at start
    CHECK_THROWS_WITH(civetweb_listening_port("[::1]:9859"),
                      "listen address '[::1]:9859': this CivetWeb is built without IPv6; use an IPv4 address or :port");
  }
  // One address only: CivetWeb would serve a list, with TLS on its last entry alone.
  CHECK_THROWS_WITH(civetweb_listening_port("127.0.0.1:19981,127.0.0.1:19982"),
                    "listen address '127.0.0.1:19981,127.0.0.1:19982' must be one host:port, without commas or spaces");
  CHECK_THROWS(civetweb_listening_port(" 127.0.0.1:9859"));
  CHECK_THROWS(civetweb_listening_port("9859"));
  CHECK_THROWS(civetweb_listening_port("host:"));
  CHECK_THROWS(civetweb_listening_port("host:99999"));
  CHECK_THROWS(civetweb_listening_port("host:12a"));
}

TEST_CASE("Accept-Encoding parsing", "[http]") {
  CHECK(accepts_gzip("gzip"));
  CHECK(accepts_gzip("identity, gzip;q=0.5"));
  CHECK(accepts_gzip("deflate, gzip"));
  CHECK_FALSE(accepts_gzip(nullptr));
  CHECK_FALSE(accepts_gzip("identity"));
  CHECK_FALSE(accepts_gzip("gzip;q=0"));
  CHECK_FALSE(accepts_gzip("x-gzip2"));
  // Codings are case-insensitive; "*" stands for any coding not named; tabs are whitespace.
  CHECK(accepts_gzip("GZIP"));
  CHECK(accepts_gzip("br,\tGzip ;q=0.8"));
  CHECK(accepts_gzip("*"));
  CHECK(accepts_gzip("*, gzip"));
  CHECK(accepts_gzip("identity;q=0, *;q=0.1"));
  CHECK_FALSE(accepts_gzip("*;q=0"));
  CHECK_FALSE(accepts_gzip("gzip;q=0, *"));
  CHECK_FALSE(accepts_gzip("gzip;Q=0.000"));
  CHECK(accepts_gzip("gzip;q=0.001"));
}

TEST_CASE("HTTP server serves metrics, landing page and health", "[http]") {
  auto g = gatherer_of<FixedCollector>();
  HttpOptions o;
  o.listen_address = "127.0.0.1:0";
  o.telemetry_path = "/custom-metrics";
  HttpServer server(o, g);
  auto ports = server.listening_ports();
  REQUIRE(ports.size() == 1);
  REQUIRE(ports[0] > 0);
  int port = ports[0];

  std::string m = http_get(port, "/custom-metrics");
  CHECK(m.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(m.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  CHECK(body(m).find("diskperf_test_value{device=\"sdc\"} 42") != std::string::npos);
  CHECK(body(m).find("diskperf_scrape_collector_success{collector=\"fixed\"} 1") != std::string::npos);

  std::string z = http_get(port, "/custom-metrics", "Accept-Encoding: gzip\r\n");
  CHECK(z.find("Content-Encoding: gzip") != std::string::npos);
  CHECK(gunzip(body(z)).find("diskperf_test_value{device=\"sdc\"} 42") != std::string::npos);

  std::string landing = http_get(port, "/");
  CHECK(landing.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(body(landing).find("href=\"/custom-metrics\"") != std::string::npos);
  CHECK(http_get(port, "/-/healthy").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(http_get(port, "/nope").rfind("HTTP/1.1 404", 0) == 0);

  // Concurrent scrapes are safe and all succeed.
  std::vector<std::thread> ts;
  std::atomic<int> good{0};
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&] {
      for (int j = 0; j < 20; ++j)
        if (body(http_get(port, "/custom-metrics")).find("diskperf_test_value") != std::string::npos) ++good;
    });
  for (auto& t : ts) t.join();
  CHECK(good == 160);
}

// Resident KiB of each anonymous mapping of exactly `size` bytes (Debian's
// CivetWeb gives its threads 100 KiB stacks: USE_STACK_SIZE=102400).
std::vector<long> resident_kib_of_mappings(std::size_t size) {
  std::vector<long> out;
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool match = false;
  while (std::getline(in, line)) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {};
    unsigned long off = 0;
    char dev[16] = {};
    unsigned long ino = 0;
    int used = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx %7s %lx %15s %lu %n", &lo, &hi, perms, &off, dev, &ino, &used) >= 6) {
      match = hi - lo == size && ino == 0 && line.find_first_not_of(' ', static_cast<std::size_t>(used)) == std::string::npos;
    } else if (match && line.rfind("Rss:", 0) == 0) {
      out.push_back(std::stol(line.substr(4)));
    }
  }
  return out;
}

// The workers take requests in turn; the stack pages a request touched (a
// handler runs 23 KiB below the top of a worker's stack) used to stay
// resident in every worker: 256 x 12 KiB. They are handed back when the
// connection is closed, so a worker holds what an idle one holds.
TEST_CASE("HTTP server: a worker's stack pages are handed back after each connection", "[http]") {
  auto g = gatherer_of<BigCollector>();
  HttpOptions o;
  o.listen_address = "127.0.0.1:0";
  o.num_threads = 3;
  HttpServer server(o, g);
  int port = server.listening_ports().at(0);
  REQUIRE(resident_kib_of_mappings(102400).size() >= 3);  // Debian's CivetWeb: the workers and the master
  for (int i = 0; i < 9; ++i) {
    CHECK(http_get(port, "/metrics").rfind("HTTP/1.1 200", 0) == 0);
    CHECK(http_get(port, "/-/healthy").rfind("HTTP/1.1 200", 0) == 0);
  }
  // The client sees the end of the response before CivetWeb's callback runs.
  long most = 0;
  for (int tries = 0; tries < 500; ++tries) {  // up to 5 s: under ASan on a loaded CI machine
    auto kib = resident_kib_of_mappings(102400);
    most = kib.empty() ? 0 : *std::max_element(kib.begin(), kib.end());
    if (most <= 12) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(most <= 12);  // the top pages (thread descriptor, TLS, the waiting worker's frames): as before a request
}

// HEAD gets the GET response's headers and no body (RFC 9110 9.3.2), as from
// Go's net/http (node_exporter); a method a path does not take gets 405 and
// Allow; an unknown path is 404 whatever the method.
TEST_CASE("HTTP server: HEAD, and 405 for methods a path does not take", "[http]") {
  auto g = gatherer_of<FixedCollector>();
  HttpOptions o;
  o.listen_address = "127.0.0.1:0";
  o.enable_lifecycle = true;
  int reloads = 0;
  HttpServer server(o, g, [&] {
    ++reloads;
    return std::vector<std::string>{};
  });
  const int port = server.listening_ports().at(0);
  auto request = [&](const std::string& method, const std::string& path) {
    return http_request(port, method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
  };
  for (const char* path : {"/metrics", "/-/healthy", "/"}) {
    INFO(path);
    const std::string head = request("HEAD", path);
    CHECK(head.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(body(head).empty());
  }
  const std::string head_metrics = request("HEAD", "/metrics");
  CHECK(head_metrics.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  CHECK(request("HEAD", "/-/healthy").find("Content-Length: 8\r\n") != std::string::npos);  // "Healthy\n"
  const std::string head_missing = request("HEAD", "/nope");
  CHECK(head_missing.rfind("HTTP/1.1 404", 0) == 0);
  CHECK(body(head_missing).empty());

  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
    for (const char* path : {"/metrics", "/-/healthy", "/"}) {
      INFO(method << " " << path);
      const std::string r = request(method, path);
      CHECK(r.rfind("HTTP/1.1 405", 0) == 0);
      CHECK(r.find("Allow: GET, HEAD\r\n") != std::string::npos);
    }
  CHECK(request("POST", "/nope").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(request("DELETE", "/nope").rfind("HTTP/1.1 404", 0) == 0);
  for (const char* method : {"GET", "HEAD", "DELETE", "PATCH", "OPTIONS"}) {
    INFO(method);
    const std::string r = request(method, "/-/reload");
    CHECK(r.rfind("HTTP/1.1 405", 0) == 0);
    CHECK(r.find("Allow: POST, PUT\r\n") != std::string::npos);
  }
  CHECK(reloads == 0);
  CHECK(request("POST", "/-/reload").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(request("PUT", "/-/reload").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(reloads == 2);
}

TEST_CASE("HTTP server reports a port it cannot bind", "[http]") {
  std::vector<std::unique_ptr<Collector>> cs;
  auto g = std::make_shared<Gatherer>(std::move(cs));
  HttpOptions o;
  o.listen_address = "127.0.0.1:0";
  HttpServer first(o, g);
  o.listen_address = "127.0.0.1:" + std::to_string(first.listening_ports().at(0));
  // The reason from a bind of our own (CivetWeb's constructor says only "null context").
  CHECK_THROWS_WITH(HttpServer(o, g), "cannot listen on " + o.listen_address + ": Address already in use");
  o.listen_address = "192.0.2.1:9859";  // TEST-NET-1 (RFC 5737): no interface has it
  CHECK_THROWS_WITH(HttpServer(o, g), "cannot listen on 192.0.2.1:9859: Cannot assign requested address");
  // A name (resolved as CivetWeb does; localhost from /etc/hosts, no DNS in a test), port in use.
  o.listen_address = "localhost:" + std::to_string(first.listening_ports().at(0));
  CHECK_THROWS_WITH(HttpServer(o, g), "cannot listen on " + o.listen_address + ": Address already in use");
}

TEST_CASE("text exposition: escaping, special values, shortest doubles, histograms", "[http]") {
  Families fs;
  auto& g = add_family(fs, "x_seconds", "Help with \\ and\nnewline.", prometheus::MetricType::Gauge);
  add_sample(g, 84356 / 1000.0, {{"device", "a\"b\\c\nd"}});
  add_sample(g, std::numeric_limits<double>::quiet_NaN(), {{"device", "nan"}});
  add_sample(g, -std::numeric_limits<double>::infinity(), {{"device", "inf"}});
  add_sample(g, 1e21, {});
  auto& h = add_family(fs, "lat_seconds", "Latency.", prometheus::MetricType::Histogram);
  h.add(Distribution{3, 0.25, {{0.001, 1}, {0.5, 3}}}, {{"probe", "p"}});
  CHECK(to_text(fs) ==
        "# HELP x_seconds Help with \\\\ and\\nnewline.\n"
        "# TYPE x_seconds gauge\n"
        "x_seconds{device=\"a\\\"b\\\\c\\nd\"} 84.356\n"
        "x_seconds{device=\"nan\"} NaN\n"
        "x_seconds{device=\"inf\"} -Inf\n"
        "x_seconds 1e+21\n"
        "# HELP lat_seconds Latency.\n"
        "# TYPE lat_seconds histogram\n"
        "lat_seconds_bucket{probe=\"p\",le=\"0.001\"} 1\n"
        "lat_seconds_bucket{probe=\"p\",le=\"0.5\"} 3\n"
        "lat_seconds_bucket{probe=\"p\",le=\"+Inf\"} 3\n"
        "lat_seconds_sum{probe=\"p\"} 0.25\n"
        "lat_seconds_count{probe=\"p\"} 3\n");
}

TEST_CASE("HTTP/1.1 scrapes are streamed in chunks, plain and gzip, with the same exposition", "[http]") {
  auto g = gatherer_of<BigCollector>();
  HttpOptions o;
  o.listen_address = "127.0.0.1:0";
  HttpServer server(o, g);
  const int port = server.listening_ports().at(0);
  const std::string resp10 = http_get(port, "/metrics");  // HTTP/1.0: Content-Length
  CHECK(resp10.find("Connection: close") != std::string::npos);
  const std::string whole = body(resp10);
  REQUIRE(whole.size() > 1000000);
  CHECK(whole.find("diskperf_test_big_total{device=\"dev29999\",op=\"read\"} 44998.5\n") != std::string::npos);

  const std::string get11 = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  std::string plain = http_request(port, get11 + "\r\n");
  CHECK(plain.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(plain.find("Transfer-Encoding: chunked") != std::string::npos);
  CHECK(plain.find("Content-Length") == std::string::npos);
  CHECK(plain.find("Connection: close") != std::string::npos);
  CHECK(stable_lines(dechunk(plain)) == stable_lines(whole));

  std::string z = http_request(port, get11 + "Accept-Encoding: gzip\r\n\r\n");
  CHECK(z.find("Content-Encoding: gzip") != std::string::npos);
  CHECK(z.find("Transfer-Encoding: chunked") != std::string::npos);
  CHECK(stable_lines(gunzip(dechunk(z))) == stable_lines(whole));
}

namespace {

// About 8 MB of text: more than the loopback socket buffers of a client
// that reads nothing (server send buffer up to 4 MiB, tcp_wmem).
class HugeCollector final : public Collector {
 public:
  std::string_view name() const override { return "huge"; }
  std::optional<std::string> collect(Families& out) override {
    auto& f = add_family(out, "diskperf_test_huge", "Long label values.", prometheus::MetricType::Gauge);
    const std::string pad(1000, 'x');
    for (int i = 0; i < 8000; ++i) f.add(i, {{"device", "dev" + std::to_string(i)}, {"pad", pad}});
    return std::nullopt;
  }
};

}  // namespace

// Breaker finding: a client that stopped reading for longer than the request
// timeout made one chunk write fail; the handler went on with the next chunks,
// so the body was corrupt (a chunk without its CRLF, followed by more chunks)
// and every later write waited out the timeout again (a worker held for
// minutes). Now the stream ends at the first failed write.
TEST_CASE("HTTP/1.1 stream: a client that stalls past the request timeout gets a prefix, never a spliced body",
          "[http]") {
  auto g = gatherer_of<HugeCollector>();
  HttpOptions o;
  o.listen_address = "127.0.0.1:0";
  o.request_timeout_ms = 200;
  HttpServer server(o, g);
  const int port = server.listening_ports().at(0);
  const std::string whole = body(http_get(port, "/metrics"));
  REQUIRE(whole.size() > 8000000);

  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  int small = 4096;
  REQUIRE(::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small) == 0);
  timeval tv{20, 0};
  REQUIRE(::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  REQUIRE(::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(4000));  // many request timeouts
  std::string resp;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) resp.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  REQUIRE(n == 0);  // the server closed the connection

  // Walk the chunks: the body must be a prefix of a well-formed chunked
  // stream of the exposition, cut off (no last chunk: the client fails the scrape).
  const std::string in = body(resp);
  std::string decoded;
  bool last_chunk = false;
  std::size_t pos = 0;
  while (pos < in.size()) {
    std::size_t eol = in.find("\r\n", pos);
    if (eol == std::string::npos) break;  // cut inside a chunk size line
    const std::size_t len = std::stoul(in.substr(pos, eol - pos), nullptr, 16);
    if (len == 0) {
      last_chunk = true;
      break;
    }
    const std::size_t data = eol + 2;
    if (data + len + 2 > in.size()) {  // cut inside this chunk: what came must be its start
      decoded.append(in, data, std::min(len, in.size() - data));
      if (in.size() > data + len) CHECK(in.compare(data + len, in.size() - data - len, "\r\n", in.size() - data - len) == 0);
      pos = in.size();
      break;
    }
    INFO("chunk at body offset " << pos << " of " << len << " bytes");
    REQUIRE(in.compare(data + len, 2, "\r\n") == 0);
    decoded.append(in, data, len);
    pos = data + len + 2;
  }
  CHECK_FALSE(last_chunk);  // 8 MB do not fit the socket buffers: the stall must have cut it
  CHECK(decoded.size() < whole.size());
  CHECK(whole.compare(0, decoded.size(), decoded) == 0);
}
