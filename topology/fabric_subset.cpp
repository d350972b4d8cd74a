#include "topology/fabric_subset.h"

#include <stdexcept>

namespace ibsm::topology {

Fabric without_nodes(const Fabric& fabric, const std::vector<bool>& drop)
{
    if (drop.size() != fabric.node_count()) throw std::invalid_argument("without_nodes: mask size mismatch");
    Fabric out;
    std::vector<std::uint32_t> new_id(fabric.node_count(), UINT32_MAX);
    for (NodeId id : fabric.node_ids()) {
        if (drop[id.value]) continue;
        const Node& src = fabric.node(id);
        NodeId nid = out.add_node(src.type, src.guid, src.num_ports(), src.description);
        new_id[id.value] = nid.value;
        Node copy = src;
        for (Port& p : copy.ports) {
            if (p.remote && drop[p.remote->node.value]) {
                // The cable went with the dropped node; so did its rate.
                p.link_width_active = 0;
                p.link_speed_active = 0;
                p.link_speed_ext_active = 0;
            }
            p.remote.reset();
            if (!copy.is_switch()) p.guid = Guid{}; // re-registered below
        }
        out.node(nid) = std::move(copy);
        if (!src.is_switch())
            for (const Port& p : src.ports)
                if (!p.guid.is_zero()) out.set_port_guid({nid, p.num}, p.guid);
    }
    for (const Link& l : fabric.links()) {
        if (drop[l.a.node.value] || drop[l.b.node.value]) continue;
        out.connect({NodeId{new_id[l.a.node.value]}, l.a.port}, {NodeId{new_id[l.b.node.value]}, l.b.port});
    }
    return out;
}

} // namespace ibsm::topology
