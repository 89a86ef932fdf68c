#pragma once
// Presents a RunResult the way fio does: a short text summary, or JSON
// shaped like fio 3.x `--output-format=json` (top level `jobs` array with one
// job holding `read` and `write` objects: io_bytes, bw_bytes, iops,
// total_ios, runtime in ms, and slat_ns / clat_ns / lat_ns each with min,
// max, mean, N and `percentile` keyed "%f" like "99.000000"; fio's stat.c
// show_thread_status_json).

#include <string>

#include <nlohmann/json.hpp>

#include "probes/probe_job.h"
#include "probes/probe_run.h"

namespace diskperf {

/// fio's default percentile list (stat.h FIO_IO_U_LIST_DEFAULT).
const std::vector<double>& fio_percentiles();

nlohmann::json fio_json(const ProbeJob& job, const RunResult& r);
std::string fio_text(const ProbeJob& job, const RunResult& r);

}  // namespace diskperf
