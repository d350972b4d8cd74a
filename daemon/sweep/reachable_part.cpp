// reachable_part (discovery.h): what is left of a fabric after links went
// down, seen from the SM's port.
//
// Why: a refresh removes links; a switch or CA behind them is gone for the
// SM (it cannot reach it, so it cannot route to it or program it), and a DR
// path that crossed a removed link leads nowhere. Routing engines expect one
// connected fabric, so the lost part is dropped and every path recomputed.
//
// Algorithm: breadth-first search from the SM's node over cabled ports (a
// refresh disconnects ports that went down), entering switches and leaving
// only through switches (a CA does not forward) or the SM's own port; the
// first path found to a node is a shortest one. When every node is reached
// the fabric is kept as is and only the paths change; otherwise a new Fabric
// is built with the reached nodes in their old order (so engines see the same
// order and keep their tie-breaks) and the attribute maps are re-keyed.
#include "daemon/sweep/discovery.h"

#include <deque>

namespace ibsm::daemon {

using topology::NodeId;
using topology::PortRef;

DiscoveryResult reachable_part(DiscoveryResult found, std::vector<Guid>* lost)
{
    const auto& f = found.fabric;
    const auto n = f.node_count();
    std::vector<std::optional<DrPath>> path(n);
    std::deque<NodeId> queue;
    const NodeId sm_node = found.sm_port.node;
    path[sm_node.value] = DrPath{};
    auto reach = [&](NodeId from, PortNum out) {
        auto r = f.remote(PortRef{from, out});
        if (!r || path[r->node.value]) return;
        const auto& p = *path[from.value];
        if (p.full()) return;
        path[r->node.value] = p.extended(out);
        queue.push_back(r->node);
    };
    if (f.node(sm_node).is_switch()) {
        queue.push_back(sm_node);
    } else {
        reach(sm_node, found.sm_port.port);
    }
    while (!queue.empty()) {
        NodeId id = queue.front();
        queue.pop_front();
        const auto& node = f.node(id);
        if (!node.is_switch()) continue;
        for (unsigned p = 1; p <= node.num_ports(); ++p) reach(id, PortNum(static_cast<std::uint8_t>(p)));
    }

    std::size_t reached = 0;
    for (const auto& p : path) reached += p.has_value();
    if (reached == n) {
        for (std::size_t i = 0; i < n; ++i) found.paths[i] = *path[i];
        return found;
    }

    DiscoveryResult out;
    std::vector<std::optional<NodeId>> renum(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto& old = f.node(NodeId{i});
        if (!path[i]) {
            if (lost) lost->push_back(old.guid);
            continue;
        }
        NodeId id = out.fabric.add_node(old.type, old.guid, old.num_ports(), old.description);
        renum[i] = id;
        auto& nn = out.fabric.node(id);
        nn.system_guid = old.system_guid;
        nn.vendor_id = old.vendor_id;
        nn.device_id = old.device_id;
        nn.revision = old.revision;
        nn.partition_cap = old.partition_cap;
        nn.sw = old.sw;
        for (unsigned p = 0; p < old.ports.size(); ++p) {
            const Guid keep = nn.ports[p].guid;
            nn.ports[p] = old.ports[p];
            nn.ports[p].guid = keep;
            nn.ports[p].remote.reset();
            if (!old.is_switch() && old.ports[p].guid.value() != 0)
                out.fabric.set_port_guid(PortRef{id, PortNum(static_cast<std::uint8_t>(p))}, old.ports[p].guid);
        }
        out.paths.push_back(*path[i]);
    }
    auto map = [&](PortRef p) { return PortRef{*renum[p.node.value], p.port}; };
    for (const auto& l : f.links())
        if (renum[l.a.node.value] && renum[l.b.node.value]) out.fabric.connect(map(l.a), map(l.b));
    for (const auto& [ref, pi] : found.port_info)
        if (renum[ref.node.value]) out.port_info.emplace(map(ref), pi);
    for (const auto& [id, si] : found.switch_info)
        if (renum[id.value]) out.switch_info.emplace(*renum[id.value], si);
    out.sm_port = map(found.sm_port);
    out.missing = std::move(found.missing);
    out.duplicates = std::move(found.duplicates);
    out.plain_port_info = std::move(found.plain_port_info);
    out.smps = found.smps;
    out.elapsed = found.elapsed;
    return out;
}

} // namespace ibsm::daemon
