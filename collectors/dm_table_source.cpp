#include "collectors/dm_table_source.h"

#include <libdevmapper.h>

#include <cstdarg>
#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "collectors/host_fs.h"

namespace diskperf {
namespace {

// libdevmapper prints its errors on stderr by default; route them to debug
// logs (the collector reports failures as series).
void dm_log(int /*level*/, const char* file, int line, int /*dm_errno*/, const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  spdlog::debug("libdevmapper {}:{}: {}", file ? file : "?", line, buf);
}

}  // namespace

LibDevmapperTableSource::LibDevmapperTableSource(std::string devfs)
    : devfs_(std::move(devfs)), control_(join_path(devfs_, "mapper/control")) {
  std::lock_guard lock(mu_);
  dm_log_with_errno_init(&dm_log);
  dm_set_dev_dir(devfs_.c_str());
}

DmTableText LibDevmapperTableSource::read_table(const std::string& device, unsigned major, unsigned minor) {
  using S = DmTableText::Status;
  ReadStatus st = ReadStatus::ok;
  // A device node cannot be read as a file without side effects; only its
  // presence matters. open(O_PATH) would do, but the parent listing is enough.
  bool has_control = false;
  for (const auto& n : list_dir(join_path(devfs_, "mapper"), &st))
    if (n == "control") has_control = true;
  if (!has_control) return {S::unavailable, "", "no device-mapper control node " + control_};

  std::lock_guard lock(mu_);
  std::unique_ptr<dm_task, void (*)(dm_task*)> task(dm_task_create(DM_DEVICE_TABLE), &dm_task_destroy);
  if (!task) return {S::error, "", "dm_task_create failed"};
  if (!dm_task_set_major(task.get(), static_cast<int>(major)) ||
      !dm_task_set_minor(task.get(), static_cast<int>(minor)))
    return {S::error, "", "cannot address " + device};
  dm_task_no_open_count(task.get());
  if (!dm_task_run(task.get())) return {S::error, "", "DM_TABLE_STATUS failed for " + device};
  dm_info info{};
  if (!dm_task_get_info(task.get(), &info) || !info.exists) return {S::error, "", device + " is gone"};
  DmTableText out;
  void* next = nullptr;
  do {
    std::uint64_t start = 0, length = 0;
    char* type = nullptr;
    char* params = nullptr;
    next = dm_get_next_target(task.get(), next, &start, &length, &type, &params);
    if (!type) break;
    out.text += std::to_string(start) + " " + std::to_string(length) + " " + type;
    if (params && *params) out.text += std::string(" ") + params;
    out.text += "\n";
  } while (next);
  return out;
}

DmTableText DirectoryDmTableSource::read_table(const std::string& device, unsigned, unsigned) {
  using S = DmTableText::Status;
  FileContent f = read_file(join_path(dir_, device), 1u << 20);
  if (f.ok()) return {S::ok, std::move(f.data), ""};
  if (f.status == ReadStatus::absent) return {S::unavailable, "", "no table file " + join_path(dir_, device)};
  return {S::error, "", f.error};
}

DmTableText TextDmTableSource::read_table(const std::string& device, unsigned, unsigned) {
  auto it = tables_.find(device);
  if (it == tables_.end()) return {DmTableText::Status::unavailable, "", "no table given for " + device};
  return {DmTableText::Status::ok, it->second, ""};
}

}  // namespace diskperf
