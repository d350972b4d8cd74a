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
// 5. (issue 35, ours) up to compare_host_limit hosts, steps 2-3 run twice:
//    with the paper's tree escape paths, and with Up*/Down*'s own routes as
//    every LID's escape (nue/updn_escape.h; their turns are reserved the
//    same way, all of them acyclic together); Up*/Down*'s routes alone
//    (every LID on its escape, one layer) are a third candidate. The one
//    the analyzer's EBB estimate scores highest is kept (nue/ebb_estimate.h,
//    100 bisections of its own seed; the paper's tree on a tie), and a note
//    says which with every estimate.
//
// Measured effect (tests/bench/nue_vs_opensm.sh, 1 000 bisections, EBB
// before -> after; docs/routing.md has the whole table): the 3 456-host
// tree minus 40 links at 1 / 2 / 4 / 8 VLs 0.5140 / 0.5774 / 0.6015 / 0.6046
// -> 0.6069 / 0.6070 / 0.6095 / 0.6077 (Up*/Down* 0.6062); Dragonfly+ of 7
// groups with 2 global links per spine at 1 VL 0.2097 -> 0.2281 (Up*/Down*
// 0.2281; 300 bisections before), of 9 groups with 4 at 1 VL 0.6815 ->
// 0.6960 (300 before); the chain of trees at 1 VL 0.4449 -> 0.4585 (=
// Up*/Down*, kept alone); tori and hypercubes keep the tree
// (Up*/Down*'s escape scored lower there). Tried and not kept: an initial
// channel order following Up*/Down*'s orientation (no faster: the search's
// reorders come from down-up turns and released tentative turns). The cost:
// two searches and three estimates, about 2x nue's time (3 456-host tree
// minus 40 links at 2 VLs: tree escape 21.8 s, Up*/Down* escape 14.2 s, the
// rest 3.5 s at load 15 on 2 cores). The layer's initial channel order
// follows the distance from the host switches (nue/dependency_layer.h,
// issue 36), which a tree's minimal routes agree with.
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
