// P-SSSP's re-route: only the destinations whose trees a delta touched are
// routed again (Hoefler, Schneider, Lumsdaine, "Optimized Routing for
// Large-Scale InfiniBand Networks", seed 001 §III-A).
//
// Why: P-SSSP routes one destination at a time over channel weights that
// count the routes already placed (§III-A, Fig. 2). After a delta, a tree
// that used no lost link is still a tree of minimal paths (a lost link
// lengthens no path it did not carry) and one that no new link can shorten
// or offer an equal-hop alternative is still a tree P-SSSP could choose
// (touched_trees.h). Those are kept; the channel weights are then the last
// run's minus the removed trees' contributions (and with the sources that
// left or came along the kept trees), and the touched destinations are
// routed by P-SSSP over them, in its order.
//
// Data structures: SsspRoutes (sssp.h) with the kept tables transposed into
// its LID-major matrix; SsspMemory, the last run's switch GUIDs, sources per
// switch and final channel weights (the tables and fabric are Previous's).
//
// Algorithm: build this fabric's switch graph (one BFS per switch, as a
// full run); LMC > 0 and a switch no earlier run routed (new or back) are
// a full run
// (its place in every tree is new); touched_trees() picks the LIDs; their
// columns are cleared, the kept columns copied, kept_channel_loads() gives
// the weights and route_sssp_destinations() routes the touched ones over
// them. Cost: a full run's graph build, O(S x LIDs) to copy the kept
// columns, and the full run's cost per touched destination.
#include "routing/sssp.h"

#include "routing/touched_trees.h"

#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ibsm::routing {

using topology::Fabric;

namespace {

struct SsspMemory final : EngineMemory {
    std::vector<Guid> switch_guids;
    std::vector<std::uint32_t> hosts;   // by switch index: the sources of every tree
    std::vector<std::uint64_t> weights; // by switch index * 256 + port, after the run
};

std::shared_ptr<SsspMemory> remember(const Fabric& fabric, const SwitchGraph& g, std::vector<std::uint64_t>&& weights)
{
    auto m = std::make_shared<SsspMemory>();
    for (auto id : g.switches) m->switch_guids.push_back(fabric.node(id).guid);
    m->hosts = g.hosts;
    m->weights = std::move(weights);
    return m;
}

} // namespace

EngineRun SsspEngine::compute_after(const Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                                    const Previous* previous) const
{
    const auto* memory = previous ? dynamic_cast<const SsspMemory*>(previous->state) : nullptr;
    std::string why = previous && !memory ? "no sssp state kept" : "";
    // With LMC > 0 the kept trees and the re-routed blocks on top of them
    // lost 14 % of EBB against a full run on a 64-host tree after one cable
    // (test_reroute_engines.cpp, LMC 0 there: within 1 %); until that is
    // understood, a full run.
    if (previous && memory && options.lmc > 0) why = "LMC > 0 re-routes in full";
    SsspRoutes r;
    r.graph = build_switch_graph(fabric, lids);
    const std::size_t S = r.graph.size();
    if (memory) {
        const std::unordered_set<std::uint64_t> known = [&] {
            std::unordered_set<std::uint64_t> k;
            for (auto g : memory->switch_guids) k.insert(g.value());
            return k;
        }();
        for (std::size_t s = 0; s < S && why.empty(); ++s)
            if (!known.count(fabric.node(r.graph.switches[s]).guid.value()))
                why = "switch " + fabric.node(r.graph.switches[s]).guid.str() + " new: its place in every tree is new";
    }
    const auto order = sssp_routing_order(r.graph, options);
    r.out_port.assign(static_cast<std::size_t>(r.graph.lid_limit) * S, no_route);
    if (!previous || !why.empty()) {
        std::vector<std::uint64_t> weights;
        route_sssp_destinations(r, order, std::vector<char>(r.graph.destinations.size(), 1), &weights);
        return EngineRun{sssp_tables(r, name(), lids.top()), remember(fabric, r.graph, std::move(weights)),
                         previous ? "full run (" + why + ")" : "full run", false};
    }

    const TouchedTrees touched = touched_trees(fabric, lids, *previous);
    std::vector<char> route_it(r.graph.destinations.size(), 0);
    std::size_t routed = 0, total = 0;
    for (std::size_t i = 0; i < r.graph.destinations.size(); ++i) {
        const auto& d = r.graph.destinations[i];
        if (d.target < 0) continue;
        for (std::uint32_t k = 0; k < d.count; ++k) route_it[i] |= touched.lid[d.base + k];
        total += d.count;
        routed += route_it[i] ? d.count : 0;
    }
    // The kept columns, from the last tables by switch GUID.
    for (std::size_t s = 0; s < S; ++s) {
        const auto id = previous->fabric.find_node(fabric.node(r.graph.switches[s]).guid);
        const auto& row = previous->tables.lfts.at(*id).port;
        for (std::size_t i = 0; i < r.graph.destinations.size(); ++i) {
            const auto& d = r.graph.destinations[i];
            if (route_it[i] || d.target < 0) continue;
            for (std::uint32_t k = 0; k < d.count; ++k) {
                const std::uint32_t lid = d.base + k;
                if (lid < row.size()) r.out_port[static_cast<std::size_t>(lid) * S + s] = row[lid];
            }
        }
    }
    // The weights of the kept trees: the last run's less the re-routed
    // trees' and the changed sources' contributions (touched_trees.h).
    std::vector<char> again = touched.lid, before(touched.lid.size(), 0), now(touched.lid.size(), 0);
    for (std::size_t i = 0; i < r.graph.destinations.size(); ++i) {
        const auto& d = r.graph.destinations[i];
        for (std::uint32_t k = 0; k < d.count; ++k) {
            again[d.base + k] |= route_it[i];
            now[d.base + k] = d.target >= 0;
        }
    }
    for (std::size_t lid = 0; lid < before.size(); ++lid) before[lid] = touched.routed_before[lid];
    std::vector<std::uint32_t> old_index(S);
    {
        std::unordered_map<std::uint64_t, std::uint32_t> index_of;
        for (std::uint32_t i = 0; i < memory->switch_guids.size(); ++i) index_of.emplace(memory->switch_guids[i].value(), i);
        for (std::size_t s = 0; s < S; ++s) old_index[s] = index_of.at(fabric.node(r.graph.switches[s]).guid.value());
    }
    std::vector<char> channel(S * 256, 0);
    for (std::size_t s = 0; s < S; ++s)
        for (std::uint32_t c = r.graph.first[s]; c < r.graph.first[s + 1]; ++c) channel[s * 256 + r.graph.out_port[c]] = 1;
    const KeptTrees kept{memory->switch_guids, memory->hosts, old_index, r.graph.hosts, before, now, again};
    std::vector<std::uint64_t> weights;
    kept_channel_loads(fabric, r.graph.switches, channel, *previous, touched, kept, memory->weights, nullptr, weights,
                       nullptr);
    route_sssp_destinations(r, order, route_it, &weights);
    std::string how = "incremental (" + previous->delta.summary() + "; " + std::to_string(routed) + " of " +
                      std::to_string(total) + " destination LIDs re-routed: " + std::to_string(touched.delivery) +
                      " with a changed delivery, " + std::to_string(touched.on_lost) + " on a lost link, " +
                      std::to_string(touched.by_new) + " a new link may shorten)";
    return EngineRun{sssp_tables(r, name(), lids.top()), remember(fabric, r.graph, std::move(weights)), std::move(how),
                     true};
}

} // namespace ibsm::routing
