// The LFT walk of every pair (see header).
#include "routing/paths/paths_from_tables.h"

#include "lidassign/path_lids.h"

#include <algorithm>

namespace ibsm::routing::paths {

using topology::PortRef;

std::variant<topology::PairPaths, Refusal> paths_from_tables(const topology::Fabric& fabric,
                                                             const lidassign::LidMap& lids,
                                                             const RoutingTables& tables)
{
    topology::PairPaths out;
    out.engine = tables.engine;
    std::vector<PortRef> sources;
    std::vector<std::pair<PortRef, Lid>> dests;
    for (const auto& [port, pl] : lids.entries()) {
        const auto& node = fabric.node(port.node);
        if (node.is_switch()) {
            sources.push_back(port);
            continue;
        }
        dests.emplace_back(port, pl.base);
        auto r = fabric.remote(port);
        if (r && fabric.node(r->node).is_switch()) sources.push_back(port);
    }
    std::sort(sources.begin(), sources.end());
    std::sort(dests.begin(), dests.end());
    const std::size_t max_hops = fabric.switch_count();
    for (const auto& [dst, dlid] : dests) {
        topology::DestinationPaths dp;
        dp.dst = dst;
        for (PortRef src : sources) {
            if (src == dst) continue;
            topology::PairPath path;
            path.src = src;
            topology::NodeId sw = fabric.node(src.node).is_switch() ? src.node : fabric.remote(src)->node;
            std::string why;
            while (why.empty()) {
                if (path.hops.size() > max_hops) {
                    why = "forwarding loop";
                    break;
                }
                auto lft = tables.lfts.find(sw);
                const std::uint8_t p = lft == tables.lfts.end() ? no_route : lft->second.at(dlid);
                if (p == no_route || p == 0 || p > fabric.node(sw).num_ports()) {
                    why = "dropped at " + fabric.node(sw).guid.str();
                    break;
                }
                path.hops.push_back(topology::PathHop{sw, PortNum(p)});
                auto r = fabric.remote(PortRef{sw, PortNum(p)});
                if (r && *r == dst) break;
                if (!r || !fabric.node(r->node).is_switch()) {
                    why = "dropped at " + fabric.node(sw).guid.str() + " port " + std::to_string(p);
                    break;
                }
                sw = r->node;
            }
            if (!why.empty())
                return Refusal{tables.engine, "route " + lidassign::describe_port(fabric, src) + " → " +
                                                  lidassign::describe_port(fabric, dst) + ": " + why};
            dp.paths.push_back(std::move(path));
        }
        out.destinations.push_back(std::move(dp));
    }
    return out;
}

} // namespace ibsm::routing::paths
