// Which destination trees a delta touched (see header).
#include "routing/touched_trees.h"

#include "routing/minhop.h"

#include <algorithm>
#include <cstdint>

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
    out.routed_before.assign(lid_limit, 0);
    for (std::uint32_t lid = 0; lid < lid_limit; ++lid) {
        out.routed_before[lid] = was[lid].reachable;
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

namespace {
constexpr std::uint32_t gone = 0xffffffffu;
}

void kept_channel_loads(const Fabric& fabric, const std::vector<topology::NodeId>& switches,
                        const std::vector<char>& channel, const Previous& prev, const TouchedTrees& touched,
                        const KeptTrees& k, const std::vector<std::uint64_t>& old_load,
                        const std::vector<std::uint32_t>* old_usage, std::vector<std::uint64_t>& load,
                        std::vector<std::uint32_t>* usage)
{
    const Fabric& before = prev.fabric;
    const std::uint32_t lid_limit = static_cast<std::uint32_t>(k.again.size());
    const std::size_t S = switches.size(), O = k.old_switches.size();
    const auto& old_place = k.old_index;
    std::vector<std::uint32_t> new_place(O, gone);
    for (std::uint32_t p = 0; p < S; ++p) new_place[old_place[p]] = p;
    std::vector<topology::NodeId> old_node(O);
    std::vector<std::uint32_t> old_place_of_node(before.node_count(), gone);
    for (std::uint32_t op = 0; op < O; ++op) {
        old_node[op] = *before.find_node(k.old_switches[op]);
        old_place_of_node[old_node[op].value] = op;
    }
    std::vector<std::uint32_t> index_of_node(fabric.node_count(), gone);
    for (std::uint32_t p = 0; p < S; ++p) index_of_node[switches[p].value] = p;
    std::vector<char> live = channel;
    for (const auto& ref : touched.added) live[std::size_t{index_of_node[ref.node.value]} * 256 + ref.port.value()] = 0;
    load.assign(S * 256, 0);
    if (usage) usage->assign(S * 256, 0);
    for (std::uint32_t p = 0; p < S; ++p)
        for (std::size_t port = 0; port < 256; ++port) {
            const std::size_t at = std::size_t{p} * 256 + port;
            if (!live[at]) continue;
            const std::size_t was = std::size_t{old_place[p]} * 256 + port;
            load[at] = old_load[was];
            if (usage) (*usage)[at] = (*old_usage)[was];
        }
    constexpr std::size_t lost = SIZE_MAX;
    const auto channel_now = [&](std::uint32_t op, std::uint8_t port) {
        const std::uint32_t p = new_place[op];
        if (p == gone) return lost;
        const std::size_t at = std::size_t{p} * 256 + port;
        return live[at] ? at : lost;
    };
    // The last tree's next switch from old place op (gone: none), its port in `port`.
    const auto step = [&](std::uint32_t op, std::uint32_t lid, std::uint8_t& port) {
        port = prev.tables.lfts.at(old_node[op]).at(Lid(static_cast<std::uint16_t>(lid)));
        if (port == no_route || port == 0) return gone;
        const auto& pt = before.node(old_node[op]).ports.at(port);
        if (!pt.remote || !before.node(pt.remote->node).is_switch()) return gone;
        return old_place_of_node[pt.remote->node.value];
    };

    std::vector<std::uint32_t> next(O), depth(O), by_depth;
    std::vector<std::uint8_t> port(O);
    std::vector<std::uint64_t> acc(O);
    std::vector<std::uint32_t> path;
    for (std::uint32_t lid = 0; lid < lid_limit; ++lid) {
        if (!k.again[lid] || !k.before[lid]) continue;
        for (std::uint32_t op = 0; op < O; ++op) {
            next[op] = step(op, lid, port[op]);
            depth[op] = gone;
            acc[op] = 0;
        }
        // Depth along the tree (the delivering switch and dead ends 0).
        for (std::uint32_t op = 0; op < O; ++op) {
            path.clear();
            std::uint32_t q = op;
            while (depth[q] == gone && next[q] != gone && path.size() <= O) {
                path.push_back(q);
                q = next[q];
            }
            std::uint32_t d = depth[q] == gone ? (depth[q] = 0) : depth[q];
            for (auto it = path.rbegin(); it != path.rend(); ++it) depth[*it] = ++d;
        }
        by_depth.resize(O);
        for (std::uint32_t op = 0; op < O; ++op) by_depth[op] = op;
        std::sort(by_depth.begin(), by_depth.end(), [&](auto a, auto b) { return depth[a] > depth[b]; });
        for (const std::uint32_t op : by_depth) {
            if (next[op] == gone) continue;
            const std::uint64_t routes = acc[op] + k.old_sources[op];
            acc[next[op]] += routes;
            const std::size_t at = channel_now(op, port[op]);
            if (at == lost) continue;
            load[at] -= std::min(load[at], routes);
            if (usage) (*usage)[at] -= std::min<std::uint32_t>((*usage)[at], 1);
        }
    }
    for (std::uint32_t op = 0; op < O; ++op) {
        const std::int64_t delta = static_cast<std::int64_t>(new_place[op] == gone ? 0 : k.sources[new_place[op]]) -
                                   static_cast<std::int64_t>(k.old_sources[op]);
        if (delta == 0) continue;
        for (std::uint32_t lid = 0; lid < lid_limit; ++lid) {
            if (k.again[lid] || !k.now[lid]) continue;
            std::uint8_t via = 0;
            for (std::uint32_t q = op, hops = 0; hops <= O; ++hops) {
                const std::uint32_t nq = step(q, lid, via);
                if (nq == gone) break;
                const std::size_t at = channel_now(q, via);
                if (at != lost) load[at] = static_cast<std::uint64_t>(static_cast<std::int64_t>(load[at]) + delta);
                q = nq;
            }
        }
    }
}

} // namespace ibsm::routing
