// dfsssp's escape layer (see header).
#include "routing/dfsssp_escape.h"

#include "routing/nue/cdg_router.h"
#include "routing/nue/nue_layer.h"
#include "routing/tree_flow.h"

#include <algorithm>
#include <cassert>

namespace ibsm::routing {

namespace {

// Adds the sources crossing each channel on lid's routes to `weight`.
void add_loads(const SsspRoutes& r, std::uint32_t lid, std::vector<std::uint64_t>& weight,
               std::vector<std::uint64_t>& flow)
{
    const auto& g = r.graph;
    const auto t = static_cast<std::size_t>(g.lid_target[lid]);
    add_tree_loads(
        g, {g.nearest_first(t), g.reaching(t)},
        [&](std::uint32_t u) { return g.channel_from(u, r.port(lid, u)); }, g.hosts, flow, weight);
}

} // namespace

EscapeLayerOutcome use_escape_layer(SsspRoutes& routes, VirtualLayers& layers, unsigned escape)
{
    const SwitchGraph& g = routes.graph;
    const std::size_t S = g.size();
    const std::uint32_t L = g.lid_limit;
    const auto sources = source_ports_per_switch(g);
    EscapeLayerOutcome out;

    std::vector<std::uint32_t> over;
    for (std::uint32_t lid = 0; lid < L; ++lid) {
        if (g.lid_target[lid] < 0) continue;
        const std::uint8_t* layer = &layers.layer[static_cast<std::size_t>(lid) * S];
        for (std::size_t s = 0; s < S; ++s)
            if (sources[s] > 0 && layer[s] >= escape) {
                over.push_back(lid);
                break;
            }
    }
    out.overflowing = over.size();

    std::vector<std::uint64_t> weight(g.channel_count(), nue::initial_weight(g)), flow(S);
    for (std::uint32_t lid = 0; lid < L; ++lid)
        if (g.lid_target[lid] >= 0) add_loads(routes, lid, weight, flow);
    const nue::ChannelTurns turns(g);
    nue::NueLayer layer(turns, over, weight);

    std::vector<std::uint32_t> rerouted;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> added;
    for (auto lid : over) {
        const auto t = static_cast<std::size_t>(g.lid_target[lid]);
        const std::uint8_t* layer_of = &layers.layer[static_cast<std::size_t>(lid) * S];
        added.clear();
        bool fits = true;
        for (std::size_t s = 0; s < S && fits; ++s) {
            if (sources[s] == 0 || layer_of[s] < escape) continue;
            std::uint32_t c = g.channel_from(s, routes.port(lid, s));
            while (fits && c != no_channel && g.head[c] != t) {
                const std::uint32_t next = g.channel_from(g.head[c], routes.port(lid, g.head[c]));
                if (next == no_channel) break; // sssp reaches t from every switch that can
                const bool was_used = layer.deps.state(turns.turn(c, next)) == nue::DependencyLayer::State::used;
                if (!layer.deps.try_use(c, next))
                    fits = false;
                else if (!was_used)
                    added.emplace_back(c, next);
                c = next;
            }
        }
        if (fits) continue;
        for (const auto& [c1, c2] : added) layer.deps.release(c1, c2);
        rerouted.push_back(lid);
    }
    out.rerouted = rerouted.size();
    out.kept = over.size() - rerouted.size();

    if (!rerouted.empty()) {
        // Weights without the LIDs Nue is about to route again.
        std::vector<char> again(L, 0);
        for (auto lid : rerouted) again[lid] = 1;
        std::fill(weight.begin(), weight.end(), nue::initial_weight(g));
        for (std::uint32_t lid = 0; lid < L; ++lid)
            if (g.lid_target[lid] >= 0 && !again[lid]) add_loads(routes, lid, weight, flow);
        nue::CdgRouter router(turns, routes.out_port, weight, g.hosts);
        const auto final_port = nue::final_ports(g);
        for (auto lid : rerouted) {
            std::fill_n(&routes.out_port[static_cast<std::size_t>(lid) * S], S, no_route);
            const auto t = static_cast<std::size_t>(g.lid_target[lid]);
            out.impasses += router.route(lid, t, final_port[lid], layer.deps, layer.escape) > 0;
            std::fill_n(&layers.layer[static_cast<std::size_t>(lid) * S], S, static_cast<std::uint8_t>(escape));
        }
    }
    for (auto& l : layers.layer) l = std::min<std::uint8_t>(l, static_cast<std::uint8_t>(escape));
    // Pairs per layer, for the caller's spreading of spare VLs (there are none now).
    std::fill(layers.pairs.begin(), layers.pairs.end(), 0);
    layers.pairs.resize(escape + 1);
    for (std::uint32_t lid = 0; lid < L; ++lid) {
        if (g.lid_target[lid] < 0) continue;
        const auto t = static_cast<std::size_t>(g.lid_target[lid]);
        for (std::size_t s = 0; s < S; ++s)
            if (s != t && g.hops(s, t) != unreachable_hops)
                layers.pairs[layers.layer[static_cast<std::size_t>(lid) * S + s]] += sources[s];
    }
    layers.needed = escape + 1;
    layers.complete = true;
    return out;
}

} // namespace ibsm::routing
