// libFuzzer target: the sysfs value parsers and the /proc/partitions parser
// (collectors/queue_parser.h).
// The input is one attribute's text for the single-value parsers; for
// parse_queue_settings it fills every known attribute: with the whole input
// when it holds no NUL byte, otherwise with its NUL-separated pieces in turn.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "collectors/queue_parser.h"

namespace {
const char* const kAttrs[] = {
    "device/queue_depth",   "queue/nr_requests",       "queue/max_sectors_kb", "queue/max_hw_sectors_kb",
    "queue/read_ahead_kb",  "queue/logical_block_size", "queue/physical_block_size",
    "queue/minimum_io_size", "queue/optimal_io_size",   "queue/rotational",     "size",
    "inflight",             "queue/scheduler",         "queue/write_cache",    "device/model",
    "device/vendor",        "wwid",                    "device/wwid",
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace diskperf;
  if (auto v = parse_u64(text)) {
    // A value that parsed must print back to digits the text contains.
    if (std::string(text).find(std::to_string(*v)) == std::string::npos && *v != 0) std::abort();
  }
  (void)scale_u64(parse_u64(text), 1024);
  (void)scale_u64(parse_u64(text), 512);
  (void)trim_attr(text);
  (void)parse_active_scheduler(text);
  (void)parse_inflight(text);
  (void)parse_azure_lun(text);
  (void)link_target_name(text);
  // /proc/partitions: every entry has a name without whitespace, from a line of four fields.
  for (const ProcPartition& p : parse_proc_partitions(text))
    if (p.name.empty() || p.name.find_first_of(" \t\n") != std::string::npos) std::abort();

  SysfsAttrs attrs;
  if (text.find('\0') == std::string_view::npos) {
    for (const char* k : kAttrs) attrs.emplace(k, std::string(text));
  } else {
    std::size_t i = 0;
    for (const char* k : kAttrs) {
      if (i > text.size()) break;
      std::size_t nul = text.find('\0', i);
      if (nul == std::string_view::npos) nul = text.size();
      attrs.emplace(k, std::string(text.substr(i, nul - i)));
      i = nul + 1;
    }
  }
  QueueSettings q = parse_queue_settings(attrs);
  if (q.rotational && *q.rotational > 1) std::abort();
  return 0;
}
