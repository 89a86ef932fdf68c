#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "collectors/azure/imds_client.h"
#include "collectors/azure/imds_watcher.h"
#include "imds_test_server.h"
#include "test_helpers.h"

using namespace diskperf;
using namespace std::chrono_literals;
using diskperf::test::fixture;
using diskperf::test::ImdsTestServer;
using diskperf::test::slurp;
using diskperf::test::TempDir;
using Mode = ImdsTestServer::Mode;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kDoc = slurp(fixture("azure/imds/scsi_vm.json"));

long long ms_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

long long gap_ms(const std::vector<Clock::time_point>& t, std::size_t i) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t[i] - t[i - 1]).count();
}

ImdsResponse get(const ImdsTestServer& s, std::chrono::milliseconds timeout = 2000ms) {
  return ImdsRequest::get(s.url(), timeout);
}

// The default logger's lines ("warn ...", "info ...") while in scope.
struct CaptureLog {
  std::ostringstream os;
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  CaptureLog() {
    auto l = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(os));
    l->set_pattern("%l %v");
    spdlog::set_default_logger(l);
  }
  ~CaptureLog() { spdlog::set_default_logger(previous); }
  std::size_t count(const std::string& needle) const {
    const std::string s = os.str();
    std::size_t n = 0;
    for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
    return n;
  }
};

// Sets environment variables for the scope of a test, restoring them after.
struct ScopedEnv {
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  void set(const std::string& k, const std::string& v) {
    const char* old = std::getenv(k.c_str());
    saved.emplace_back(k, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(k.c_str(), v.c_str(), 1);
  }
  ~ScopedEnv() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second) ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else ::unsetenv(it->first.c_str());
    }
  }
};

ImdsOptions options_for(const ImdsTestServer& s) {
  ImdsOptions o;
  o.mode = ImdsMode::on;
  o.url = s.url();
  return o;
}

}  // namespace

TEST_CASE("imds client: a plain GET with Metadata: true; HTTP errors by status", "[imds]") {
  ImdsTestServer s(kDoc);
  ImdsResponse r = ImdsRequest::get(s.url() + "/", 2000ms);  // a trailing '/' is dropped
  CHECK(r.ok());
  CHECK(r.http_status == 200);
  CHECK(r.body == kDoc);
  const std::string req = s.last_request();
  CHECK(req.rfind("GET /metadata/instance/compute?api-version=2021-05-01 HTTP/1.1\r\n", 0) == 0);
  CHECK(req.find("\r\nMetadata: true\r\n") != std::string::npos);
  CHECK(req.find("X-Forwarded-For") == std::string::npos);

  const std::pair<Mode, std::string> errors[] = {
      {Mode::bad_request, "HTTP 400"}, {Mode::error500, "HTTP 500"}, {Mode::error429, "HTTP 429"},
      {Mode::redirect, "HTTP 302"}};
  for (const auto& [mode, error] : errors) {
    s.mode = mode;
    r = get(s);
    CHECK(r.error == error);
  }
  CHECK(s.requests() == 5);  // the redirect was not followed
  CHECK(r.http_status == 302);
  s.mode = Mode::garbage;  // a 200 whatever its body: the parser judges it
  r = get(s);
  CHECK(r.ok());
  CHECK(r.body == "<html>Service Unavailable</html>");
}

TEST_CASE("imds client: refused, non-http, oversized", "[imds][bad-input]") {
  const std::string refused = "http://127.0.0.1:" + std::to_string(diskperf::test::closed_port());
  CHECK(ImdsRequest::get(refused, 2000ms).error == "connection refused");
  CHECK(ImdsRequest::get(refused, 2000ms).http_status == 0);
  CHECK(ImdsRequest::get("https://127.0.0.1:1", 2000ms).error == "not a plain http:// URL");
  CHECK(ImdsRequest::get("file:///etc", 2000ms).error == "not a plain http:// URL");
  ImdsTestServer s(kDoc);
  for (Mode m : {Mode::big, Mode::big_unsized}) {
    s.mode = m;
    const ImdsResponse r = get(s);
    CHECK(r.error == "body over 1048576 bytes");
    CHECK(r.body.empty());
  }
}

