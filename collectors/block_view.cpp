#include "collectors/block_view.h"

#include <sys/stat.h>
#include <time.h>

#include <spdlog/spdlog.h>

namespace diskperf {
namespace {

// What identifies the content of a directory of links: a link cannot be
// rewritten in place, so adding, removing or replacing one updates the
// directory's mtime and ctime (devtmpfs, tmpfs, ext4). "absent" when missing.
std::string dir_stamp(const struct stat* st) {
  if (!st) return "absent";
  return std::to_string(st->st_dev) + ":" + std::to_string(st->st_ino) + ":" + std::to_string(st->st_mtim.tv_sec) +
         "." + std::to_string(st->st_mtim.tv_nsec) + ":" + std::to_string(st->st_ctim.tv_sec) + "." +
         std::to_string(st->st_ctim.tv_nsec);
}

// Whether a directory changed within the last 2 s (timestamps are coarse:
// a change in the same tick as the previous one would leave them equal).
bool recently_changed(const struct stat* st, const timespec& now) {
  return st && (st->st_ctim.tv_sec >= now.tv_sec - 2 || st->st_mtim.tv_sec >= now.tv_sec - 2);
}

}  // namespace

BlockView::BlockView(const HostPaths& paths, std::shared_ptr<const ScrapeEpoch> epoch,
                     std::shared_ptr<FdBudget> budget, std::shared_ptr<DmTableSource> tables,
                     std::chrono::nanoseconds dm_max_age)
    : paths_(paths),
      budget_(budget ? std::move(budget) : std::make_shared<FdBudget>(FdBudget::from_rlimit())),
      block_(paths.sysfs, budget_),
      tables_(std::move(tables)),
      dm_cache_(dm_max_age),
      devices_(epoch),
      proc_partitions_(epoch),
      volumes_(epoch) {}

std::shared_ptr<const BlockDevices::Listing> BlockView::devices() {
  return devices_.get([&] { return block_.list(); });
}

std::shared_ptr<const ProcPartitionsRead> BlockView::proc_partitions() {
  return proc_partitions_.get([&] {
    ProcPartitionsRead r;
    const std::string path = join_path(paths_.procfs, "partitions");
    FileContent f = read_file_sized(path, 4u << 20, partitions_size_hint_);
    if (f.ok()) {
      const std::vector<ProcPartition> rows = parse_proc_partitions(f.data);
      r.kib.reserve(rows.size());
      for (const ProcPartition& pp : rows) r.kib.emplace(pp.name, pp.kib);
    } else {
      r.error = f.error;
    }
    // Said once when it starts failing (and once when it reads again), not at every scrape.
    if (partitions_readable_.exchange(f.ok()) != f.ok()) {
      if (f.ok()) {
        spdlog::info("{} reads again", path);
      } else {
        spdlog::warn("{}; without it, device sizes come from each device's size file (queue collector) and "
                     "device-mapper volumes are read at every scrape (topology collector)", f.error);
      }
    }
    return r;
  });
}

std::shared_ptr<const VolumeScan> BlockView::volumes() {
  return volumes_.get([&] {
    const std::shared_ptr<const BlockDevices::Listing> listing = devices();
    // Sizes tell a kept dm volume that changed: not read for the scan without the cache.
    const std::shared_ptr<const ProcPartitionsRead> sizes = dm_cache_.enabled() ? proc_partitions() : nullptr;
    VolumeSources src;
    src.devfs = paths_.devfs;
    src.budget = budget_;
    src.tables = tables_.get();
    src.sizes = sizes && !sizes->error ? &sizes->kib : nullptr;
    src.cache = dm_cache_.enabled() ? &dm_cache_ : nullptr;
    src.now = clock_();
    return read_volumes(*listing, src);
  });
}

std::shared_ptr<const StableNames> BlockView::stable_names() {
  // The directories whose links name the devices; NVMe namespaces come and go with by-id links.
  std::string stamp;
  bool cacheable = true;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  for (const char* dir : {"disk/by-id", "disk/azure", "disk/azure/scsi1", "disk/azure/data/by-lun"}) {
    struct stat st {};
    const struct stat* sp = ::stat(join_path(paths_.devfs, dir).c_str(), &st) == 0 ? &st : nullptr;
    stamp += dir_stamp(sp) + "|";
    // Not cached when a directory changed in the last seconds: a second change
    // within the same timestamp tick would not show in the stamp.
    cacheable = cacheable && !recently_changed(sp, now);
  }
  {
    std::lock_guard lock(mu_);
    if (names_ && stamp == names_stamp_) return names_;
  }
  auto names = std::make_shared<const StableNames>(read_stable_names(paths_.devfs, paths_.sysfs));
  std::lock_guard lock(mu_);
  names_ = cacheable ? names : nullptr;
  names_stamp_ = std::move(stamp);
  return names;
}

}  // namespace diskperf
