#pragma once
// Bounds on the shape of a config file, checked on yaml-cpp's event stream
// before any node tree is built: a list or mapping past its cap, or a file of
// too many nodes, is refused at the first node past the bound, so neither the
// memory nor the error output of a load grows with such a file.

#include <cstddef>
#include <optional>
#include <string_view>

#include "config/config.h"

namespace diskperf {

/// Most entries of `probes:` (no real host runs this many probe jobs).
inline constexpr std::size_t kMaxProbeJobs = 1000;
/// Most entries of each of tiers.disks, tiers.custom and tiers.vm_sizes.
inline constexpr std::size_t kMaxTierRules = 1000;
/// Most items of any other list and keys of any mapping (the schema's are a few dozen at most).
inline constexpr std::size_t kMaxCollectionItems = 1000;
/// Most YAML nodes in the file: every list above full, each entry with all its keys, is about
/// 77,000. yaml-cpp's tree takes some 500 bytes a node, so this also bounds a load's memory.
inline constexpr std::size_t kMaxYamlNodes = 100000;

/// The first bound `text` exceeds, with the line and column of the node past it; nullopt when the
/// file is within every bound or is not valid YAML (the full parse reports that).
std::optional<ConfigError> check_yaml_limits(std::string_view text);

}  // namespace diskperf
