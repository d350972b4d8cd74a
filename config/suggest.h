// "Did you mean ...?" for unknown keys: the closest known key by edit
// distance (a swap of two neighbouring letters counts as one edit).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ibsm::config {

// Optimal-string-alignment distance: insertions, deletions, substitutions and
// transpositions of adjacent characters, each costing 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is within `max_distance` edits
// (ties: the earlier candidate); nothing otherwise.
std::optional<std::string> closest(std::string_view word, std::span<const std::string_view> candidates,
                                   std::size_t max_distance = 2);

} // namespace ibsm::config
