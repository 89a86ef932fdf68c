#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <sstream>
#include <thread>

#include "collectors/metric_families.h"
#include "daemon/gatherer.h"
#include "test_helpers.h"

using namespace diskperf;
using diskperf::test::sample;

namespace {

// A collector whose outcome the test switches.
class SwitchCollector final : public Collector {
 public:
  explicit SwitchCollector(bool* fail) : fail_(fail) {}
  std::string_view name() const override { return "switch"; }
  std::optional<std::string> collect(Families& out) override {
    add_sample(add_family(out, "diskperf_test_ok", "Test.", prometheus::MetricType::Gauge), 1, {});
    if (*fail_) return "source unreadable";
    return std::nullopt;
  }

 private:
  bool* fail_;
};

class ThrowingCollector final : public Collector {
 public:
  std::string_view name() const override { return "thrower"; }
  std::optional<std::string> collect(Families&) override { throw std::runtime_error("boom"); }
};

struct CaptureLog {
  std::ostringstream os;
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  CaptureLog() {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(os);
    auto l = std::make_shared<spdlog::logger>("capture", sink);
    l->set_pattern("%l %v");
    spdlog::set_default_logger(l);
  }
  ~CaptureLog() { spdlog::set_default_logger(previous); }
  std::size_t count(const std::string& needle) const {
    std::string s = os.str();
    std::size_t n = 0;
    for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
    return n;
  }
};

}  // namespace

TEST_CASE("gatherer logs a failing collector once, and once when it recovers", "[gatherer]") {
  CaptureLog log;
  bool fail = false;
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<SwitchCollector>(&fail));
  Gatherer g(std::move(cs));

  CHECK(sample(g.Collect(), "diskperf_scrape_collector_success", "collector", "switch") == 1);
  fail = true;
  for (int i = 0; i < 5; ++i) {
    auto fs = g.Collect();
    CHECK(sample(fs, "diskperf_scrape_collector_success", "collector", "switch") == 0);
    CHECK(sample(fs, "diskperf_test_ok") == 1);  // what it produced before failing is served
  }
  CHECK(log.count("warning collector switch failed: source unreadable") == 1);
  fail = false;
  for (int i = 0; i < 3; ++i) g.Collect();
  CHECK(log.count("info collector switch recovered") == 1);
  fail = true;
  g.Collect();
  CHECK(log.count("collector switch failed") == 2);
}

TEST_CASE("gatherer survives a collector that throws", "[gatherer]") {
  CaptureLog log;
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<ThrowingCollector>());
  Gatherer g(std::move(cs));
  auto fs = g.Collect();
  CHECK(sample(fs, "diskperf_scrape_collector_success", "collector", "thrower") == 0);
  CHECK(sample(fs, "diskperf_build_info") == 1);
  CHECK(log.count("unexpected exception: boom") == 1);
}

namespace {

// Sleeps, then adds one family named after it; records the order in which collectors started and
// how many ran at once.
struct Trace {
  std::mutex mu;
  std::vector<std::string> started;
  int running = 0, most = 0;
};
class SleepyCollector final : public Collector {
 public:
  SleepyCollector(std::string name, bool apart, Trace* trace) : name_(std::move(name)), apart_(apart), trace_(trace) {}
  std::string_view name() const override { return name_; }
  bool runs_apart() const override { return apart_; }
  std::optional<std::string> collect(Families& out) override {
    {
      std::lock_guard lock(trace_->mu);
      trace_->started.push_back(name_);
      trace_->most = std::max(trace_->most, ++trace_->running);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    add_sample(add_family(out, "diskperf_test_" + name_, "Test.", prometheus::MetricType::Gauge), 1, {});
    std::lock_guard lock(trace_->mu);
    --trace_->running;
    return std::nullopt;
  }

 private:
  std::string name_;
  bool apart_;
  Trace* trace_;
};

std::vector<std::string> family_names(const Families& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.name);
  return out;
}

}  // namespace

TEST_CASE("gatherer: a collector that runs apart runs beside the others, which keep their order", "[gatherer]") {
  for (std::size_t threads : {1u, 2u}) {
    Trace trace;
    std::vector<std::unique_ptr<Collector>> cs;
    cs.push_back(std::make_unique<SleepyCollector>("a", false, &trace));
    cs.push_back(std::make_unique<SleepyCollector>("q", true, &trace));
    cs.push_back(std::make_unique<SleepyCollector>("b", false, &trace));
    Gatherer g(std::move(cs), nullptr, threads);
    g.Collect();  // q runs apart from its second scrape on: it took more than kApartSeconds
    trace.started.clear();
    trace.most = 0;
    Families fs = g.Collect();
    INFO("threads " << threads);
    // The output is in the collectors' order, whoever finished first.
    CHECK(family_names(fs) == std::vector<std::string>{"diskperf_test_a", "diskperf_test_q", "diskperf_test_b",
                                                       "diskperf_scrape_collector_success",
                                                       "diskperf_scrape_collector_duration_seconds",
                                                       "diskperf_build_info"});
    CHECK(sample(fs, "diskperf_scrape_collector_success", "collector", "q") == 1);
    CHECK(*sample(fs, "diskperf_scrape_collector_duration_seconds", "collector", "q") >= 0.15);
    // a before b, always; q beside them with two threads.
    auto pos = [&](const std::string& n) {
      return std::find(trace.started.begin(), trace.started.end(), n) - trace.started.begin();
    };
    CHECK(pos("a") < pos("b"));
    // Two at once with two threads (q beside a or b), never a and b together.
    CHECK(trace.most == (threads == 1 ? 1 : 2));
  }
}

TEST_CASE("gatherer: a collector that asks to run apart but is quick runs in order with the others", "[gatherer]") {
  // Collectors that take no time: never worth a thread.
  struct Quick final : public Collector {
    Trace* trace;
    explicit Quick(Trace* t) : trace(t) {}
    std::string_view name() const override { return "quick"; }
    bool runs_apart() const override { return true; }
    std::optional<std::string> collect(Families&) override {
      std::lock_guard lock(trace->mu);
      trace->started.push_back("quick");
      trace->most = std::max(trace->most, trace->running + 1);
      return std::nullopt;
    }
  };
  Trace trace;
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(std::make_unique<SleepyCollector>("a", false, &trace));
  cs.push_back(std::make_unique<Quick>(&trace));
  Gatherer g(std::move(cs), nullptr, 2);
  for (int i = 0; i < 3; ++i) g.Collect();
  CHECK(trace.most == 1);  // never beside "a"
  CHECK(trace.started == std::vector<std::string>{"a", "quick", "a", "quick", "a", "quick"});
}
