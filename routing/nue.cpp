// Nue routing (see header).
#include "routing/nue.h"

#include "routing/layer_sls.h"
#include "routing/nue/cdg_router.h"
#include "routing/nue/ebb_estimate.h"
#include "routing/nue/layer_split.h"
#include "routing/nue/nue_layer.h"
#include "routing/nue/updn_escape.h"
#include "routing/sssp.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace ibsm::routing {

namespace {

// One complete routing of every LID, and what it cost.
struct Candidate {
    std::string what;
    std::vector<std::uint8_t> out_port;
    std::vector<std::uint8_t> layer_of; // per LID x switch
    std::size_t layers = 1;
    std::size_t impasses = 0, moved = 0, repaired = 0;
    double ebb = -1; // the analyzer's estimate, when candidates were compared
    double seconds = 0;
};

// The search of §4 over the split's layers, with the tree escape paths
// (route_via empty) or Up*/Down*'s routes as escape (nue/updn_escape.h).
Candidate search(const SwitchGraph& g, const nue::ChannelTurns& turns, const nue::LayerSplit& split,
                 const std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& route_via,
                 analysis::StageProgress& progress)
{
    const auto start = std::chrono::steady_clock::now();
    const std::size_t S = g.size();
    Candidate c;
    c.what = route_via.empty() ? "tree escape paths" : "Up*/Down* escape routes";
    c.out_port.assign(static_cast<std::size_t>(g.lid_limit) * S, no_route);
    c.layer_of.assign(static_cast<std::size_t>(g.lid_limit) * S, 0);
    c.layers = std::max<std::size_t>(1, split.lids.size());
    std::vector<std::uint64_t> weight(g.channel_count(), nue::initial_weight(g));
    nue::CdgRouter router(turns, c.out_port, weight, g.hosts);
    const auto final_port = nue::final_ports(g);
    // Every layer set up first, then the LIDs in sssp's global order, each in
    // its own layer's dependencies: the weights grow in the order that
    // balances sssp, whatever the split. Layer after layer (the paper's
    // order) measured worse: Dragonfly+ of 8 groups (4 leaves, 4 spines)
    // EBB 0.748 against 0.790 at 4 VLs, 0.783 against 0.796 at 8.
    std::vector<nue::NueLayer> layers;
    layers.reserve(split.lids.size());
    std::vector<std::uint8_t> layer_of_lid(g.lid_limit, 0);
    for (std::size_t l = 0; l < split.lids.size(); ++l) {
        if (route_via.empty())
            layers.emplace_back(turns, split.lids[l], weight);
        else
            layers.emplace_back(turns, split.lids[l], route_via);
        for (auto lid : split.lids[l]) layer_of_lid[lid] = static_cast<std::uint8_t>(l);
    }
    for (auto i : order) {
        const auto& d = g.destinations[i];
        for (std::uint32_t lid = d.base; lid < d.base + d.count; ++lid) {
            const auto t = static_cast<std::size_t>(g.lid_target[lid]);
            auto& layer = layers[layer_of_lid[lid]];
            const std::size_t m = router.route(lid, t, final_port[lid], layer.deps, layer.escape);
            c.impasses += m > 0;
            c.moved += m;
            std::fill_n(&c.layer_of[static_cast<std::size_t>(lid) * S], S, layer_of_lid[lid]);
            progress.tick();
        }
    }
    c.repaired = router.repaired();
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
}

// Up*/Down*'s routes alone, on one layer: the search's fallback taken by
// every destination (all of them on their escape routes).
Candidate escape_only(const SwitchGraph& g, const std::vector<std::uint32_t>& route_via)
{
    const std::size_t S = g.size();
    Candidate c;
    c.what = "Up*/Down* escape routes alone";
    c.out_port.assign(static_cast<std::size_t>(g.lid_limit) * S, no_route);
    c.layer_of.assign(static_cast<std::size_t>(g.lid_limit) * S, 0);
    const auto final_port = nue::final_ports(g);
    for (std::uint32_t lid = 0; lid < g.lid_limit; ++lid) {
        if (g.lid_target[lid] < 0) continue;
        const auto t = static_cast<std::size_t>(g.lid_target[lid]);
        for (std::size_t s = 0; s < S; ++s) {
            const std::size_t k = static_cast<std::size_t>(lid) * S + s;
            if (s == t)
                c.out_port[k] = final_port[lid];
            else if (route_via[k] != no_channel)
                c.out_port[k] = g.out_port[route_via[k]];
        }
    }
    return c;
}

RoutingTables tables_of(const SwitchGraph& g, Candidate& c, const std::string& engine, Lid top)
{
    SsspRoutes routes;
    routes.graph = g;
    routes.out_port = std::move(c.out_port);
    RoutingTables tables = sssp_tables(routes, engine, top);
    c.out_port = std::move(routes.out_port);
    tables.switch_to_switch = true;
    const auto used = static_cast<unsigned>(c.layers);
    tables.layers_needed = static_cast<std::uint8_t>(used);
    tables.vls_used = static_cast<std::uint8_t>(used);
    if (used > 1) tables.sl = layer_service_levels(g, c.layer_of, std::vector<unsigned>(used, 1));
    return tables;
}

} // namespace

