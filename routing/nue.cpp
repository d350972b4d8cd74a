// Nue routing (see header).
#include "routing/nue.h"

#include "routing/layer_sls.h"
#include "routing/nue/cdg_router.h"
#include "routing/nue/layer_split.h"
#include "routing/nue/nue_layer.h"
#include "routing/sssp.h"

#include <algorithm>
#include <string>

namespace ibsm::routing {

Result NueEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                          const Options& options) const
{
    SsspRoutes routes;
    routes.graph = build_switch_graph(fabric, lids);
    const SwitchGraph& g = routes.graph;
    const std::size_t S = g.size();
    routes.out_port.assign(static_cast<std::size_t>(g.lid_limit) * S, no_route);

    const unsigned budget = std::clamp<unsigned>(options.max_vls, 1, 15);
    const auto split = nue::split_destinations(g, sssp_routing_order(g, options), budget);
    std::size_t total = 0;
    for (const auto& l : split.lids) total += l.size();

    const nue::ChannelTurns turns(g);
    std::vector<std::uint64_t> weight(g.channel_count(), nue::initial_weight(g));
    nue::CdgRouter router(turns, routes.out_port, weight, g.hosts);
    const auto final_port = nue::final_ports(g);
    std::vector<std::uint8_t> layer_of(static_cast<std::size_t>(g.lid_limit) * S, 0);
    analysis::StageProgress progress(options.progress, "nue", total);
    std::size_t impasses = 0, moved = 0;
    // Every layer set up first, then the LIDs in sssp's global order, each in
    // its own layer's dependencies: the weights grow in the order that
    // balances sssp, whatever the split. Layer after layer (the paper's
    // order) measured worse: Dragonfly+ of 8 groups (4 leaves, 4 spines)
    // EBB 0.748 against 0.790 at 4 VLs, 0.783 against 0.796 at 8.
    std::vector<nue::NueLayer> layers;
    layers.reserve(split.lids.size());
    std::vector<std::uint8_t> layer_of_lid(g.lid_limit, 0);
    for (std::size_t l = 0; l < split.lids.size(); ++l) {
        layers.emplace_back(turns, split.lids[l], weight);
        for (auto lid : split.lids[l]) layer_of_lid[lid] = static_cast<std::uint8_t>(l);
    }
    for (auto i : sssp_routing_order(g, options)) {
        const auto& d = g.destinations[i];
        for (std::uint32_t lid = d.base; lid < d.base + d.count; ++lid) {
            const auto t = static_cast<std::size_t>(g.lid_target[lid]);
            auto& layer = layers[layer_of_lid[lid]];
            const std::size_t m = router.route(lid, t, final_port[lid], layer.deps, layer.escape);
            impasses += m > 0;
            moved += m;
            std::fill_n(&layer_of[static_cast<std::size_t>(lid) * S], S, layer_of_lid[lid]);
            progress.tick();
        }
    }

    RoutingTables tables = sssp_tables(routes, name(), lids.top());
    tables.switch_to_switch = true;
    const auto used = static_cast<unsigned>(std::max<std::size_t>(1, split.lids.size()));
    tables.layers_needed = static_cast<std::uint8_t>(used);
    tables.vls_used = static_cast<std::uint8_t>(used);
    if (used > 1) tables.sl = layer_service_levels(g, layer_of, std::vector<unsigned>(used, 1));
    tables.notes.push_back(std::to_string(total) + " destination LIDs in " + std::to_string(used) +
                           (used == 1 ? " layer" : " layers") + " of " + std::to_string(budget) + " allowed; " +
                           std::to_string(router.repaired()) + " impasses repaired by local backtracking; " +
                           std::to_string(impasses) + " LIDs took escape paths, for " + std::to_string(moved) +
                           " switch routes");
    return tables;
}

} // namespace ibsm::routing
