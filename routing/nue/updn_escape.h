// Escape routes shaped like Up*/Down* (issue 35): Up*/Down*'s own route to
// every LID, in the form Nue's escape paths take (a channel per switch and
// LID), so a layer can reserve their turns instead of one spanning tree's.
//
// Why: Nue's escape paths (escape_paths.h, HPDC 2016 §4) are one spanning
// tree per layer: every destination that hits an impasse funnels through its
// root, and on tree-like fabrics (degraded fat-trees, chains of trees,
// Dragonfly+) those impasses are many at one or two layers, so the
// search's result trailed plain Up*/Down* (EBB 0.514 against 0.606 on the
// 3 456-host tree minus 40 links at 1 VL). Up*/Down*'s routes are
// deadlock-free together (seed 004), so the union of their turns towards a
// layer's LIDs is acyclic and can be reserved like the tree's; and they are
// balanced over the whole fabric (updn.h), so a destination moved onto them
// loses little.
//
// Data structures: via[lid * S + s], the channel switch s takes towards lid
// on Up*/Down*'s route (no_channel at the delivering switch, for switches
// that do not reach it, and for LIDs no switch delivers).
//
// Algorithm: our updn engine's tables (routing/updn.h: orientation, global
// balancing, every switch pair routed), each forwarding entry turned into
// the channel leaving through that port. Empty when updn refuses (configured
// roots that are not in the fabric).
#pragma once

#include "routing/engine.h"
#include "routing/switch_graph.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::nue {

std::vector<std::uint32_t> updn_escape_via(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                           const SwitchGraph& graph, const Options& options);


} // namespace ibsm::routing::nue
