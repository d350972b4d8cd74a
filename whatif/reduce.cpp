#include "whatif/reduce.h"

#include "topology/fabric_subset.h"

#include <deque>
#include <limits>

namespace ibsm::whatif {

topology::Fabric reduce(topology::Fabric f, const Reduction& r)
{
    for (auto end : r.links) f.disconnect(end);
    for (auto n : r.removed)
        for (std::uint8_t p = 1; p <= f.node(n).num_ports(); ++p) f.disconnect(topology::PortRef{n, PortNum(p)});
    return f;
}

namespace {

// Hops from `from` to every node (max: not reached), not entering `avoid`.
std::vector<unsigned> distances(const topology::Fabric& f, topology::NodeId from, const std::set<topology::NodeId>& avoid)
{
    constexpr unsigned far = std::numeric_limits<unsigned>::max();
    std::vector<unsigned> dist(f.node_count(), far);
    if (from.value >= f.node_count() || avoid.count(from)) return dist;
    std::deque<topology::NodeId> queue{from};
    dist[from.value] = 0;
    while (!queue.empty()) {
        const auto n = queue.front();
        queue.pop_front();
        const auto& node = f.node(n);
        for (const auto& port : node.ports) {
            if (!port.remote || port.num.value() == 0) continue;
            const auto next = port.remote->node;
            if (dist[next.value] != far || avoid.count(next)) continue;
            dist[next.value] = dist[n.value] + 1;
            queue.push_back(next);
        }
    }
    return dist;
}

} // namespace

std::vector<topology::NodeId> cut_off(const topology::Fabric& reduced, topology::NodeId sm_node,
                                      const std::set<topology::NodeId>& removed)
{
    const auto dist = distances(reduced, sm_node, removed);
    std::vector<topology::NodeId> out;
    for (auto id : reduced.node_ids())
        if (!removed.count(id) && dist[id.value] == std::numeric_limits<unsigned>::max()) out.push_back(id);
    return out;
}

Component component(const topology::Fabric& f, const lidassign::LidMap& lids, const std::vector<bool>& drop)
{
    Component c{topology::without_nodes(f, drop), {}, {}};
    std::vector<std::optional<topology::NodeId>> new_of(f.node_count());
    for (auto id : f.node_ids())
        if (!drop[id.value]) {
            new_of[id.value] = topology::NodeId{static_cast<std::uint32_t>(c.old_of.size())};
            c.old_of.push_back(id);
        }
    for (const auto& [port, l] : lids.entries())
        if (auto n = new_of.at(port.node.value)) c.lids.assign(topology::PortRef{*n, port.port}, l.base, l.lmc);
    return c;
}

DrainLinks drain_links(const topology::Fabric& f, topology::NodeId sm_node, topology::NodeId sw,
                       const std::set<topology::NodeId>& drained)
{
    std::set<topology::NodeId> avoid = drained;
    avoid.insert(sw);
    const auto dist = distances(f, sm_node, avoid);
    DrainLinks out;
    unsigned best = std::numeric_limits<unsigned>::max();
    const auto& node = f.node(sw);
    for (std::uint8_t p = 1; p <= node.num_ports(); ++p) {
        const topology::PortRef end{sw, PortNum(p)};
        auto far = f.remote(end);
        if (!far) continue;
        out.isolated.push_back(end);
        const auto& peer = f.node(far->node);
        if (!peer.is_switch() || drained.count(far->node)) continue;
        if (dist[far->node.value] < best) {
            best = dist[far->node.value];
            out.kept = end;
        }
    }
    if (out.kept) std::erase(out.isolated, *out.kept);
    return out;
}

} // namespace ibsm::whatif
