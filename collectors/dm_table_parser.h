#pragma once
// Pure parser of device-mapper tables as `dmsetup table` prints them (the
// DM_TABLE_STATUS ioctl's text): one line per segment,
//   <start_sector> <length_sectors> <target_type> <target args...>
// Sectors are 512 bytes. Target argument layouts from the kernel's
// Documentation/admin-guide/device-mapper/:
//   linear  : <dev> <offset>                                   (linear.rst)
//   striped : <#stripes> <chunk_sectors> [<dev> <offset>]x#stripes  (striped.rst)
//   crypt   : <cipher> <key> <iv_offset> <dev> <offset> [<#opt> <opts>...]  (dm-crypt.rst)
// Other targets are kept with their type and raw arguments.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskperf {

/// One underlying device of a segment: "8:32" (major:minor, as the kernel
/// prints) or a path, and the offset into it in 512-byte sectors.
struct DmTableDevice {
  std::string device;
  std::uint64_t offset_sectors = 0;
};

/// One line of a table.
struct DmSegment {
  std::uint64_t start_sectors = 0;
  std::uint64_t length_sectors = 0;
  std::string target;  ///< "linear", "striped", "crypt", ...
  std::string args;    ///< the raw argument text (crypt keys included: do not export it)
  std::vector<DmTableDevice> devices;   ///< for linear, striped and crypt
  std::optional<std::uint32_t> stripes;         ///< striped only
  std::optional<std::uint64_t> chunk_bytes;     ///< striped only: chunk_sectors x 512
  std::optional<std::string> cipher;            ///< crypt only ("aes-xts-plain64")
};

/// A table, or why it could not be parsed ("line 2: striped: expected 2 + 2 x 3
/// arguments, got 7"). Exactly one of `segments` (non-empty) / `error` is set.
struct DmTableParse {
  std::vector<DmSegment> segments;
  std::optional<std::string> error;
};

/// Parses a whole table. Blank lines are ignored; an empty table is an
/// error. Any malformed line (too few fields, non-numeric or overflowing
/// numbers, zero length, a target's wrong argument count, a gap or overlap
/// between segments or a table not starting at sector 0) fails the whole
/// table, since a partial one would misstate the volume's layout. Never throws.
DmTableParse parse_dm_table(std::string_view text);

}  // namespace diskperf
