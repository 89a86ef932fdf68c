#include "daemon/imds_slot.h"

#include <spdlog/spdlog.h>

namespace diskperf {

std::optional<ImdsOptions> imds_options(const Options& o, const Config& cfg) {
  ImdsOptions out;
  const std::string mode = o.azure_imds_mode ? *o.azure_imds_mode : cfg.azure.imds.value_or("auto");
  if (mode == "off") return std::nullopt;
  out.mode = mode == "on" ? ImdsMode::on : ImdsMode::auto_detect;
  if (o.azure_imds_url) out.url = *o.azure_imds_url;
  else if (cfg.azure.imds_url) out.url = *cfg.azure.imds_url;
  if (o.azure_imds_timeout) out.timeout = *o.azure_imds_timeout;
  else if (cfg.azure.imds_timeout) out.timeout = *cfg.azure.imds_timeout;
  if (o.azure_imds_refresh) out.refresh = *o.azure_imds_refresh;
  else if (cfg.azure.imds_refresh) out.refresh = *cfg.azure.imds_refresh;
  // auto: never a request off Azure, where 169.254.169.254 may be another cloud's metadata service.
  if (out.mode == ImdsMode::auto_detect && !azure_vm_by_dmi(o.paths.sysfs)) {
    spdlog::debug("azure imds: not asked: {}/class/dmi/id does not say Azure (--azure.imds=on to ask anyway)",
                  o.paths.sysfs);
    return std::nullopt;
  }
  return out;
}

std::shared_ptr<const ImdsWatcher> ImdsSlot::apply(const std::optional<ImdsOptions>& options,
                                                   const std::string& sysfs) {
  std::shared_ptr<ImdsWatcher> old, now;
  {
    std::lock_guard lock(mu_);
    if (options == options_) return watcher_;
    old = std::move(watcher_);
    options_ = options;
    if (options) {
      watcher_ = std::make_shared<ImdsWatcher>(*options, sysfs);
      if (old) watcher_->adopt(old->state());  // the last good document outlives a reload
    }
    now = watcher_;
  }
  if (old) old->stop();
  if (now && background_) now->start();
  if (now) spdlog::info("azure imds: asking {} (refresh every {} s)", options->url, options->refresh.count() / 1000);
  return now;
}

std::shared_ptr<ImdsWatcher> ImdsSlot::current() const {
  std::lock_guard lock(mu_);
  return watcher_;
}

void ImdsSlot::stop() {
  if (auto w = current()) w->stop();
}

}  // namespace diskperf
