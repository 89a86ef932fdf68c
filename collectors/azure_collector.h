#pragma once
// azure collector: the Azure Enhanced Monitoring PerfCounters file
// (--azure.perfcounters-file, default /var/lib/AzureEnhancedMonitor/PerfCounters)
// as diskperf_azure_* families: each disk's Azure identity, storage type,
// caching and SLA caps; the VM's size and caps; per-storage-account minute
// metrics of unmanaged Standard disks; and the health of the file itself.
// Metric table: docs/azure.md.
//
// The extension truncates and rewrites the file in place every 60 s, so a
// read can catch it empty or half written (a torn read). Such a read is
// counted and the last good parse, an immutable snapshot, is served instead.
// An absent file is normal (off Azure, or with the newer SAP extension): it
// is reported as not present and the collector succeeds.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "collectors/collector.h"
#include "collectors/perfcounters_parser.h"

namespace diskperf {

/// The path the extension writes (aem.py: LibDir + "PerfCounters").
inline constexpr const char* kDefaultPerfCountersFile = "/var/lib/AzureEnhancedMonitor/PerfCounters";

class AzureCollector final : public Collector {
 public:
  /// Unix time now, in seconds. Injected so tests can pin ages.
  using Clock = std::function<double()>;
  /// Files larger than this are refused (the real file is ~5 KiB).
  static constexpr std::size_t kMaxFileBytes = 1u << 20;
  /// Staleness threshold: older than this many refresh intervals.
  static constexpr double kStaleIntervals = 3;
  /// Content lacking the writer's last block (config;Virtualization Solution
  /// Version) is served only when no complete content was seen before and the
  /// file has not been modified for this long (the writer is not at work).
  static constexpr double kSettleSeconds = 1;
  /// Refresh interval assumed when no counter states one (aem.py's 60 s).
  static constexpr double kDefaultRefreshSeconds = 60;

  explicit AzureCollector(std::string perfcounters_file, Clock now = {});
  std::string_view name() const override { return "azure"; }
  /// Never fails for an absent file; fails (serving the last good parse) when
  /// the file exists but cannot be read or is over kMaxFileBytes.
  std::optional<std::string> collect(Families& out) override;
  /// The parse being served (the last good read), or nullptr when none (absent file, no scrape
  /// yet). Immutable; shared with the tier collector (collectors/tier_collector.h).
  std::shared_ptr<const PerfCountersParse> last_parse() const;

 private:
  struct Snapshot {
    PerfCountersParse parse;
    bool has_end_marker = false;  // see has_end_marker() in the .cpp
  };
  std::shared_ptr<const Snapshot> last_good() const;

  std::string path_;
  Clock now_;
  mutable std::mutex mu_;                   // guards last_good_ (the pointer, not the snapshot)
  std::shared_ptr<const Snapshot> last_good_;
  std::atomic<std::uint64_t> torn_reads_{0};
};

}  // namespace diskperf
