// DFSSSP routing (see header).
#include "routing/dfsssp.h"

#include "routing/dfsssp_escape.h"
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
    SsspRoutes routes = compute_sssp(fabric, lids, options);
    VirtualLayers layers = assign_virtual_layers(routes, layer_limit);
    std::string note;
    if (!layers.complete || layers.needed > available) {
        const std::string need = layers.complete ? std::to_string(layers.needed) + " virtual layers"
                                                 : "more than " + std::to_string(layer_limit) + " virtual layers";
        const std::string why = options.budget_refusal ? options.budget_refusal(name(), layers.needed)
                                                       : "needs " + need + ", " + std::to_string(available) +
                                                             (available == 1 ? " VL" : " VLs") + " available";
        if (!escape_layer_) return Refusal{name(), why};
        const auto e = use_escape_layer(routes, layers, available - 1);
        note = why + ": routes of " + std::to_string(e.overflowing) + " destination LIDs went onto escape layer " +
               std::to_string(available - 1) + " (Nue's escape paths reserved first); " + std::to_string(e.kept) +
               " kept their shortest paths, " + std::to_string(e.rerouted) +
               " re-routed by Nue on the complete CDG (" + std::to_string(e.impasses) + " hit an impasse)";
    }

    RoutingTables tables = sssp_tables(routes, name(), lids.top());
    // The layers were made acyclic with switch-originated routes included
    // (seed 001 §III-D, extended to switch port 0 sources): the gate checks
    // switch pairs and the CDG with switch traffic.
    tables.switch_to_switch = true;
    const auto split = vls_per_layer(layers, available);
    tables.layers_needed = static_cast<std::uint8_t>(layers.needed);
    tables.vls_used = static_cast<std::uint8_t>(std::max(available, layers.needed));
    if (tables.vls_used > 1) tables.sl = layer_service_levels(routes.graph, layers.layer, split);
    if (!note.empty()) tables.notes.push_back(note);
    return tables;
}

} // namespace ibsm::routing
