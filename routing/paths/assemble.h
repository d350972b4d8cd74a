// From the switch paths a path engine chose for its CA pairs to the
// topology::PairPaths it returns, switch-originated paths included.
//
// Why: every engine needs the same conversion (channels -> (switch, out
// port) hops plus the last hop into the destination port) and the same
// switch paths. The switch paths are chosen here so that they cost no LID:
// a switch s that some CA path to destination d crosses takes the suffix of
// such a path from s (the one leaving s by the port most CA paths to d use
// there, ties: lower port; of those, the path of the smallest source). A
// suffix agrees with its path at every switch it crosses, so it splits with
// nothing that path does not split with and joins that path's
// configuration in the LID-assignment stage. A suffix of a legal loop-free
// path is legal and loop-free.
//
// Switches no CA path to d crosses are taken in order of legal distance to
// d's switch: each steps along its first (port order) minimal legal channel
// to a switch whose path is already chosen and can be continued (after a
// down channel it must be all-down), else it takes its minimal legal path
// channel by channel (first port at every step).
//
// Data structures: one destination at a time: per switch the (port, count,
// representative path) of CA paths crossing it, then one channel list per
// switch. Destinations are independent and filled in parallel.
#pragma once

#include "routing/paths/updn_paths.h"
#include "topology/pair_paths.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace ibsm::routing::paths {

// The channels of the chosen path from terminal src to terminal dst
// (indices into UpdnGraph::terminals; empty when both sit on one switch), or
// nullopt when dst is unreachable from src. Called concurrently.
using ChosenPath = std::function<std::optional<std::span<const std::uint32_t>>(std::uint32_t src, std::uint32_t dst)>;

topology::PairPaths assemble_pair_paths(const UpdnGraph& g, std::string engine, const ChosenPath& chosen,
                                        unsigned threads);

// The same paths, a destination at a time (topology::PairPathSource): each
// visit assembles one destination afresh, into storage its thread reuses
// (so a visit's callback must not visit this source again). `g` and
// `chosen` (and what it refers to) are kept alive by the source.
topology::PairPathSource assemble_path_source(std::shared_ptr<const UpdnGraph> g, std::string engine,
                                              ChosenPath chosen);

} // namespace ibsm::routing::paths
