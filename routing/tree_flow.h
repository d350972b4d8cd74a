// Sources flowing down one destination's routing tree onto its channels:
// the load count of the balancing engines (sssp's channel weights, seed 001
// §III-A; Nue's weight update, HPDC 2016 §4; dfsssp's escape layer) and of
// the virtual layers' turn counts (seed 001 §III-D).
//
// Why: destination-based routes to one LID form a tree; every switch's own
// sources, and everything routed through it, leave on its one channel
// toward the destination. Four engines count that; one function keeps
// them counting alike.
//
// Data structures: `order`, the destination switch first, then every
// switch after the one its channel leads to (nearest first, or any
// breadth-first order of the tree); `flow`, per switch, the sources
// entering it (scratch, indexed by switch, as large as the graph).
//
// Algorithm: one pass from the far end: a switch's flow (its own sources
// plus what its children sent) crosses its channel and joins the flow of
// the channel's head. O(switches in the tree).
#pragma once

#include "routing/switch_graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace ibsm::routing {

// For every switch u of `order` but the first, on_channel(u, c, f): the
// f sources of u and of the switches routed through it cross u's channel
// c = next(u). A switch whose next(u) is no_channel sends nothing on.
// `source[u]`: the sources at switch u. Returns the sources in the whole
// tree, the destination's own included.
template <typename Next, typename OnChannel>
std::uint64_t flow_down_tree(const SwitchGraph& g, std::span<const std::uint32_t> order, Next&& next,
                             std::span<const std::uint32_t> source, std::vector<std::uint64_t>& flow,
                             OnChannel&& on_channel)
{
    std::uint64_t total = 0;
    for (const std::uint32_t u : order) {
        flow[u] = source[u];
        total += source[u];
    }
    for (std::size_t i = order.size(); i-- > 1;) {
        const std::uint32_t u = order[i];
        const std::uint32_t c = next(u);
        if (c == no_channel) continue;
        on_channel(u, c, flow[u]);
        flow[g.head[c]] += flow[u];
    }
    return total;
}

// The common use: the sources crossing each channel added to `weight`.
template <typename Next>
void add_tree_loads(const SwitchGraph& g, std::span<const std::uint32_t> order, Next&& next,
                    std::span<const std::uint32_t> source, std::vector<std::uint64_t>& flow,
                    std::vector<std::uint64_t>& weight)
{
    flow_down_tree(g, order, next, source, flow,
                   [&](std::uint32_t, std::uint32_t c, std::uint64_t f) { weight[c] += f; });
}

} // namespace ibsm::routing