Result NueEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                          const Options& options) const
{
    const SwitchGraph g = build_switch_graph(fabric, lids);
    const unsigned budget = std::clamp<unsigned>(options.max_vls, 1, 15);
    const auto order = sssp_routing_order(g, options);
    const auto split = nue::split_destinations(g, order, budget);
    std::size_t total = 0;
    for (const auto& l : split.lids) total += l.size();
    const nue::ChannelTurns turns(g);

    std::size_t hosts = 0;
    for (auto h : g.hosts) hosts += h;
    const bool compare = hosts <= compare_host_limit;
    const std::vector<std::uint32_t> none;
    const auto route_via = compare ? nue::updn_escape_via(fabric, lids, g, options) : none;

    analysis::StageProgress progress(options.progress, "nue", total * (route_via.empty() ? 1 : 2));
    std::vector<Candidate> candidates;
    candidates.push_back(search(g, turns, split, order, none, progress));
    if (!route_via.empty()) {
        try {
            candidates.push_back(search(g, turns, split, order, route_via, progress));
            candidates.push_back(escape_only(g, route_via));
        } catch (const std::logic_error&) {
            // Up*/Down*'s routes with a cycle would be a bug of updn's; its
            // gate refuses them too. The tree escape's routing stands alone.
        }
    }
    std::size_t best = 0;
    if (candidates.size() > 1) {
        for (auto& c : candidates)
            c.ebb = nue::estimate_ebb(fabric, lids, tables_of(g, c, name(), lids.top()), estimate_bisections, 1);
        for (std::size_t i = 1; i < candidates.size(); ++i)
            if (candidates[i].ebb > candidates[best].ebb) best = i;
    }
    Candidate& kept = candidates[best];
    RoutingTables tables = tables_of(g, kept, name(), lids.top());
    const auto used = kept.layers;
    tables.notes.push_back(std::to_string(total) + " destination LIDs in " + std::to_string(used) +
                           (used == 1 ? " layer" : " layers") + " of " + std::to_string(budget) + " allowed; " +
                           std::to_string(kept.repaired) + " impasses repaired by local backtracking; " +
                           std::to_string(kept.impasses) + " LIDs took escape paths, for " +
                           std::to_string(kept.moved) + " switch routes");
    if (candidates.size() > 1) {
        std::string note = "kept " + kept.what + " by the EBB estimate (" +
                           std::to_string(estimate_bisections) + " bisections):";
        for (std::size_t i = 0; i < candidates.size(); ++i)
            note += (i ? ", " : " ") + candidates[i].what + " " + nue::fixed4(candidates[i].ebb) + " (" + nue::fixed4(candidates[i].seconds) + " s)";
        tables.notes.push_back(note);
    } else {
        tables.notes.push_back("tree escape paths only: " + std::to_string(hosts) + " hosts, more than the " +
                               std::to_string(compare_host_limit) + " up to which candidates are compared");
    }
    return tables;
}

} // namespace ibsm::routing
