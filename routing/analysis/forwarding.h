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
    // Working space of trace_destination (kept to save allocations).
    std::vector<std::uint8_t> scratch_state;
    std::vector<std::int32_t> scratch_walk;
};

// Traces every switch's route toward `lid`; `out`'s buffers are reused.
void trace_destination(const Network& net, std::uint32_t lid, DestinationTree& out);

// The LFT entries of a block of consecutive LIDs, switch-major within each
// LID: port(k, s) is switch s's entry for LID first + k.
//
// Why: tracing one LID reads one byte of every switch's LFT, a cache miss
// per switch (21 M of them at 11 664 hosts); reading 64 consecutive LIDs of
// a row is one cache line. Gathering a block first and tracing its LIDs from
// it is several times faster on large fabrics.
class LftBlock {
public:
    static constexpr std::uint32_t width = 64;
    // Loads LIDs first .. first+count-1 (count <= width).
    void load(const Network& net, std::uint32_t first, std::uint32_t count);
    std::uint32_t first() const { return first_; }
    std::uint32_t count() const { return count_; }
    const std::uint8_t* ports(std::uint32_t k) const { return ports_.data() + static_cast<std::size_t>(k) * switches_; }

private:
    std::uint32_t first_ = 0, count_ = 0;
    std::size_t switches_ = 0;
    std::vector<std::uint8_t> ports_;
};

// As above, with every switch's entry for `lid` given: ports[s].
void trace_destination(const Network& net, std::uint32_t lid, const std::uint8_t* ports, DestinationTree& out);

} // namespace ibsm::routing::analysis
