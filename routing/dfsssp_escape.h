// dfsssp's escape layer: what it does instead of refusing when sssp's routes
// need more virtual layers than there are VLs.
//
// Why: an 8x8 torus needs 11 layers, a 6-cube 12, and a QoS policy leaves
// fewer VLs still; refusing there hands the fabric to a one-VL engine and
// throws away the layers that did fit. Routes are per destination LID (one
// tree each), so what does not fit moves per LID. The last VL becomes an
// escape layer set up as Nue's layers are (routing/nue.h, HPDC 2016 §4):
// its escape paths, a spanning tree from the central switch of the LIDs
// that overflow, reserved first. Then each overflowing LID keeps its
// shortest-path tree if the turns of its overflowing units fit the escape
// layer without a cycle; the others are re-routed inside the layer by Nue's
// modified Dijkstra on the complete CDG, which always finds a route.
//
// Data structures: the sssp routes and their layering (virtual_layers.h),
// changed in place; the escape layer's dependencies (nue/nue_layer.h).
//
// Algorithm: 1. channel weights = Nue's start + the loads of every route
// (routing/tree_flow.h);
// 2. the escape layer with its reserved tree turns; 3. LIDs with a unit at
// or above the escape layer, in LID order: walk each such unit's route,
// using its turns in the layer; on a turn that would close a cycle, release
// this LID's new turns and mark it for re-routing; 4. the weights are
// recounted without the marked LIDs, which Nue then routes in the layer
// (all their units on it); 5. every unit at or above the escape layer is on
// it. Layers below it lose only units, so they stay acyclic.
#pragma once

#include "routing/sssp.h"
#include "routing/virtual_layers.h"

#include <cstddef>

namespace ibsm::routing {

struct EscapeLayerOutcome {
    std::size_t overflowing = 0; // LIDs with a unit that did not fit the layers below
    std::size_t kept = 0;        // of those, kept their shortest-path tree
    std::size_t rerouted = 0;    // re-routed by Nue inside the escape layer
    std::size_t impasses = 0;    // of those, hit an impasse (escape paths used)
};

// `escape` < layers.needed; afterwards layers.needed == escape + 1.
EscapeLayerOutcome use_escape_layer(SsspRoutes& routes, VirtualLayers& layers, unsigned escape);

} // namespace ibsm::routing
