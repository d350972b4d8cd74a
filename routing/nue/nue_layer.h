// One Nue layer set up as the paper does before its destinations are routed
// (HPDC 2016, §4): an empty dependency layer, the escape paths of its
// destinations rooted at their central switch, and those paths' turns
// reserved in it. Shared by the nue engine and dfsssp's escape layer.
#pragma once

#include "routing/nue/dependency_layer.h"
#include "routing/nue/escape_paths.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::nue {

struct NueLayer {
    // `lids`: the destinations the layer will route (their delivering switches
    // decide the root and which tree turns are reserved).
    NueLayer(const ChannelTurns& turns, const std::vector<std::uint32_t>& lids,
             const std::vector<std::uint64_t>& weight);

    // `is_destination`: per switch, whether it delivers one of those LIDs.
    NueLayer(const ChannelTurns& turns, const std::vector<char>& is_destination,
             const std::vector<std::uint64_t>& weight);

    // The same layer with Up*/Down*-shaped escape routes (updn_escape.h):
    // `route_via` per LID, outliving the layer; their turns towards `lids`
    // are reserved.
    NueLayer(const ChannelTurns& turns, const std::vector<std::uint32_t>& lids,
             const std::vector<std::uint32_t>& route_via);

    DependencyLayer deps;
    EscapePaths escape;
};

// The last hop of every LID (the delivering switch's port; 0 for its own).
std::vector<std::uint8_t> final_ports(const SwitchGraph& graph);

// Channel weight every channel starts with: (LIDs)^2 + 1, more than the
// routes can ever load onto one channel, so a longer path costs more unless
// the shorter one is loaded several times over (the P^2 start of SSSP and
// Nue): hops first, balance second.
std::uint64_t initial_weight(const SwitchGraph& graph);

} // namespace ibsm::routing::nue
