// Per-pair routes (seed 002): one explicit path per (source, destination)
// port pair, the result of path-routing engines (routing/paths/) before the
// LID-assignment stage (lidassign/path_configs.h) decides which DLID realises
// each path.
//
// Why a type of its own: destination-based engines produce LFTs directly; a
// path engine chooses a path per pair freely, and only the second stage knows
// how many LIDs a destination needs so that LFTs can realise them all.
//
// Data structures: paths are grouped by destination. A path lists the
// switches it crosses, each with the output port it leaves by; the last hop's
// output port is cabled to the destination port. Two paths to one destination
// "split" (seed 002 Definition 1) when they share a switch and leave it by
// different output ports — parallel links count as different (different
// output port), so a hop is (switch, out port), not (switch, next switch).
// A switch-originated path (src = switch port 0) starts at that switch.
#pragma once

#include "mad/types.h"
#include "topology/fabric.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ibsm::topology {

struct PathHop {
    NodeId sw;
    PortNum out;
    constexpr auto operator<=>(const PathHop&) const = default;
};

struct PairPath {
    PortRef src;               // CA/router port, or switch port 0
    std::vector<PathHop> hops; // first switch .. switch cabled to the destination
};

struct DestinationPaths {
    PortRef dst;                 // CA/router port (switch destinations are not here)
    std::vector<PairPath> paths; // one per source, sorted by src
};

struct PairPaths {
    std::string engine;
    // The Up*/Down* root switches the paths are legal under when the
    // engine chose them itself (a root trial); empty when the orientation is
    // the one the routing options give (configured roots, tree tops, the
    // central rule). The LID stage routes switch destinations, and fills the
    // LFT entries no path sets, in this same orientation: two orientations
    // mixed in one VL can close a credit loop.
    std::vector<NodeId> roots;
    std::vector<DestinationPaths> destinations; // sorted by dst
};

// The same paths one destination at a time, each made when asked for and
// dropped after: what the LID stage streams through. Why: held whole, the
// paths of every pair are the memory of a per-pair routing (a 3 456-host
// tree has 14 million), while each stage needs one destination at a time.
struct PairPathSource {
    std::string engine;
    std::vector<NodeId> roots;         // as PairPaths::roots
    std::vector<PortRef> destinations; // sorted, as PairPaths::destinations
    // Calls `fn` with destination i's paths, equal to what
    // PairPaths::destinations[i] would hold; callable from several threads.
    std::function<void(std::size_t i, const std::function<void(const DestinationPaths&)>& fn)> visit;
};

} // namespace ibsm::topology
