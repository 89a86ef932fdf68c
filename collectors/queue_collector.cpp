#include "collectors/queue_collector.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <exception>
#include <map>
#include <unordered_map>
#include <set>
#include <vector>

#include "collectors/due_time.h"
#include "collectors/large_stack.h"
#include "collectors/lazy_family.h"
#include "collectors/metric_families.h"
#include "collectors/stable_names.h"

#include <spdlog/spdlog.h>

namespace diskperf {
namespace {

using prometheus::MetricType;

// A device's settings and facts: read when its cached ones are due
// (QueueCollector::Settings), each file opened, read and closed.
constexpr std::array<const char*, 16> kSettingsAttrs{
    "queue/max_hw_sectors_kb", "queue/logical_block_size", "queue/physical_block_size",
    "queue/minimum_io_size",   "queue/optimal_io_size",    "device/model",
    "device/vendor",           "wwid",                     "device/wwid",
    "device/queue_depth",      "queue/nr_requests",        "queue/max_sectors_kb",
    "queue/read_ahead_kb",     "queue/rotational",         "queue/scheduler",
    "queue/write_cache",
};

// Read at every scrape, through descriptors the device's held directory keeps: `inflight`, and
// `size` for a device that <procfs>/partitions does not list.
constexpr const char* kInflightAttr = "inflight";
constexpr const char* kSizeAttr = "size";

constexpr std::size_t kMaxAttrBytes = 4096;

// An attribute of the parent device (device/queue_depth, device/model, ...): a
// virtual device (BlockDevices::Device::is_virtual) has none, so it is not
// looked for there (an open that fails at every scrape).
bool parent_attr(std::string_view name) { return name.starts_with("device/"); }

// Reads the settings files below `dir` into `q`; a virtual device's parent attributes are skipped.
void read_settings_attrs(const HostDir& dir, bool is_virtual, QueueSettings& q) {
  for (const char* name : kSettingsAttrs) {
    if (is_virtual && parent_attr(name)) continue;
    FileContent f = dir.read_file(name, kMaxAttrBytes);
    if (f.ok()) parse_queue_attr(name, f.data, q);
  }
}

struct Gauge {
  const char* name;
  const char* help;
  std::optional<std::uint64_t> QueueSettings::*field;
};

constexpr std::array<Gauge, 11> kGauges{{
    {"diskperf_disk_queue_depth",
     "SCSI device queue depth: commands the host may have outstanding on the device (device/queue_depth).",
     &QueueSettings::queue_depth},
    {"diskperf_disk_nr_requests", "Requests the block layer may allocate per queue (queue/nr_requests).",
     &QueueSettings::nr_requests},
    {"diskperf_disk_max_sectors_bytes", "Largest request the block layer issues, in bytes (queue/max_sectors_kb).",
     &QueueSettings::max_sectors_bytes},
    {"diskperf_disk_max_hw_sectors_bytes", "Largest request the hardware accepts, in bytes (queue/max_hw_sectors_kb).",
     &QueueSettings::max_hw_sectors_bytes},
    {"diskperf_disk_read_ahead_bytes", "Read-ahead window in bytes (queue/read_ahead_kb).",
     &QueueSettings::read_ahead_bytes},
    {"diskperf_disk_logical_block_size_bytes", "Logical block size in bytes (queue/logical_block_size).",
     &QueueSettings::logical_block_size},
    {"diskperf_disk_physical_block_size_bytes", "Physical block size in bytes (queue/physical_block_size).",
     &QueueSettings::physical_block_size},
    {"diskperf_disk_minimum_io_size_bytes", "Preferred minimum I/O size in bytes (queue/minimum_io_size).",
     &QueueSettings::minimum_io_size},
    {"diskperf_disk_optimal_io_size_bytes",
     "Preferred I/O size in bytes, e.g. a stripe width; 0 when none is reported (queue/optimal_io_size).",
     &QueueSettings::optimal_io_size},
    {"diskperf_disk_rotational", "1 for a rotational device, 0 for a solid-state one (queue/rotational).",
     &QueueSettings::rotational},
    {"diskperf_disk_size_bytes", "Device size in bytes (size, in 512-byte sectors).", &QueueSettings::size_bytes},
}};

// A device's row: its live attributes (inflight, and size read now or kept) and its
// settings (cached, or read now), each QueueSettings with only its own fields
// set; pointers into the scrape's listing and reads, valid until collect()
// returns.
struct DeviceRow {
  const std::string* device;
  const QueueSettings* live;
  const QueueSettings* fixed;
  std::optional<std::uint64_t> hw_queues;
  /// The field from whichever of live and fixed sets it.
  template <typename T>
  const std::optional<T>& get(std::optional<T> QueueSettings::*field) const {
    return live->*field ? live->*field : fixed->*field;
  }
};

std::string_view or_empty(const std::optional<std::string>& v) { return v ? std::string_view(*v) : ""; }

using PartitionRow = QueueCollector::PartitionRow;

}  // namespace

QueueCollector::QueueCollector(std::shared_ptr<BlockView> view, std::shared_ptr<const DeviceFilter> filter,
                               std::size_t read_threads, std::chrono::nanoseconds settings_max_age)
    : read_threads_(std::max<std::size_t>(read_threads, 1)),
      settings_max_age_(std::max(settings_max_age, std::chrono::nanoseconds::zero())),
      view_(std::move(view)),
      filter_(std::move(filter)) {}

QueueCollector::QueueCollector(const HostPaths& paths, std::shared_ptr<const DeviceFilter> filter)
    : QueueCollector(std::make_shared<BlockView>(paths, nullptr), std::move(filter)) {}

std::size_t QueueCollector::settings_reads() const {
  std::lock_guard lock(mu_);
  return settings_reads_;
}

std::optional<std::string> QueueCollector::collect(Families& out) {
  const std::shared_ptr<const BlockDevices::Listing> listing = view_->devices();
  if (listing->error) return listing->error;
  const auto now = clock_();

  // Partitions by disk (the listing's are sorted by name).
  std::unordered_map<std::string_view, std::vector<const BlockDevices::Partition*>> parts_of;
  for (const BlockDevices::Partition& p : listing->partitions) parts_of[p.disk].push_back(&p);
  // Sizes in KiB of disks and partitions from <procfs>/partitions (one read for all, the same
  // numbers as each device's `size`, halved): a disk listed there whose size has not changed is
  // not read (its cached size is shown), one whose size did is read again at once; a partition
  // resized in place (growpart, BLKPG_RESIZE_PARTITION) changes neither its disk's size nor the
  // listing. A device the file does not list (no capacity, hidden, removable; or the file
  // cannot be read) has its `size` read at every scrape, and a partition not listed makes its
  // disk due (the cost of a read, rather than a size that may be stale).
  const std::shared_ptr<const ProcPartitionsRead> proc_parts = view_->proc_partitions();  // logs a failure
  const bool partitions_readable = !proc_parts->error;
  const std::unordered_map<std::string, std::uint64_t>& kib_of = proc_parts->kib;
  // Whether a size in bytes is `kib` KiB as <procfs>/partitions rounds it (sectors / 2).
  auto same_kib = [](const std::optional<std::uint64_t>& bytes, std::uint64_t kib) {
    return bytes && (*bytes / 512) >> 1 == kib;
  };
  // Whether the cached partitions of a disk still are those of the listing, at their sizes.
  auto same_partitions = [&](const Settings& c, const std::vector<const BlockDevices::Partition*>& listed) {
    if (listed.size() != c.partition_keys.size()) return false;
    for (std::size_t i = 0; i < listed.size(); ++i)
      if (listed[i]->name != c.partition_keys[i].first || listed[i]->ino != c.partition_keys[i].second) return false;
    for (const PartitionRow& pr : c.partitions) {
      auto kib = kib_of.find(pr.device);
      if (kib == kib_of.end() || !same_kib(pr.size_bytes, kib->second)) return false;
    }
    return true;
  };
  // The devices to read, each with its cached settings (null: none).
  struct Pending {
    const BlockDevices::Device* device;
    std::string identity;
    std::shared_ptr<const Settings> cached;
  };
  std::vector<Pending> pending;
  pending.reserve(listing->devices.size());
  for (const BlockDevices::Device& d : listing->devices) {
    if (!filter_->accepts(d.name, DeviceKind::whole)) continue;  // /sys/block lists no partitions
    if (before_read_) before_read_(d.name);
    // Identity: major:minor, plus the /sys/block entry's inode (a new device
    // under the same name and number).
    const FileContent devno = d.dev();
    // Gone (absent, vanished), or nothing of it can be read (a /sys/block entry that is a link
    // loop or cannot be opened, in a captured tree): no series rather than rows of empty labels.
    if (!devno.ok()) continue;
    std::string identity;
    if (!trim_attr(devno.data).empty())
      identity = std::string(trim_attr(devno.data)) + "|" + std::to_string(d.ino);
    pending.push_back({&d, std::move(identity), nullptr});
  }
  {
    std::lock_guard lock(mu_);
    for (Pending& p : pending)
      if (auto it = cache_.find(p.device->name); it != cache_.end()) p.cached = it->second;
  }
  // Each device's live files, then its settings when they are due; on up to
  // read_threads_ threads taking runs of devices in turn. Each device's
  // outcome has its own slot, and they are put together in listing order
  // below (the same families whatever the number of threads).
  const std::shared_ptr<FdBudget>& budget = view_->fd_budget();
  struct Outcome {
    bool gone = true;
    QueueSettings live;                        // size_bytes and inflight
    std::shared_ptr<const Settings> settings;  // cached, or read now
    bool fresh = false;                        // read now: to be cached
  };
  std::vector<Outcome> outcomes(pending.size());
  auto read_device = [&](std::size_t k) {
    const Pending& p = pending[k];
    const BlockDevices::Device& d = *p.device;
    const HostDir& dir = *d.dir;
    Outcome& o = outcomes[k];
    bool vanished = false;
    auto read_live = [&](const char* name) {
      FileContent f = dir.read_kept(name, budget, kMaxAttrBytes);
      if (f.ok()) parse_queue_attr(name, f.data, o.live);
      vanished = vanished || f.status == ReadStatus::vanished;
    };
    read_live(kInflightAttr);
    const auto listed_kib = kib_of.find(d.name);
    const bool size_listed = listed_kib != kib_of.end();
    if (!size_listed) read_live(kSizeAttr);
    static const std::vector<const BlockDevices::Partition*> kNoParts;
    auto parts_it = parts_of.find(d.name);
    const auto& parts = parts_it == parts_of.end() ? kNoParts : parts_it->second;
    const Settings* c = p.cached.get();
    const bool first = c == nullptr || c->identity != p.identity;
    const auto first_seen = first ? now : c->first_seen;
    const bool due = first || p.identity.empty() || settings_max_age_ == std::chrono::nanoseconds::zero() ||
                     now >= c->expires || !same_partitions(*c, parts) ||
                     (size_listed ? !same_kib(c->size_bytes, listed_kib->second) : c->size_bytes != o.live.size_bytes);
    if (!due) {
      o.settings = p.cached;
      if (size_listed) o.live.size_bytes = c->size_bytes;
    } else if (!vanished) {
      if (size_listed) {  // not read above
        FileContent f = dir.read_file(kSizeAttr, kMaxAttrBytes);
        if (f.ok()) parse_queue_attr(kSizeAttr, f.data, o.live);
        vanished = f.status == ReadStatus::vanished;
      }
      auto s = std::make_shared<Settings>();
      s->identity = p.identity;
      s->first_seen = first_seen;
      s->size_bytes = o.live.size_bytes;
      read_settings_attrs(dir, d.is_virtual, s->settings);
      ReadStatus st = ReadStatus::ok;
      auto mq = dir.list_dir("mq", &st);
      if (st == ReadStatus::ok) s->hw_queues = mq.size();
      // Partitions: subdirectories of the disk's directory. One whose `partition`, `start` or
      // `size` does not read yet (being added: its link comes before its files) is left out of
      // the keys, so the next scrape reads the disk again.
      for (const BlockDevices::Partition* part : parts) {
        const std::string& sub = part->sysfs_name;
        FileContent num = dir.read_file(sub + "/partition", kMaxAttrBytes);
        if (!num.ok() || !parse_u64(num.data)) continue;
        PartitionRow pr{part->name, d.name, std::to_string(*parse_u64(num.data)), std::nullopt, std::nullopt};
        FileContent start = dir.read_file(sub + "/start", kMaxAttrBytes);
        if (start.ok()) pr.start_bytes = scale_u64(parse_u64(start.data), 512);
        FileContent size = dir.read_file(sub + "/size", kMaxAttrBytes);
        if (size.ok()) pr.size_bytes = scale_u64(parse_u64(size.data), 512);
        if (pr.start_bytes && pr.size_bytes) s->partition_keys.emplace_back(part->name, part->ino);
        s->partitions.push_back(std::move(pr));
      }
      // Due again: at the next scrape when queue/ was not there (a disk being added registers
      // its queue after its /sys/block entry); within kNewDeviceMaxAge of the device's first
      // read (udev rules); else within the max age.
      if (!s->settings.logical_block_size) {
        s->expires = now;
      } else {
        s->expires = due_time(d.name, now, settings_max_age_);
        // (the first-minute read itself finds its due time passed: then only the max age)
        const auto young_due = due_time(d.name, first_seen, kNewDeviceMaxAge);
        if (young_due > now) s->expires = std::min(s->expires, young_due);
      }
      o.settings = std::move(s);
      o.fresh = true;
    }
    // Gone while it was read: no series, no cache entry (nothing stale). A
    // held directory tells without a lookup: its sysfs files fail with ENODEV
    // once the device is removed, and another file system reports the removed
    // directory itself (one fstat instead of a path lookup of `dev`).
    bool gone = vanished;
    if (!gone && d.held) {
      gone = dir.unlinked();
      if (gone) view_->forget_held(d.name, &dir);  // reopened at the next listing, should the path be back
    } else if (!gone) {
      ReadStatus again = dir.exists("dev");
      gone = again == ReadStatus::absent || again == ReadStatus::vanished;
    }
    o.gone = gone;
  };
  // Runs of up to 64 devices, at least 8 runs per thread (a thread that is
  // slowed down leaves its share to the others).
  const std::size_t run = std::clamp<std::size_t>(pending.size() / (8 * read_threads_), 1, 64);
  const std::size_t runs = (pending.size() + run - 1) / run;
  std::mutex failed_mu;
  std::exception_ptr failed;  // the first exception of any run, thrown from here once all have stopped
  run_spread(runs, read_threads_, [&](std::size_t r) {
    try {
      {
        std::lock_guard lock(failed_mu);
        if (failed) return;  // the runs left are skipped
      }
      for (std::size_t k = r * run; k < std::min(pending.size(), (r + 1) * run); ++k) read_device(k);
    } catch (...) {
      std::lock_guard lock(failed_mu);
      if (!failed) failed = std::current_exception();
    }
  });
  if (failed) std::rethrow_exception(failed);

  std::vector<DeviceRow> rows;
  std::vector<const PartitionRow*> partitions;
  std::vector<std::string_view> present;  // names of the devices read, valid while `listing` is held
  rows.reserve(pending.size());
  {
    std::lock_guard lock(mu_);
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const Outcome& o = outcomes[k];
      if (o.gone) continue;
      const std::string& name = pending[k].device->name;
      present.push_back(name);
      const Settings& s = *o.settings;
      rows.push_back({&name, &o.live, &s.settings, s.hw_queues});
      for (const PartitionRow& pr : s.partitions) partitions.push_back(&pr);
      if (o.fresh) {
        ++settings_reads_;
        if (!pending[k].identity.empty()) cache_[name] = o.settings;
      }
    }
    // Devices not read in this scrape (gone, or left out by the filter) leave the cache.
    std::sort(present.begin(), present.end());
    auto absent = [&](const auto& kv) { return !std::binary_search(present.begin(), present.end(), kv.first); };
    std::erase_if(cache_, absent);
  }

