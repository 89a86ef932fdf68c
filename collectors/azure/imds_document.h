#pragma once
// The Azure Instance Metadata Service compute document (GET /metadata/instance/compute), parsed.
// Pure: JSON text in, typed struct out. IMDS sends every value as a string ("1024", "true") and a
// missing value as ""; JSON numbers and booleans are accepted too.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

/// storageProfile.osDisk or one of storageProfile.dataDisks[].
struct ImdsDisk {
  std::optional<unsigned> lun;                    ///< dataDisks[].lun; unset for the OS disk
  std::string name;                               ///< managed disk name
  std::string caching;                            ///< None, ReadOnly, ReadWrite
  std::optional<double> disk_size_gb;             ///< diskSizeGB (GiB, as Azure counts disk sizes)
  std::string storage_account_type;               ///< managedDisk.storageAccountType: Premium_LRS, UltraSSD_LRS, ...
  bool write_accelerator = false;                 ///< writeAcceleratorEnabled
  std::optional<double> ops_per_second_throttle;  ///< Ultra Disk only: provisioned IOPS
  std::optional<double> bytes_per_second_throttle;  ///< Ultra Disk only: provisioned bytes/s
};

struct ImdsCompute {
  std::string vm_size;  ///< vmSize: "Standard_E16ds_v5"
  std::string location, name, zone, resource_id;
  std::optional<ImdsDisk> os_disk;
  std::vector<ImdsDisk> data_disks;
};

/// A parse: `compute` set, or `error` saying what is wrong ("storageProfile.dataDisks[2].lun: 'x'
/// is not a number").
struct ImdsParse {
  std::optional<ImdsCompute> compute;
  std::string error;
};

/// More data disks than any VM size takes (64): a document listing more is refused.
inline constexpr std::size_t kImdsMaxDataDisks = 256;

/// Parses the compute document (or the whole /metadata/instance document, whose `compute` is
/// used). An absent storageProfile gives no disks; a data disk without a number for lun, any
/// diskSizeGB or throttle that is neither empty nor a finite number >= 0, a writeAcceleratorEnabled
/// that is neither true nor false, or more than kImdsMaxDataDisks data disks is an error.
ImdsParse parse_imds_compute(std::string_view json);

/// IMDS text fit for one log line: control characters replaced by '?', cut at 80 bytes.
std::string log_text(std::string_view s);

}  // namespace diskperf
