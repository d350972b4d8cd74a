// reachable_part and in_guid_order (discovery.h): what is left of a fabric
// after links went down, seen from the SM's port, with its nodes in GUID order.
//
// Why: a refresh removes links; a switch or CA behind them is gone for the
// SM (it cannot reach it, so it cannot route to it or program it), and a DR
// path that crossed a removed link leads nowhere. Routing engines expect one
// connected fabric, so the lost part is dropped and every path recomputed.
// Node order: NodeIds are the order every engine, the LID assignment and
// the fat-tree ranking break ties in. Discovery meets nodes in DR-path
// order, which depends on where the SM sits; a standby on another leaf (or
// a refresh that found a node late) would route the same fabric to other
// tables, and a takeover would move traffic. Numbering nodes by node GUID
// makes the graph, and so the tables, the same whoever discovers it.
//
// Algorithm (shortest_paths): breadth-first search from the SM's node over
// cabled ports (a refresh disconnects ports that went down), leaving only
// through switches (a CA does not forward) or the SM's own port, and never
// entering a node the caller avoids; the first path found to a node is a
// shortest one. When every node is reached
// and the nodes are already in GUID order, the fabric is kept as is and only
// the paths change; otherwise a new Fabric is built with the reached nodes
// in GUID order and the attribute maps are re-keyed.
#include "daemon/sweep/discovery.h"

#include <algorithm>
#include <deque>
#include <optional>

namespace ibsm::daemon {

using topology::NodeId;
using topology::PortRef;

namespace {

// `found` with only the nodes `keep` names, numbered in node GUID order;
// `paths` (indexed by the old NodeIds) become the nodes' DR paths.
DiscoveryResult renumbered(DiscoveryResult found, std::vector<NodeId> keep, std::vector<DrPath> paths)
{
    const auto& f = found.fabric;
    const auto n = f.node_count();
    std::sort(keep.begin(), keep.end(), [&](NodeId a, NodeId b) { return f.node(a).guid < f.node(b).guid; });
    bool identity = keep.size() == n;
    for (std::uint32_t i = 0; identity && i < keep.size(); ++i) identity = keep[i].value == i;
    if (identity) {
        found.paths = std::move(paths);
        return found;
    }

    DiscoveryResult out;
    std::vector<std::optional<NodeId>> renum(n);
    for (const NodeId old_id : keep) {
        const auto& old = f.node(old_id);
        NodeId id = out.fabric.add_node(old.type, old.guid, old.num_ports(), old.description);
        renum[old_id.value] = id;
        auto& nn = out.fabric.node(id);
        nn.system_guid = old.system_guid;
        nn.name = old.name;
        nn.vendor_id = old.vendor_id;
        nn.device_id = old.device_id;
        nn.revision = old.revision;
        nn.partition_cap = old.partition_cap;
        nn.sw = old.sw;
        for (unsigned p = 0; p < old.ports.size(); ++p) {
            const Guid keep_guid = nn.ports[p].guid;
            nn.ports[p] = old.ports[p];
            nn.ports[p].guid = keep_guid;
            nn.ports[p].remote.reset();
            if (!old.is_switch() && old.ports[p].guid.value() != 0)
                out.fabric.set_port_guid(PortRef{id, PortNum(static_cast<std::uint8_t>(p))}, old.ports[p].guid);
        }
        out.paths.push_back(paths.at(old_id.value));
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

} // namespace

std::vector<std::optional<DrPath>> shortest_paths(const DiscoveryResult& found, const std::vector<bool>& avoid)
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
        if (r->node.value < avoid.size() && avoid[r->node.value]) return;
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
    return path;
}

DiscoveryResult reachable_part(DiscoveryResult found, std::vector<Guid>* lost)
{
    const auto n = found.fabric.node_count();
    const auto path = shortest_paths(found, {});
    const auto& f = found.fabric;

    std::vector<NodeId> keep;
    keep.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        if (path[i])
            keep.push_back(NodeId{i});
        else if (lost)
            lost->push_back(f.node(NodeId{i}).guid);
    }
    std::vector<DrPath> paths(n);
    for (std::size_t i = 0; i < n; ++i)
        if (path[i]) paths[i] = *path[i];
    return renumbered(std::move(found), keep, std::move(paths));
}

DiscoveryResult in_guid_order(DiscoveryResult found)
{
    std::vector<NodeId> keep = found.fabric.node_ids();
    auto paths = std::move(found.paths);
    return renumbered(std::move(found), std::move(keep), std::move(paths));
}

} // namespace ibsm::daemon
