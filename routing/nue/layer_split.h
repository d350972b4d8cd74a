// Which destinations Nue routes in which virtual layer, and the switch each
// layer's escape paths are rooted at (HPDC 2016, §4: destinations are
// partitioned over the layers; the escape paths' root is the most central
// switch of the layer's convex subnetwork).
//
// Why: each layer's dependencies must stay acyclic, and destinations close
// together in the fabric have routes that share many channels in the same
// directions, so they conflict less than scattered ones; the paper
// partitions the fabric with METIS for that locality. Here a switch-level
// split of our own does the same with no extra dependency: the switches in
// breadth-first order from a peripheral switch (one that is farthest from
// another), cut into contiguous runs of equal destination count, i.e. bands
// of the fabric at growing distance. All LIDs of one switch (its CAs' and
// its own) stay in one layer.
//
// The root: the switch with the highest betweenness centrality counted only
// over shortest paths between the layer's destination switches (Brandes'
// algorithm with sources and targets restricted to them), which is zero
// outside their convex hull — the paper's "central node of the convex
// subnetwork". Ties (e.g. one destination switch: every value 0) go to the
// smallest sum of distances to the destination switches, then the lowest
// index. One root per connected component, so the escape paths span every
// switch.
#pragma once

#include "routing/switch_graph.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::nue {

// lids[l]: the LIDs of layer l, in `order` (destination indices into
// graph.destinations, routing order). At most `layers` non-empty layers;
// fewer when fewer switches deliver LIDs.
struct LayerSplit {
    std::vector<std::vector<std::uint32_t>> lids;
};
LayerSplit split_destinations(const SwitchGraph& graph, const std::vector<std::uint32_t>& order, unsigned layers);

// One root per connected component of the switch graph, central to the
// component's switches flagged in `is_destination` (per switch).
std::vector<std::uint32_t> escape_roots(const SwitchGraph& graph, const std::vector<char>& is_destination);

} // namespace ibsm::routing::nue