  std::vector<std::string> labels;  // {device="..."} of rows[i], rendered once for all families
  labels.reserve(rows.size());
  for (const DeviceRow& r : rows) labels.push_back(render_labels({{"device", *r.device}}));
  for (const Gauge& g : kGauges) {
    LazyFamily fam(out, g.name, g.help, MetricType::Gauge);
    fam.reserve(rows.size());
    fam.seldom_changes();
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (const auto& v = rows[i].get(g.field)) fam.add_rendered(static_cast<double>(*v), labels[i]);
    if (g.field == &QueueSettings::size_bytes)
      for (const PartitionRow* p : partitions)
        if (p->size_bytes) fam.add(static_cast<double>(*p->size_bytes), {{"device", p->device}});
  }
  LazyFamily inflight(out, "diskperf_disk_inflight_requests",
                      "Requests issued to the driver and not yet completed (inflight), by op.", MetricType::Gauge);
  LazyFamily hwq(out, "diskperf_disk_hw_queues", "Hardware dispatch queues of a blk-mq device (entries of mq/).",
                 MetricType::Gauge);
  inflight.reserve(2 * rows.size());
  hwq.reserve(rows.size());
  hwq.seldom_changes();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const DeviceRow& r = rows[i];
    if (const auto& in = r.get(&QueueSettings::inflight)) {
      inflight.add(static_cast<double>(in->reads), {{"device", *r.device}, {"op", "read"}});
      inflight.add(static_cast<double>(in->writes), {{"device", *r.device}, {"op", "write"}});
    }
    if (r.hw_queues) hwq.add_rendered(static_cast<double>(*r.hw_queues), labels[i]);
  }

  if (!rows.empty()) {
    std::shared_ptr<const StableNames> names_ptr = view_->stable_names();
    const StableNames& names = *names_ptr;
    auto& info = add_family(out, "diskperf_disk_info",
                            "Device facts as labels: active scheduler (queue/scheduler), write_cache, model, "
                            "vendor, wwid, Azure LUN (/dev/disk/azure/scsi1/lunN) and /dev/disk/by-id names "
                            "(comma-separated); empty when unknown.",
                            MetricType::Gauge);
    info.reserve(rows.size(), 160);
    info.seldom_changes = true;
    for (const DeviceRow& r : rows) {
      auto lun = names.azure_lun.find(*r.device);
      auto ids = names.by_id.find(*r.device);
      add_sample(info, 1,
                 {{"device", *r.device},
                  {"scheduler", or_empty(r.get(&QueueSettings::scheduler))},
                  {"write_cache", or_empty(r.get(&QueueSettings::write_cache))},
                  {"model", or_empty(r.get(&QueueSettings::model))},
                  {"vendor", or_empty(r.get(&QueueSettings::vendor))},
                  {"wwid", or_empty(r.get(&QueueSettings::wwid))},
                  {"azure_lun", lun == names.azure_lun.end() ? "" : join_names(lun->second)},
                  {"by_id", ids == names.by_id.end() ? std::string_view() : std::string_view(ids->second)}});
    }
  }
  LazyFamily pinfo(out, "diskperf_disk_partition_info",
                   "Partition of a disk: the partition's kernel name, its parent disk and its number "
                   "(/sys/block/<disk>/<part>/partition).",
                   MetricType::Gauge);
  LazyFamily start(out, "diskperf_disk_partition_start_bytes",
                   "Offset of a partition from the start of its disk, in bytes (start x 512).", MetricType::Gauge);
  pinfo.seldom_changes();
  start.seldom_changes();
  for (const PartitionRow* p : partitions)
    pinfo.add(1, {{"device", p->device}, {"disk", p->disk}, {"partition", p->number}});
  for (const PartitionRow* p : partitions)
    if (p->start_bytes) start.add(static_cast<double>(*p->start_bytes), {{"device", p->device}});
  if (rows.empty()) return std::nullopt;
  add_sample(add_family(out, "diskperf_queue_procfs_partitions_readable",
                        "1 when <procfs>/partitions was read at this scrape; 0 when it could not be (missing, "
                        "unreadable, too large): device sizes then come from each device's size file, and "
                        "disks with partitions are read again at every scrape, as are device-mapper volumes (topology).",
                        MetricType::Gauge),
             partitions_readable ? 1 : 0, {});
  return std::nullopt;
}

}  // namespace diskperf
