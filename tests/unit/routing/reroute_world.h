// A fabric and the random deltas a re-route test applies to it
// (test_reroute_property.cpp, test_reroute_engines.cpp): the whole fabric, what a sequence of deltas has
// taken out of it (cables, switches, hosts), and the LIDs of the whole
// fabric kept by GUID, as guid2lid keeps them.
#pragma once

#include "lidassign/base_lids.h"
#include "routing/analysis/analyze.h"
#include "routing/tables.h"
#include "topology/fabric_delta.h"
#include "topology/fabric_subset.h"

#include <queue>
#include <random>
#include <set>
#include <string>

namespace ibsm::reroute_test {

struct Cable {
    topology::PortKey a, b;
    auto operator<=>(const Cable&) const = default;
};

struct World {
    topology::Fabric whole;
    lidassign::LidMap whole_lids;
    std::set<Cable> cables_out;
    std::set<Guid> nodes_out;

    topology::Fabric current() const
    {
        topology::Fabric f = whole;
        for (const auto& c : cables_out)
            if (auto id = f.find_node(c.a.node)) f.disconnect(topology::PortRef{*id, c.a.port});
        std::vector<bool> drop(f.node_count(), false);
        for (auto g : nodes_out) drop[f.find_node(g)->value] = true;
        return topology::without_nodes(f, drop);
    }
    lidassign::LidMap lids_of(const topology::Fabric& f) const
    {
        lidassign::LidMap out;
        for (const auto& [ref, pl] : whole_lids.entries())
            if (auto id = f.find_node(whole.node(ref.node).guid)) {
                const auto& node = f.node(*id);
                if (!node.is_switch() && !node.ports.at(ref.port.value()).remote) continue; // no cable, no LID
                out.assign(topology::PortRef{*id, ref.port}, pl.base, pl.lmc);
            }
        return out;
    }
};

inline bool switches_connected(const topology::Fabric& f)
{
    std::vector<char> seen(f.node_count(), 0);
    std::size_t switches = 0, reached = 0;
    std::queue<topology::NodeId> todo;
    for (auto id : f.node_ids())
        if (f.node(id).is_switch() && switches++ == 0) {
            seen[id.value] = 1;
            todo.push(id);
        }
    while (!todo.empty()) {
        auto id = todo.front();
        todo.pop();
        ++reached;
        for (const auto& p : f.node(id).ports)
            if (p.remote && f.node(p.remote->node).is_switch() && !seen[p.remote->node.value]) {
                seen[p.remote->node.value] = 1;
                todo.push(p.remote->node);
            }
    }
    return reached == switches;
}

inline bool has_host(const topology::Fabric& f, topology::NodeId id)
{
    for (const auto& p : f.node(id).ports)
        if (p.remote && !f.node(p.remote->node).is_switch()) return true;
    return false;
}

// One random delta that keeps the switches connected (a switch cable down
// or back, a host-less switch gone, a node back, a host gone); false if
// none was found.
inline bool random_delta(World& w, std::mt19937_64& rng, std::string& what)
{
    const topology::Fabric now = w.current();
    for (int attempt = 0; attempt < 40; ++attempt) {
        World next = w;
        const auto kind = rng() % 6;
        if (kind <= 1) { // a switch-to-switch cable down (or an isolated port)
            std::vector<Cable> cables;
            for (const auto& l : now.links())
                if (now.node(l.a.node).is_switch() && now.node(l.b.node).is_switch())
                    cables.push_back(Cable{topology::PortKey{now.node(l.a.node).guid, l.a.port},
                                           topology::PortKey{now.node(l.b.node).guid, l.b.port}});
            if (cables.empty()) continue;
            next.cables_out.insert(cables[rng() % cables.size()]);
            what = "cable down";
        } else if (kind == 2 && !w.cables_out.empty()) { // a cable back (an isolation cleared)
            auto it = w.cables_out.begin();
            std::advance(it, static_cast<long>(rng() % w.cables_out.size()));
            next.cables_out.erase(*it);
            what = "cable up";
        } else if (kind == 3) { // a switch without hosts gone
            std::vector<Guid> spines;
            for (auto id : now.node_ids())
                if (now.node(id).is_switch() && !has_host(now, id)) spines.push_back(now.node(id).guid);
            if (spines.empty()) continue;
            next.nodes_out.insert(spines[rng() % spines.size()]);
            what = "switch gone";
        } else if (kind == 4 && !w.nodes_out.empty()) { // a node back or added
            auto it = w.nodes_out.begin();
            std::advance(it, static_cast<long>(rng() % w.nodes_out.size()));
            next.nodes_out.erase(*it);
            what = "node back";
        } else if (kind == 5) { // a host leaves (to come back as a new node later)
            std::vector<Guid> hosts;
            for (auto id : now.node_ids())
                if (!now.node(id).is_switch()) hosts.push_back(now.node(id).guid);
            if (hosts.size() < 3) continue;
            next.nodes_out.insert(hosts[rng() % hosts.size()]);
            what = "host gone";
        } else {
            continue;
        }
        if (!switches_connected(next.current())) continue;
        w = std::move(next);
        return true;
    }
    return false;
}

inline double ebb(topology::Fabric f, const lidassign::LidMap& lids, const routing::RoutingTables& t)
{
    lidassign::apply_lids(lids, f);
    routing::analysis::Options o;
    o.run_shifts = false;
    o.ebb.bisections = 50;
    o.threads = 1;
    auto r = routing::analysis::analyze(f, t, o);
    return r.ebb ? r.ebb->ebb : 0.0;
}

} // namespace ibsm::reroute_test
