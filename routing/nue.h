// `nue`: deadlock-free routing inside any number of virtual layers, one
// included — Domke, Hoefler, Matsuoka, "Routing on the Dependency Graph: A
// New Approach to Deadlock-Free High-Performance Routing", HPDC 2016.
//
// Why: dfsssp routes first and removes credit loops afterwards with layers,
// so the layers it needs grow with the fabric (an 8x8 torus needs 11, a
// 6-cube 12) and QoS takes VLs away; Up*/Down* fits in one VL but balances
// badly. Nue searches every route inside the complete channel dependency
// graph (§3), accepting only dependencies that keep the layer acyclic, so
// it needs no more layers than it is given and keeps sssp's balancing
// weights.
//
// Data structures: the switch graph and the cCDG as index arithmetic
// (nue/channel_turns.h); per layer the used dependencies with a dynamic
// topological order (nue/dependency_layer.h) and the escape paths
// (nue/escape_paths.h); channel weights shared by all layers; the dense
// forwarding matrix out_port[lid * S + s] and the layer of every LID.
//
// Algorithm (§4):
// 1. destinations split over min(Options::max_vls, 15) layers, fabric
//    bands of equal LID count (nue/layer_split.h; the paper uses METIS);
// 2. per layer: escape paths, a spanning tree from the layer's central
//    switch, their turns reserved;
// 3. per LID, in sssp's order over all layers (each LID in its own
//    layer's dependencies), the modified Dijkstra on the
//    cCDG (nue/cdg_router.h); on an impasse a local repair, then the escape
//    paths for what is still stranded; then the weights of the channels it
//    used grow by the sources crossing them;
// 4. SL = the LID's layer for every source (destination-based: one tree,
//    one layer per LID). Switches are destinations and sources like CAs,
//    so switch-to-switch traffic is routed and deadlock-free too (OpenSM's
//    nue leaves that to an option).
#pragma once

#include "routing/engine.h"

namespace ibsm::routing {

class NueEngine final : public Engine {
public:
    // Candidates are compared (and Up*/Down*'s routes computed) only up to
    // this many hosts; the estimate's bisections.
    static constexpr std::size_t compare_host_limit = 8192;
    static constexpr unsigned estimate_bisections = 100;

    std::string name() const override { return "nue"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
};

} // namespace ibsm::routing
