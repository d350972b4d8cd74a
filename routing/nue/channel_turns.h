// The complete channel dependency graph (cCDG) of a switch graph, as index
// arithmetic: Nue (Domke, Hoefler, Matsuoka, "Routing on the Dependency
// Graph", HPDC 2016, §3) routes inside it instead of on the network.
//
// Why: the cCDG has a vertex per switch-to-switch channel and an edge per
// turn a packet could make at a switch (in on one channel, out on another);
// every routing's CDG is a subgraph of it. Storing it explicitly would cost
// a list per channel; with channels in CSR order (switch_graph.h) a turn
// c1 -> c2 at the switch c1 enters is simply turn_first[c1] + (c2's place
// among that switch's channels), so per-layer turn state is one flat array.
//
// Data structures: tail[c] (the switch c leaves), reverse[c] (the channel of
// the same link the other way; U-turns are never taken by a destination
// tree, so they are not edges), turn_first (CSR over turns).
#pragma once

#include "routing/switch_graph.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::nue {

struct ChannelTurns {
    explicit ChannelTurns(const SwitchGraph& graph);

    const SwitchGraph& g;
    std::vector<std::uint32_t> tail;
    std::vector<std::uint32_t> reverse;
    std::vector<std::size_t> turn_first; // size C+1

    std::size_t channel_count() const { return tail.size(); }
    std::size_t turn_count() const { return turn_first.back(); }
    // c2 must leave the switch c1 enters.
    std::size_t turn(std::uint32_t c1, std::uint32_t c2) const
    {
        return turn_first[c1] + (c2 - g.first[g.head[c1]]);
    }
    // The channels that enter switch s (the reverses of those leaving it).
    template <class F> void for_each_incoming(std::size_t s, F&& f) const
    {
        for (std::uint32_t c = g.first[s]; c < g.first[s + 1]; ++c) f(reverse[c]);
    }
};

} // namespace ibsm::routing::nue
