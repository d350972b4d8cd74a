// Tracing the forwarding tables toward one destination LID.
//
// Why: with destination-based routing, all routes to a LID form an in-tree
// (or, in broken tables, a functional graph with cycles) over the switches;
// every analysis is a pass over that structure, so each destination is traced
// once for all sources instead of once per (source, destination) pair.
//
// Data structures: per switch the next channel taken toward the LID, the
// outcome (delivered / unreachable / loop) and, when delivered, the number of
// links from that switch to the destination port; `order` lists the delivered
// switches farthest first, so summing "traffic flowing into a switch" over
// `order` visits every switch after all switches that feed it.
//
// Algorithm: walk next pointers from every unresolved switch, marking the
// walk; reaching a resolved switch copies its outcome back along the walk,
// reaching a switch already on the walk is a forwarding loop. An LFT entry of
// no_route, a port out of range or uncabled, port 0 at a switch that does not
// own the LID, or a cable to a CA port that does not own it, is unreachable.
// O(switches) per destination.
#pragma once

#include "routing/analysis/network.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

enum class Reach : std::uint8_t { delivered, unreachable, loop };

struct DestinationTree {
    std::uint32_t lid = 0;
    std::int32_t owner = -1;              // endpoint owning lid (-1: none)
    std::vector<Reach> status;            // per switch
    std::vector<std::int32_t> next;       // per switch: channel taken, -1 when none (delivered at port 0 / dropped)
    std::vector<std::uint16_t> hops;      // per switch: links to the destination port (delivered only)
    std::vector<std::int32_t> order;      // delivered switches, largest hops first
};

// Traces every switch's route toward `lid`; `out`'s buffers are reused.
void trace_destination(const Network& net, std::uint32_t lid, DestinationTree& out);

} // namespace ibsm::routing::analysis
