// Which destination trees a delta touched (see header).
#include "routing/touched_trees.h"

#include "routing/minhop.h"

#include <algorithm>

namespace ibsm::routing {

using topology::Fabric;
using topology::PortRef;

namespace {

struct Delivery {
    Guid target;
    std::uint8_t final_port = 0;
    bool traffic = false;
    bool reachable = false;
    bool operator==(const Delivery&) const = default;
};

// Per LID: where it is delivered (as updn.cpp's destinations, by GUID).
std::vector<Delivery> deliveries(const Fabric& fabric, const lidassign::LidMap& lids, std::uint32_t lid_limit)
{
    std::vector<Delivery> out(lid_limit);
    for (const auto& [ref, pl] : lids.entries()) {
        Delivery v;
        if (fabric.node(ref.node).is_switch()) {
            v = Delivery{fabric.node(ref.node).guid, 0, false, true};
        } else if (link_usable(fabric, ref)) {
            const PortRef peer = *fabric.port(ref).remote;
            if (fabric.node(peer.node).is_switch())
                v = Delivery{fabric.node(peer.node).guid, peer.port.value(), true, true};
        }
        for (std::uint16_t k = 0; k < pl.count(); ++k)
            if (pl.base.value() + k < lid_limit) out[pl.base.value() + k] = v;
    }
    return out;
}

} // namespace

// A switch only `a` has is a source of no route `b` needs; its links are
// lost from its neighbours' side.
std::vector<PortRef> switch_links_only_in(const Fabric& a, const Fabric& b)
{
    std::vector<PortRef> out;
    for (auto id : a.node_ids()) {
        const auto& n = a.node(id);
        if (!n.is_switch()) continue;
        const auto other = b.find_node(n.guid);
        if (!other) continue;
        for (std::uint8_t p = 1; p < n.ports.size(); ++p) {
            const PortRef ref{id, PortNum(p)};
            if (!link_usable(a, ref) || !a.node(n.ports[p].remote->node).is_switch()) continue;
            const auto& peer = *n.ports[p].remote;
            bool same = false;
            if (p < b.node(*other).ports.size()) {
                const PortRef there{*other, PortNum(p)};
                if (link_usable(b, there)) {
                    const auto& q = *b.port(there).remote;
                    same = b.node(q.node).guid == a.node(peer.node).guid && q.port == peer.port;
                }
            }
            if (!same) out.push_back(ref);
        }
    }
    return out;
}

TouchedTrees touched_trees(const Fabric& fabric, const lidassign::LidMap& lids, const Previous& previous)
{
    const std::uint32_t lid_limit = static_cast<std::uint32_t>(lids.top().value()) + 1;
    const Fabric& before = previous.fabric;
    TouchedTrees out;
    auto& again_lid = out.lid;
    std::size_t& anew = out.delivery;
    std::size_t& on_lost = out.on_lost;
    std::size_t& by_new = out.by_new;
    const auto was = deliveries(before, previous.lids, lid_limit);
    const auto now = deliveries(fabric, lids, lid_limit);
    again_lid.assign(lid_limit, 0);
    for (std::uint32_t lid = 0; lid < lid_limit; ++lid)
        if (!(was[lid] == now[lid])) again_lid[lid] = 1, ++anew;
    for (const PortRef& lost : switch_links_only_in(before, fabric)) {
        const auto& row = previous.tables.lfts.at(lost.node).port;
        for (std::uint32_t lid = 0; lid < std::min<std::size_t>(row.size(), lid_limit); ++lid)
            if (row[lid] == lost.port.value() && !again_lid[lid]) again_lid[lid] = 1, ++on_lost;
    }
    out.traffic_before.assign(lid_limit, 0);
    out.traffic_now.assign(lid_limit, 0);
    for (std::uint32_t lid = 0; lid < lid_limit; ++lid) {
        out.traffic_before[lid] = was[lid].traffic && was[lid].reachable;
        out.traffic_now[lid] = now[lid].traffic && now[lid].reachable;
    }
    out.added = switch_links_only_in(fabric, before);
    const auto& added = out.added;
    if (!added.empty()) {
        // Hops along the last tree from a switch of the last fabric (none: no route).
        const auto hops = [&](topology::NodeId from, std::uint32_t lid) -> int {
            topology::NodeId at = from;
            for (int h = 0; h <= static_cast<int>(before.switch_count()); ++h) {
                const auto port = previous.tables.lfts.at(at).at(Lid(static_cast<std::uint16_t>(lid)));
                if (port == no_route) return -1;
                const auto& p = before.node(at).ports.at(port);
                if (port == 0 || !p.remote || !before.node(p.remote->node).is_switch()) return h;
                at = p.remote->node;
            }
            return -1;
        };
        for (const PortRef& link : added) {
            const auto a = before.find_node(fabric.node(link.node).guid);
            const auto b = before.find_node(fabric.node(fabric.port(link).remote->node).guid);
            for (std::uint32_t lid = 0; lid < lid_limit; ++lid) {
                if (again_lid[lid] || !now[lid].reachable) continue;
                // A new switch's links: its place in every tree is new.
                const int ha = a ? hops(*a, lid) : -1, hb = b ? hops(*b, lid) : -1;
                if (ha != hb || ha < 0) again_lid[lid] = 1, ++by_new;
            }
        }
    }
    return out;
}

} // namespace ibsm::routing
