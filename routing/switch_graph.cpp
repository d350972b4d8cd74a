// Dense switch graph (see header).
#include "routing/switch_graph.h"

#include "routing/minhop.h"

namespace ibsm::routing {

using topology::PortRef;

SwitchGraph build_switch_graph(const topology::Fabric& fabric, const lidassign::LidMap& lids)
{
    SwitchGraph g;
    g.switch_of_node.assign(fabric.node_count(), -1);
    for (auto id : fabric.node_ids())
        if (fabric.node(id).is_switch()) {
            g.switch_of_node[id.value] = static_cast<std::int32_t>(g.switches.size());
            g.switches.push_back(id);
        }
    const std::size_t S = g.size();
    g.first.assign(S + 1, 0);
    g.port_first.assign(S + 1, 0);
    g.hosts.assign(S, 0);
    for (std::size_t s = 0; s < S; ++s) {
        const auto& node = fabric.node(g.switches[s]);
        g.first[s] = static_cast<std::uint32_t>(g.head.size());
        g.port_first[s] = static_cast<std::uint32_t>(g.channel_at.size());
        g.channel_at.resize(g.channel_at.size() + node.ports.size(), no_channel);
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            const PortRef ref{g.switches[s], PortNum(static_cast<std::uint8_t>(p))};
            if (!link_usable(fabric, ref)) continue;
            const PortRef peer = *node.ports[p].remote;
            const auto peer_switch = g.switch_of_node[peer.node.value];
            if (peer_switch < 0) continue;
            g.channel_at[g.port_first[s] + p] = static_cast<std::uint32_t>(g.head.size());
            g.head.push_back(static_cast<std::uint32_t>(peer_switch));
            g.out_port.push_back(static_cast<std::uint8_t>(p));
            g.in_port.push_back(peer.port.value());
        }
    }
    g.first[S] = static_cast<std::uint32_t>(g.head.size());
    g.port_first[S] = static_cast<std::uint32_t>(g.channel_at.size());

    // Usable links are usable from both ends, so distances to t are the BFS
    // distances from t.
    g.dist.assign(S * S, unreachable_hops);
    g.by_distance.assign(S * S, 0);
    g.reach_count.assign(S, 0);
    for (std::size_t t = 0; t < S; ++t) {
        std::uint8_t* row = &g.dist[t * S];
        std::uint32_t* queue = &g.by_distance[t * S];
        std::size_t head = 0, tail = 0;
        row[t] = 0;
        queue[tail++] = static_cast<std::uint32_t>(t);
        while (head < tail) {
            const std::uint32_t u = queue[head++];
            if (row[u] >= unreachable_hops - 1) continue;
            for (std::uint32_t c = g.first[u]; c < g.first[u + 1]; ++c)
                if (row[g.head[c]] == unreachable_hops) {
                    row[g.head[c]] = static_cast<std::uint8_t>(row[u] + 1);
                    queue[tail++] = g.head[c];
                }
        }
        g.reach_count[t] = static_cast<std::uint32_t>(tail);
    }

    for (const auto& [ref, pl] : lids.entries()) {
        GraphDestination d;
        d.port = ref;
        d.port_guid = fabric.port(ref).guid;
        d.base = pl.base.value();
        d.count = pl.count();
        if (fabric.node(ref.node).is_switch()) {
            d.target = g.switch_of_node[ref.node.value];
            d.is_switch = true;
        } else if (link_usable(fabric, ref)) {
            const PortRef peer = *fabric.port(ref).remote;
            if (g.switch_of_node[peer.node.value] >= 0) {
                d.target = g.switch_of_node[peer.node.value];
                d.final_port = peer.port.value();
            }
        }
        if (!d.is_switch && d.target >= 0) ++g.hosts[static_cast<std::size_t>(d.target)];
        g.destinations.push_back(d);
    }
    g.lid_limit = static_cast<std::uint32_t>(lids.top().value()) + 1;
    g.lid_target.assign(g.lid_limit, -1);
    for (const auto& d : g.destinations)
        for (std::uint32_t k = 0; k < d.count; ++k) g.lid_target[d.base + k] = d.target;
    return g;
}

} // namespace ibsm::routing
