// The SL of every (source port, destination LID) pair, from the virtual
// layer of every (destination LID, source switch) unit: what dfsssp and nue
// hand the SA and the gate.
//
// Why here: both engines route whole switches' sources alike (all sources
// on one switch reach a LID along the same path), so their layering is per
// unit; the SlTable the rest of the SM reads is per source port.
//
// Algorithm: layer l owns split[l] consecutive VLs from the sum of the
// earlier layers' counts; a layer with several spreads its pairs over them
// by (source row + LID) mod count, deterministically. Any subset of an
// acyclic layer is acyclic, so the spread keeps every VL deadlock-free.
// SL = VL (identity SL2VL).
#pragma once

#include "routing/sl_table.h"
#include "routing/switch_graph.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing {

// layers[lid * S + s]: the layer of switch s's routes to lid; split[l]: VLs of layer l.
SlTable layer_service_levels(const SwitchGraph& graph, const std::vector<std::uint8_t>& layers,
                             const std::vector<unsigned>& split);

} // namespace ibsm::routing
