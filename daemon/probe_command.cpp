#include "daemon/probe_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>

#include <ostream>

#include "probes/probe_report.h"
#include "probes/probe_run.h"
#include "probes/probe_target.h"

namespace diskperf {

std::optional<ProbeJob> probe_job_from_options(const ProbeCommandOptions& o, std::string& error) {
  ProbeJob job;
  job.name = "probe";
  job.target = o.target;
  auto rw = parse_rw(o.rw);
  auto bs = parse_size(o.bs);
  auto runtime = parse_duration(o.runtime);
  auto timeout = parse_duration(o.timeout);
  auto offset = parse_size(o.offset);
  auto size = parse_size(o.size);
  if (!rw) error = "--rw: '" + o.rw + "' is not one of read, randread, write, randwrite, randrw";
  else if (!bs || *bs == 0) error = "--bs: '" + o.bs + "' is not a positive size";
  else if (o.iodepth == 0) error = "--iodepth must be > 0";
  else if (!probe_buffers_fit(*bs, o.iodepth))
    error = "--bs x --iodepth needs " + std::to_string(*bs) + " x " + std::to_string(o.iodepth) +
            " bytes of buffers (each rounded up to 4 KiB); at most " + std::to_string(kMaxProbeBufferBytes) +
            " (256 MiB)";
  else if (!runtime || runtime->count() <= 0) error = "--runtime: '" + o.runtime + "' is not a positive duration";
  else if (!timeout || timeout->count() <= 0) error = "--timeout: '" + o.timeout + "' is not a positive duration";
  else if (!offset) error = "--offset: '" + o.offset + "' is not a size";
  else if (!size) error = "--size: '" + o.size + "' is not a size";
  else if (o.rate_iops && !(std::isfinite(*o.rate_iops) && *o.rate_iops > 0))
    error = "--rate-iops must be a positive finite number";
  if (!error.empty()) return std::nullopt;
  job.rw = *rw;
  job.bs = *bs;
  job.iodepth = o.iodepth;
  job.runtime = *runtime;
  job.number_ios = o.number_ios;
  job.rate_iops = o.rate_iops;
  job.timeout = *timeout;
  job.offset = *offset;
  job.size = *size;
  return job;
}

int run_probe_command(const ProbeCommandOptions& o, const HostPaths& paths, std::ostream& out, std::ostream& err) {
  std::string error;
  std::optional<ProbeJob> job = probe_job_from_options(o, error);
  if (!job) {
    err << "probe: " << error << "\n";
    return 2;
  }
  // A directory target gets a probe file laid out in it. The daemon keeps its
  // jobs' files between runs; a one-off probe removes the one it made, so
  // that it leaves no 64 MiB file behind in the database's directory (one
  // that was there before, e.g. a daemon job's of the same name, stays).
  const std::string own_file = probe_file_path(job->target, job->name);
  struct stat st{};
  const bool existed = ::lstat(own_file.c_str(), &st) == 0;
  struct RemoveMadeFile {
    const std::string& path;
    bool remove;
    ~RemoveMadeFile() {
      if (remove) ::unlink(path.c_str());
    }
  } cleanup{own_file, false};
  ResolvedJob rj = resolve_job(*job, paths);
  // Made now (even if laying it out then failed): only a regular file this
  // process owns, never what another process put there meanwhile.
  cleanup.remove = !existed && ::lstat(own_file.c_str(), &st) == 0 && own_probe_file_error(own_file, st).empty();
  if (!rj.ok()) {
    for (const auto& e : rj.errors) err << e << "\n";
    return 2;
  }
  RunResult r = run_probe(*job, rj.path, rj.region.offset, rj.region.size, rj.alignment);
  if (o.output == "json") out << fio_json(*job, r).dump(2) << "\n";
  else out << fio_text(*job, r);
  if (!r.fatal.empty()) err << "probe: " << r.fatal << "\n";
  return r.fatal.empty() && r.errors.empty() ? 0 : 1;
}

}  // namespace diskperf