TEST_CASE("imds client: proxy variables are ignored", "[imds]") {
  ImdsTestServer s(kDoc);
  const std::string dead = "http://127.0.0.1:" + std::to_string(diskperf::test::closed_port());
  ScopedEnv env;
  for (const char* k : {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}) env.set(k, dead);
  env.set("no_proxy", "");
  env.set("NO_PROXY", "");
  const ImdsResponse r = get(s);
  CHECK(r.error.empty());
  CHECK(r.http_status == 200);
  CHECK(s.last_request().rfind("GET /metadata/", 0) == 0);  // origin form: no proxy in between
}

TEST_CASE("imds client: slow, hung and cancelled requests", "[imds]") {
  ImdsTestServer s(kDoc);
  s.mode = Mode::slow;
  s.slow_ms = 150;
  CHECK(get(s, 2000ms).ok());
  s.slow_ms = 2000;
  auto t0 = Clock::now();
  CHECK(get(s, 200ms).error == "timeout after 200 ms");
  CHECK(ms_since(t0) < 600);

  s.mode = Mode::hang;
  t0 = Clock::now();
  CHECK(get(s, 300ms).error == "timeout after 300 ms");
  const auto timed_out = ms_since(t0);
  CHECK(timed_out >= 290);
  CHECK(timed_out < 800);

  std::atomic<bool> cancel{false};
  std::optional<ImdsResponse> r;
  t0 = Clock::now();
  std::thread request([&] { r = ImdsRequest::get(s.url(), 10000ms, &cancel); });
  REQUIRE(s.wait_requests(s.requests() + 1, 2000ms));
  const auto cancelled_at = Clock::now();
  cancel = true;
  request.join();
  const auto cancel_ms = ms_since(cancelled_at);
  REQUIRE(r);
  CHECK(r->error == "cancelled");
  CHECK(cancel_ms < 300);
  // Already cancelled: no request at all.
  const std::size_t before = s.requests();
  CHECK(ImdsRequest::get(s.url(), 1000ms, &cancel).error == "cancelled");
  CHECK(s.requests() == before);
}

TEST_CASE("imds watcher: refresh_once publishes a document", "[imds]") {
  ImdsTestServer s(kDoc);
  ImdsWatcher w(options_for(s), "/nonexistent");
  auto st = w.state();
  REQUIRE(st);
  CHECK_FALSE(st->compute);
  CHECK_FALSE(st->up);
  CHECK(st->last_success_unix == 0);
  CHECK(st->requests == 0);
  const double before = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  w.refresh_once();
  st = w.state();
  REQUIRE(st->compute);
  CHECK(st->up);
  CHECK(st->last_error.empty());
  CHECK(st->compute->vm_size == "Standard_E16ds_v5");
  CHECK(st->compute->data_disks.size() == 4);
  CHECK(st->requests == 1);
  CHECK(st->failures == 0);
  CHECK(st->last_success_unix >= before);
  CHECK(st->last_success_unix < before + 5);
}

TEST_CASE("imds watcher: a failure keeps the last good document; spacing; one warning a streak", "[imds]") {
  CaptureLog log;
  ImdsTestServer s(kDoc);
  ImdsWatcher w(options_for(s), "/nonexistent");
  auto t0 = Clock::now();
  w.refresh_once();
  const auto good = w.state();
  REQUIRE(good->up);

  s.mode = Mode::error500;
  w.refresh_once();
  const auto spaced = ms_since(t0);
  auto st = w.state();
  CHECK_FALSE(st->up);
  CHECK(st->last_error == "HTTP 500");
  CHECK(st->compute == good->compute);
  CHECK(st->last_success_unix == good->last_success_unix);
  CHECK(st->requests == 2);
  CHECK(st->failures == 1);
  s.mode = Mode::garbage;
  w.refresh_once();
  st = w.state();
  CHECK(st->last_error.rfind("bad document: not JSON", 0) == 0);
  CHECK(st->compute == good->compute);
  CHECK(st->failures == 2);

  s.mode = Mode::ok;
  w.refresh_once();
  st = w.state();
  CHECK(st->up);
  CHECK(st->last_error.empty());
  CHECK(st->last_success_unix > good->last_success_unix);
  CHECK(st->requests == 4);

  // Two requests never less than kMinSpacing apart, refresh_once included.
  CHECK(spaced >= 1000);
  const auto times = s.times();
  REQUIRE(times.size() == 4);
  for (std::size_t i = 1; i < times.size(); ++i) CHECK(gap_ms(times, i) >= 950);
  const std::string url = s.url() + kImdsComputePath;
  CHECK(log.count("warning azure imds: request to " + url + " failed: HTTP 500; keeping the last good document") == 1);
  CHECK(log.count("warning ") == 1);
  CHECK(log.count("info azure imds: " + url + " answers again (Standard_E16ds_v5 in westeurope, 4 data disks)") == 1);
}

