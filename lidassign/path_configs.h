// The configuration step of the LID-assignment stage (seed 002 §3–§4): for
// one destination, partition its paths into configurations — sets of paths
// no two of which split (Definition 1–2) — so that each configuration can be
// realised by one DLID in the switches' LFTs. Fewer configurations = fewer
// LIDs for that destination.
//
// Heuristics (seed 002 §4): greedy, split-merge/S, split-merge/L, color/S,
// color/L (the default: fewest LIDs in the paper's Tables 1–2).
//   greedy         §4.1, Figure 5: configurations opened one by one, each
//                  taking every remaining path (in source order) that does
//                  not split with it.
//   split-merge/S  §4.2, Figure 7: split phase over the switches, fewest
//   split-merge/L  (/S) or most (/L) paths first; then Figure 5 merges the
//                  resulting groups. Paths of a group that do not cross the
//                  switch being split on stay with its largest port class.
//   color/S        §4.3, Figure 8: colour the split graph one colour at a
//   color/L        time; each round picks, among the uncoloured paths, the
//                  one of smallest (/S) or largest (/L) degree in the round's
//                  reduced graph, drops its neighbours, and repeats.
// Ties are broken by path index (the order of DestinationPaths::paths).
// Every heuristic yields a minimal configuration set (Definition 4): any two
// configurations contain a pair of paths that split.
//
// Pure: no I/O. Deterministic: equal input gives equal output.
#pragma once

#include "topology/pair_paths.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ibsm::lidassign {

enum class ConfigHeuristic : std::uint8_t { greedy, split_merge_s, split_merge_l, color_s, color_l };

const char* to_string(ConfigHeuristic h);
std::optional<ConfigHeuristic> config_heuristic_from(std::string_view name); // "greedy", "split-merge-s", ..., "color-l"

// One destination's partition: `of_path[i]` is the configuration (0..count-1)
// of `DestinationPaths::paths[i]`. No two paths with the same configuration
// split.
struct DestinationConfigs {
    std::vector<std::uint16_t> of_path;
    std::uint16_t count = 0;
};

DestinationConfigs partition_paths(const topology::DestinationPaths& dest, ConfigHeuristic heuristic);

// Every destination of `paths`, in the same order (destinations are
// independent: computed on `threads` threads, 0 for common::worker_count's
// default; the result does not depend on `threads`). Precondition for all
// functions: paths are loop-free (no switch twice on one path).
std::vector<DestinationConfigs> partition_all(const topology::PairPaths& paths, ConfigHeuristic heuristic,
                                              unsigned threads = 1);

// True when paths a and b (to the same destination) split (Definition 1).
bool paths_split(const topology::PairPath& a, const topology::PairPath& b);

} // namespace ibsm::lidassign
