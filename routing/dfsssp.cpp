// DFSSSP routing (see header).
#include "routing/dfsssp.h"

#include "routing/sssp.h"
#include "routing/virtual_layers.h"

#include <algorithm>
#include <string>

namespace ibsm::routing {

namespace {

constexpr unsigned layer_limit = 15; // IBA data VLs

// VLs per layer: one each, then every spare VL to the layer with the most
// pairs per VL (lowest layer on ties).
std::vector<unsigned> vls_per_layer(const VirtualLayers& layers, unsigned available)
{
    std::vector<unsigned> split(layers.needed, 1);
    for (unsigned spare = layers.needed; spare < available; ++spare) {
        unsigned best = 0;
        for (unsigned l = 1; l < layers.needed; ++l)
            if (layers.pairs[l] * split[best] > layers.pairs[best] * split[l]) best = l;
        ++split[best];
    }
    return split;
}

SlTable service_levels(const SwitchGraph& g, const VirtualLayers& layers, const std::vector<unsigned>& split)
{
    std::vector<unsigned> first_vl(split.size(), 0);
    for (std::size_t l = 1; l < split.size(); ++l) first_vl[l] = first_vl[l - 1] + split[l - 1];

    std::vector<std::pair<topology::PortRef, std::int32_t>> sources;
    for (const auto& d : g.destinations) sources.emplace_back(d.port, d.target);
    std::sort(sources.begin(), sources.end());
    std::vector<topology::PortRef> ports;
    for (const auto& s : sources) ports.push_back(s.first);
    SlTable table(ports, g.lid_limit);

    // Layers by source switch, so each row reads one contiguous run.
    const std::size_t S = g.size();
    const std::uint32_t L = g.lid_limit;
    std::vector<std::uint8_t> by_switch(S * L);
    for (std::uint32_t lid = 0; lid < L; ++lid)
        for (std::size_t s = 0; s < S; ++s) by_switch[s * L + lid] = layers.layer[static_cast<std::size_t>(lid) * S + s];

    for (std::size_t row = 0; row < sources.size(); ++row) {
        if (sources[row].second < 0) continue;
        const std::uint8_t* layer = &by_switch[static_cast<std::size_t>(sources[row].second) * L];
        for (std::uint32_t lid = 0; lid < L; ++lid) {
            if (g.lid_target[lid] < 0) continue;
            const unsigned l = layer[lid];
            const unsigned vl = first_vl[l] + (split[l] > 1 ? static_cast<unsigned>((row + lid) % split[l]) : 0u);
            if (vl) table.set(row, lid, static_cast<std::uint8_t>(vl));
        }
    }
    return table;
}

} // namespace

Result DfssspEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                             const Options& options) const
{
    const unsigned available = std::clamp<unsigned>(options.max_vls, 1, layer_limit);
    const SsspRoutes routes = compute_sssp(fabric, lids);
    const VirtualLayers layers = assign_virtual_layers(routes, layer_limit);
    const std::string vls = std::to_string(available) + (available == 1 ? " VL" : " VLs") + " available";
    if (!layers.complete)
        return Refusal{name(), "needs more than " + std::to_string(layer_limit) + " virtual layers, " + vls};
    if (layers.needed > available && options.budget_refusal)
        return Refusal{name(), options.budget_refusal(name(), layers.needed)};
    if (layers.needed > available)
        return Refusal{name(), "needs " + std::to_string(layers.needed) + " virtual layers, " + vls};

    RoutingTables tables = sssp_tables(routes, name(), lids.top());
    // The layers were made acyclic with switch-originated routes included
    // (seed 001 §III-D, extended to switch port 0 sources): the gate checks
    // switch pairs and the CDG with switch traffic.
    tables.switch_to_switch = true;
    const auto split = vls_per_layer(layers, available);
    tables.layers_needed = static_cast<std::uint8_t>(layers.needed);
    tables.vls_used = static_cast<std::uint8_t>(std::max(available, layers.needed));
    if (tables.vls_used > 1) tables.sl = service_levels(routes.graph, layers, split);
    return tables;
}

} // namespace ibsm::routing
