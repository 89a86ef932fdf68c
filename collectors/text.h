#pragma once
// Small text helpers shared by the pure parsers of kernel files.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace diskperf {

/// Whether `c` is ASCII white space (space, \t, \n, \r, \v, \f).
bool is_ascii_space(char c);

/// `text` without leading and trailing white space.
std::string_view trim(std::string_view text);

/// The first line of `text` (without its '\n'), which is removed from `text` with its '\n'.
/// `terminated` (if given) tells whether the line ended in '\n' (a last line without one may be
/// a truncated read). Call while `text` is not empty.
std::string_view next_line(std::string_view& text, bool* terminated = nullptr);

/// The words of `text`, split on runs of white space.
std::vector<std::string_view> split_ws(std::string_view text);

/// A decimal unsigned 64-bit integer, surrounding white space allowed (sysfs
/// values end in a newline); std::nullopt for anything else: empty, a sign,
/// hex, trailing text, or a value over 2^64 - 1.
std::optional<std::uint64_t> parse_u64(std::string_view text);

}  // namespace diskperf
