#pragma once
// `diskperf_exporter probe`: builds one ProbeJob from the command line, runs it
// once in the foreground and prints fio-like text or fio-shaped JSON.

#include <iosfwd>
#include <optional>
#include <string>

#include "collectors/host_fs.h"
#include "daemon/cli.h"
#include "probes/probe_job.h"

namespace diskperf {

/// The job the options describe, or std::nullopt with `error` set ("--bs: '8x' is not a size").
std::optional<ProbeJob> probe_job_from_options(const ProbeCommandOptions& o, std::string& error);

/// Runs the probe; prints results on `out`, problems on `err`. Exit code: 0 ok, 1 the job
/// failed or had I/O errors, 2 bad options. For a directory target, the probe file it lays out
/// (probe_file_path(target, "probe")) is removed at the end; one that existed before stays.
int run_probe_command(const ProbeCommandOptions& o, const HostPaths& paths, std::ostream& out, std::ostream& err);

}  // namespace diskperf
