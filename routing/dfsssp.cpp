// DFSSSP routing (see header).
#include "routing/dfsssp.h"

#include "routing/layer_sls.h"
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
    if (tables.vls_used > 1) tables.sl = layer_service_levels(routes.graph, layers.layer, split);
    return tables;
}

} // namespace ibsm::routing
