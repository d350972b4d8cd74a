// Hosts moved next to their switch after a force-directed layout.
//
// Why: sfdp (spring-electrical model) pushes degree-one nodes to the rim of
// the drawing (the peripheral effect): a host ends up far from its switch and
// its line crosses the whole fabric. Graphviz's own remedy (beautify) corrupts
// the heap in 2.42. A host has one cable, so its place is beside its switch;
// the room for it is reserved by drawing the switch, for Graphviz, as a
// circle big enough to hold the ring of its hosts (host_ring_radius), so
// prism's overlap removal keeps every other node off that ring.
//
// Data structures: positions indexed like model.nodes; a hash grid of cells
// `min_distance` wide for the "is this spot free" test (a spot is free when no
// node centre lies within min_distance, so only the 3x3 cells around it count).
//
// Algorithm: switch by switch (model order), its k single-cable hosts are
// taken out of the grid, then the j-th is put on the first free spot of
// rings round the switch (radius host_ring_radius, then one and two
// min_distance further; 32 angles each, alternating either side of the
// preferred angle: the direction of the host's old position, or j/k of a
// turn from the top when it sits on its switch, as the sfdp layout leaves
// it). A host with no free spot keeps its old position. Deterministic.
#pragma once

#include "report/layout.h"
#include "report/model.h"

#include <vector>

namespace ibsm::report {

// Per node, the hosts cabled to it (a switch) by their only cable, in model
// order: the hosts place_hosts_by_switch moves.
std::vector<std::vector<std::size_t>> hosts_by_switch(const Model& model);

// Radius of the ring that holds `hosts` host centres min_distance apart
// (and min_distance from the switch).
double host_ring_radius(std::size_t hosts, double min_distance);

void place_hosts_by_switch(const Model& model, std::vector<Point>& at, double min_distance);

} // namespace ibsm::report
