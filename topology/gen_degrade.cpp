// Host depopulation and seeded switch/link removal (interface in
// gen_degrade.h).
//
// Algorithm (degrade): shuffle the candidates with the seeded generator and
// walk the shuffled list, taking each candidate unless keep_connected is set
// and taking it would raise the number of connected components (counted by a
// BFS over the remaining nodes, O(V+E) per candidate). Switches first, then
// links among what is left, so a removed switch's cables are not counted as
// removed links. Removal happens on a working copy; nodes are dropped in one
// rebuild at the end.
#include "topology/gen_degrade.h"

#include "topology/fabric_subset.h"
#include "topology/gen_common.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace ibsm::topology {

namespace {

std::size_t components(const Fabric& f, const std::vector<bool>& gone)
{
    std::vector<bool> seen(f.node_count(), false);
    std::vector<NodeId> stack;
    std::size_t count = 0;
    for (NodeId start : f.node_ids()) {
        if (gone[start.value] || seen[start.value]) continue;
        ++count;
        seen[start.value] = true;
        stack.push_back(start);
        while (!stack.empty()) {
            NodeId n = stack.back();
            stack.pop_back();
            for (const Port& p : f.node(n).ports) {
                if (!p.remote) continue;
                auto peer = p.remote->node;
                if (gone[peer.value] || seen[peer.value]) continue;
                seen[peer.value] = true;
                stack.push_back(peer);
            }
        }
    }
    return count;
}

bool has_ca(const Fabric& f, NodeId sw)
{
    for (const Port& p : f.node(sw).ports)
        if (p.remote && f.node(p.remote->node).type != NodeType::switch_node) return true;
    return false;
}

Degraded drop_hosts(const Fabric& fabric, const std::vector<NodeId>& hosts)
{
    std::vector<bool> drop(fabric.node_count(), false);
    Degraded out;
    for (NodeId h : hosts) {
        drop[h.value] = true;
        out.removed.hosts.push_back(fabric.node(h).guid);
    }
    std::sort(out.removed.hosts.begin(), out.removed.hosts.end());
    out.fabric = without_nodes(fabric, drop);
    return out;
}

} // namespace

Degraded remove_random_hosts(const Fabric& fabric, std::size_t count, std::uint64_t seed)
{
    std::vector<NodeId> cas;
    for (NodeId id : fabric.node_ids())
        if (fabric.node(id).type == NodeType::ca) cas.push_back(id);
    if (count > cas.size())
        throw std::invalid_argument("cannot remove " + std::to_string(count) + " hosts: the fabric has only " +
                                    std::to_string(cas.size()));
    std::mt19937_64 rng(seed);
    gen::shuffle(cas, rng);
    cas.resize(count);
    return drop_hosts(fabric, cas);
}

Degraded remove_hosts_per_leaf(const Fabric& fabric, unsigned per_leaf)
{
    // leaf NodeId -> its CAs in leaf port order
    std::vector<std::vector<NodeId>> hosts_of(fabric.node_count());
    for (NodeId id : fabric.node_ids()) {
        const Node& n = fabric.node(id);
        if (n.type != NodeType::ca) continue;
        for (const Port& p : n.ports) {
            if (!p.remote || !fabric.node(p.remote->node).is_switch()) continue;
            hosts_of[p.remote->node.value].push_back(id);
            break;
        }
    }
    std::vector<NodeId> victims;
    for (NodeId sw : fabric.node_ids()) {
        auto& hs = hosts_of[sw.value];
        auto leaf_port = [&](NodeId h) {
            for (const Port& p : fabric.node(h).ports)
                if (p.remote && p.remote->node == sw) return p.remote->port;
            return PortNum{};
        };
        std::sort(hs.begin(), hs.end(), [&](NodeId a, NodeId b) { return leaf_port(a) < leaf_port(b); });
        std::size_t take = std::min<std::size_t>(per_leaf, hs.size());
        victims.insert(victims.end(), hs.end() - static_cast<std::ptrdiff_t>(take), hs.end());
    }
    return drop_hosts(fabric, victims);
}

Degraded degrade(const Fabric& fabric, const DegradeSpec& spec)
{
    Fabric work = fabric;
    std::vector<bool> gone(work.node_count(), false);
    std::mt19937_64 rng(spec.seed);
    const std::size_t baseline = components(work, gone);
    Removal removed;

    if (spec.switches > 0) {
        std::vector<NodeId> candidates;
        for (NodeId id : work.node_ids())
            if (work.node(id).is_switch() && !has_ca(work, id)) candidates.push_back(id);
        gen::shuffle(candidates, rng);
        for (NodeId sw : candidates) {
            if (removed.switches.size() == spec.switches) break;
            gone[sw.value] = true;
            if (spec.keep_connected && components(work, gone) > baseline) {
                gone[sw.value] = false;
                continue;
            }
            for (std::uint8_t p = 1; p <= work.node(sw).num_ports(); ++p) {
                PortRef here{sw, PortNum(p)};
                auto there = work.remote(here);
                if (!there) continue;
                work.disconnect(here);
                gen::clear_link_rate(work.port(here));
                gen::clear_link_rate(work.port(*there));
            }
            removed.switches.push_back(work.node(sw).guid);
        }
        if (removed.switches.size() < spec.switches)
            throw std::invalid_argument(
                "cannot remove " + std::to_string(spec.switches) + " switches: only " +
                std::to_string(removed.switches.size()) + " switches without hosts can go" +
                (spec.keep_connected ? " without disconnecting the fabric" : ""));
    }

    if (spec.links > 0) {
        std::vector<Link> candidates;
        for (const Link& l : work.links())
            if (work.node(l.a.node).is_switch() && work.node(l.b.node).is_switch()) candidates.push_back(l);
        gen::shuffle(candidates, rng);
        for (const Link& l : candidates) {
            if (removed.links.size() == spec.links) break;
            work.disconnect(l.a);
            if (spec.keep_connected && components(work, gone) > baseline) {
                work.connect(l.a, l.b);
                continue;
            }
            gen::clear_link_rate(work.port(l.a));
            gen::clear_link_rate(work.port(l.b));
            removed.links.push_back(
                RemovedLink{work.node(l.a.node).guid, l.a.port, work.node(l.b.node).guid, l.b.port});
        }
        if (removed.links.size() < spec.links)
            throw std::invalid_argument("cannot remove " + std::to_string(spec.links) +
                                        " switch-to-switch links: only " + std::to_string(removed.links.size()) +
                                        " can go" + (spec.keep_connected ? " without disconnecting the fabric" : ""));
    }

    Degraded out;
    out.fabric = removed.switches.empty() ? std::move(work) : without_nodes(work, gone);
    out.removed = std::move(removed);
    return out;
}

} // namespace ibsm::topology
