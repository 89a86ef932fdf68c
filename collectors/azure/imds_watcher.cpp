#include "collectors/azure/imds_watcher.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "collectors/azure/imds_client.h"
#include "collectors/host_fs.h"

namespace diskperf {
namespace {

using Clock = std::chrono::steady_clock;

// Azure's DMI identity (the chassis asset tag every Azure VM carries).
constexpr std::string_view kAzureVendor = "Microsoft Corporation";
constexpr std::string_view kAzureAssetTag = "7783-7084-3265-9085-8269-3286-77";

std::string dmi_value(const std::string& sysfs, const char* name) {
  FileContent f = read_file(join_path(sysfs, std::string("class/dmi/id/") + name), 4096);
  if (!f.ok()) return {};
  std::string& s = f.data;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}


std::string request_url(const std::string& base) {
  std::string url = base;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + kImdsComputePath;
}

}  // namespace

std::optional<ImdsMode> parse_imds_mode(std::string_view s) {
  if (s == "auto") return ImdsMode::auto_detect;
  if (s == "on") return ImdsMode::on;
  if (s == "off") return ImdsMode::off;
  return std::nullopt;
}

bool azure_vm_by_dmi(const std::string& sysfs) {
  return dmi_value(sysfs, "sys_vendor") == kAzureVendor && dmi_value(sysfs, "chassis_asset_tag") == kAzureAssetTag;
}

ImdsWatcher::ImdsWatcher(ImdsOptions options, std::string sysfs)
    : options_(std::move(options)), sysfs_(std::move(sysfs)), state_(std::make_shared<const ImdsState>()) {}

ImdsWatcher::~ImdsWatcher() { stop(); }

void ImdsWatcher::adopt(std::shared_ptr<const ImdsState> previous) {
  if (!previous) return;
  std::lock_guard lock(mu_);
  state_ = std::move(previous);
}

void ImdsWatcher::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stopping_ || options_.mode == ImdsMode::off) return;
  thread_ = std::thread([this] { run(); });
}

void ImdsWatcher::stop() {
  std::thread t;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    t = std::move(thread_);
  }
  cancel_ = true;  // ends a request in flight (ImdsRequest polls it)
  cv_.notify_all();
  if (t.joinable()) t.join();
}

void ImdsWatcher::refresh_once() { fetch(); }

std::shared_ptr<const ImdsState> ImdsWatcher::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

std::string ImdsWatcher::device_list() const {
  std::vector<std::string> names = list_dir(join_path(sysfs_, "block"));
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += n + '\n';
  return out;
}

void ImdsWatcher::run() {
  const auto refresh = std::max<std::chrono::milliseconds>(options_.refresh, kMinSpacing);
  const auto first_retry = std::min(options_.first_retry, refresh);
  const auto device_poll = std::max<std::chrono::milliseconds>(options_.device_poll, std::chrono::milliseconds(10));
  auto retry = first_retry;
  auto next_fetch = Clock::now();
  auto next_poll = next_fetch + device_poll;
  std::string devices = device_list();
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_until(lock, std::min(next_fetch, next_poll), [this] { return stopping_; });
      if (stopping_) return;
    }
    if (Clock::now() >= next_poll) {
      next_poll = Clock::now() + device_poll;
      // A disk attached or detached: its document changed (the wait for kMinSpacing still holds).
      if (std::string now = device_list(); now != devices) {
        spdlog::debug("azure imds: block devices changed, asking again");
        devices = std::move(now);
        next_fetch = Clock::now();
      }
    }
    if (Clock::now() < next_fetch) continue;
    const Outcome outcome = fetch();
    if (outcome == Outcome::cancelled) return;
    if (outcome == Outcome::ok) {
      retry = first_retry;
      next_fetch = Clock::now() + refresh;
    } else {
      next_fetch = Clock::now() + retry;
      retry = std::min<std::chrono::milliseconds>(retry * 2, refresh);
    }
  }
}

bool ImdsWatcher::wait_spacing() {
  std::unique_lock lock(mu_);
  if (last_request_ != Clock::time_point{}) {
    cv_.wait_until(lock, last_request_ + kMinSpacing, [this] { return stopping_ || cancel_.load(); });
  }
  return !stopping_ && !cancel_.load();
}

ImdsWatcher::Outcome ImdsWatcher::fetch() {
  std::lock_guard request_lock(request_mu_);
  if (!wait_spacing()) return Outcome::cancelled;
  last_request_ = Clock::now();
  const ImdsResponse r = ImdsRequest::get(options_.url, options_.timeout, &cancel_);
  if (cancel_.load()) return Outcome::cancelled;  // stopping: nothing to publish
  std::string error = r.error;
  std::shared_ptr<const ImdsCompute> compute;
  if (error.empty()) {
    ImdsParse p = parse_imds_compute(r.body);
    if (p.compute) compute = std::make_shared<const ImdsCompute>(std::move(*p.compute));
    else error = "bad document: " + p.error;
  }
  publish(std::move(compute), error);
  return error.empty() ? Outcome::ok : Outcome::failed;
}

void ImdsWatcher::publish(std::shared_ptr<const ImdsCompute> compute, const std::string& error) {
  auto next = std::make_shared<ImdsState>();
  std::shared_ptr<const ImdsState> prev;
  {
    std::lock_guard lock(mu_);
    prev = state_;
    *next = *prev;
    ++next->requests;
    next->up = error.empty();
    next->last_error = error;
    if (error.empty()) {
      next->compute = std::move(compute);
      next->last_success_unix = unix_now();
    } else {
      ++next->failures;
    }
    state_ = next;
  }
  const std::string url = request_url(options_.url);
  const bool streak_before = prev->requests > 0 && !prev->up;
  if (!error.empty()) {
    if (!streak_before) {
      spdlog::warn("azure imds: request to {} failed: {}; {}", url, error,
                   next->compute ? "keeping the last good document" : "no document yet");
    } else {
      spdlog::debug("azure imds: still no good answer from {}: {}", url, error);
    }
    return;
  }
  const ImdsCompute& c = *next->compute;
  if (streak_before) {
    spdlog::info("azure imds: {} answers again ({} in {}, {} data disks)", url, log_text(c.vm_size),
                 log_text(c.location), c.data_disks.size());
  } else if (prev->requests == 0) {
    spdlog::info("azure imds: {} in {}, {} data disks", log_text(c.vm_size), log_text(c.location),
                 c.data_disks.size());
  }
}

}  // namespace diskperf
