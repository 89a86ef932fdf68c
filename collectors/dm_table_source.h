#pragma once
// Where device-mapper tables come from: the kernel through libdevmapper (the
// DM_TABLE_STATUS ioctl on <devfs>/mapper/control, what `dmsetup table`
// prints), or text supplied by a test or a captured host (a directory of
// `dmsetup table` outputs, one file per dm kernel name). Every source
// returns `dmsetup table` text; parse_dm_table (dm_table_parser.h) reads it.

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace diskperf {

/// Outcome of reading one table. `unavailable`: no way to read tables here
/// (no device-mapper control node, no file for the device); `error`: the
/// read was attempted and failed (ioctl error, device gone).
struct DmTableText {
  enum class Status { ok, unavailable, error };
  Status status = Status::ok;
  std::string text;    ///< `dmsetup table` lines when ok
  std::string reason;  ///< one line, when not ok
};

class DmTableSource {
 public:
  virtual ~DmTableSource() = default;
  /// Table of the dm device with kernel name `device` ("dm-3") and number
  /// major:minor. Thread-safe; never throws.
  virtual DmTableText read_table(const std::string& device, unsigned major, unsigned minor) = 0;
};

/// The live kernel tables through libdevmapper. Tables are read only when
/// <devfs>/mapper/control exists (libdevmapper would otherwise try to
/// create the node); otherwise every read is `unavailable`.
class LibDevmapperTableSource final : public DmTableSource {
 public:
  explicit LibDevmapperTableSource(std::string devfs);
  DmTableText read_table(const std::string& device, unsigned major, unsigned minor) override;

 private:
  std::string devfs_;
  std::string control_;
  std::mutex mu_;  // libdevmapper keeps global state
};

/// Tables from files: <dir>/<device> holds that device's `dmsetup table`
/// output. A missing file is `unavailable`.
class DirectoryDmTableSource final : public DmTableSource {
 public:
  explicit DirectoryDmTableSource(std::string dir) : dir_(std::move(dir)) {}
  DmTableText read_table(const std::string& device, unsigned major, unsigned minor) override;

 private:
  std::string dir_;
};

/// Tables given as text in memory, keyed by kernel name (tests).
class TextDmTableSource final : public DmTableSource {
 public:
  explicit TextDmTableSource(std::map<std::string, std::string> tables) : tables_(std::move(tables)) {}
  DmTableText read_table(const std::string& device, unsigned major, unsigned minor) override;

 private:
  std::map<std::string, std::string> tables_;
};

}  // namespace diskperf
