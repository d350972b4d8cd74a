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
// O(switches) per destination. Tracing reads every switch's first hop (its
// LFT entry, and where that port's cable leads: Network::hops_from) before
// the walk, so the walk itself reads two arrays in switch order; the gate
// resolves the first hops of 64 LIDs at a time (LftBlock).
#pragma once

#include "routing/analysis/network.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

enum class Reach : std::uint8_t { delivered, unreachable, loop };

struct DestinationTree {
    std::uint32_t lid = 0;
    std::int32_t owner = -1;              // endpoint owning lid (-1: none)
    const Network* net = nullptr;         // the view traced (its channels are `next`'s)
    std::vector<Reach> status;            // per switch
    std::vector<std::int32_t> next;       // per switch: channel taken, -1 when none (delivered at port 0 / dropped)
    std::vector<std::uint16_t> hops;      // per switch: links to the destination port (delivered only)
    std::vector<std::int32_t> order;      // delivered switches, largest hops first
    // Working space of trace_destination (kept to save allocations).
    std::vector<std::uint8_t> scratch_state;
    std::vector<std::int32_t> scratch_walk;
    std::vector<std::uint32_t> scratch_bucket;
    std::vector<std::int32_t> scratch_head, scratch_channel;
};

// Traces every switch's route toward `lid`; `out`'s buffers are reused.
void trace_destination(const Network& net, std::uint32_t lid, DestinationTree& out);

// The first hops of a block of consecutive LIDs: for every switch and LID
// of the block, the channel its LFT entry takes and where that leads (the
// next switch, or the outcome when the route ends there), LID-major.
//
// Why: tracing one LID reads one byte of every switch's LFT, a cache miss
// per switch (21 M of them at 11 664 hosts), and then that switch's port
// table (Network::hops_from, 2.3 MB at 27 648 hosts, past the L2 cache).
// Switch-major over a block, a switch's 64 entries are one cache line of its
// LFT and its port row stays in L1 while they are read; the walk per LID
// then reads two sequential arrays. The LFT rows are read through
// Network::lft_row (no pointer chase per switch) with the line of a switch
// a few ahead prefetched: 2 880 rows are more streams than the hardware
// prefetcher follows.
class LftBlock {
public:
    static constexpr std::uint32_t width = 64;
    // Loads LIDs first .. first+count-1 (count <= width).
    void load(const Network& net, std::uint32_t first, std::uint32_t count);
    // Loads lids[0 .. count-1] (count <= width, ascending: the incremental
    // gate's changed LIDs, each LFT row then read forward).
    void load(const Network& net, const std::uint32_t* lids, std::uint32_t count);
    std::uint32_t count() const { return count_; }
    // trace_destination(net, k-th LID loaded, ...) from the loaded hops.
    void trace(std::uint32_t k, DestinationTree& out) const;

private:
    const Network* net_ = nullptr;
    std::array<std::uint32_t, width> lids_{};
    std::uint32_t count_ = 0;
    std::size_t switches_ = 0;
    bool backwards_ = false; // the switch order of the last load
    std::vector<std::int32_t> head_;    // [k * switches + s]: next switch, or a first_hop_* outcome
    std::vector<std::int32_t> channel_; // [k * switches + s]: the channel taken, -1 none
};

// As above, with every switch's entry for `lid` given: ports[s].
void trace_destination(const Network& net, std::uint32_t lid, const std::uint8_t* ports, DestinationTree& out);

} // namespace ibsm::routing::analysis