TEST_CASE("imds watcher: asks at start and every refresh; state() from many threads", "[imds]") {
  ImdsTestServer s(kDoc);
  ImdsOptions o = options_for(s);
  o.refresh = 1000ms;
  ImdsWatcher w(o, "/nonexistent");
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  std::atomic<std::uint64_t> seen{0};
  for (int i = 0; i < 4; ++i)
    readers.emplace_back([&] {
      while (!done) seen = std::max<std::uint64_t>(seen, w.state()->requests);
    });
  w.start();
  REQUIRE(s.wait_requests(2, 2500ms));
  w.stop();
  done = true;
  for (auto& t : readers) t.join();
  const auto times = s.times();
  CHECK(gap_ms(times, 1) >= 950);
  CHECK(gap_ms(times, 1) < 1500);
  CHECK(w.state()->up);
  CHECK(seen >= 1);
}

TEST_CASE("imds watcher: asks again when <sysfs>/block changes", "[imds]") {
  ImdsTestServer s(kDoc);
  TempDir sysfs;
  sysfs.write("block/sda/size", "1\n");
  ImdsOptions o = options_for(s);
  o.device_poll = 50ms;
  ImdsWatcher w(o, sysfs.str());
  w.start();
  REQUIRE(s.wait_requests(1, 1000ms));
  std::this_thread::sleep_for(200ms);
  CHECK(s.requests() == 1);  // nothing changed: the refresh interval is 10 min
  sysfs.write("block/sdb/size", "1\n");
  REQUIRE(s.wait_requests(2, 2000ms));
  CHECK(gap_ms(s.times(), 1) >= 950);  // still kMinSpacing after the first
  w.stop();
}

TEST_CASE("imds watcher: retries after a failure, backing off", "[imds]") {
  CaptureLog log;
  ImdsTestServer s(kDoc);
  s.mode = Mode::garbage;
  ImdsOptions o = options_for(s);
  o.first_retry = 1000ms;
  o.refresh = 10000ms;
  ImdsWatcher w(o, "/nonexistent");
  w.start();
  REQUIRE(s.wait_requests(3, 4500ms));
  w.stop();
  const auto times = s.times();
  CHECK(gap_ms(times, 1) >= 950);
  CHECK(gap_ms(times, 1) < 1500);
  CHECK(gap_ms(times, 2) >= 1950);
  CHECK(gap_ms(times, 2) < 2500);
  const auto st = w.state();
  CHECK_FALSE(st->up);
  CHECK_FALSE(st->compute);
  CHECK(st->failures == 3);
  CHECK(log.count("warning azure imds: request to " + s.url() + kImdsComputePath +
                  " failed: bad document: not JSON (32 bytes); no document yet") == 1);
  CHECK(log.count("warning ") == 1);
}

TEST_CASE("imds watcher: stop() returns at once while a request hangs", "[imds]") {
  ImdsTestServer s(kDoc);
  s.mode = Mode::hang;
  ImdsOptions o = options_for(s);
  o.timeout = 30000ms;
  auto w = std::make_unique<ImdsWatcher>(o, "/nonexistent");
  w->start();
  REQUIRE(s.wait_requests(1, 2000ms));
  auto t0 = Clock::now();
  w->stop();
  const auto stop_ms = ms_since(t0);
  CHECK(stop_ms < 500);
  CHECK(w->state()->requests == 0);  // a cancelled request is not a result
  w->stop();                         // again: nothing to do
  w->refresh_once();                 // after stop: cancelled at once
  CHECK(s.requests() == 1);

  // The destructor stops a running watcher the same way.
  auto w2 = std::make_unique<ImdsWatcher>(o, "/nonexistent");
  w2->start();
  REQUIRE(s.wait_requests(2, 2000ms));
  t0 = Clock::now();
  w2.reset();
  CHECK(ms_since(t0) < 500);
  // Mode off: start() starts nothing.
  o.mode = ImdsMode::off;
  ImdsWatcher off(o, "/nonexistent");
  off.start();
  std::this_thread::sleep_for(100ms);
  CHECK(s.requests() == 2);
}
