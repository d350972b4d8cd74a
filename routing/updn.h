// `updn`: Up*/Down* routing (seed 004), every pair reachable, deadlock-free
// on one VL, balanced globally with SSSP's channel weights by default.
//
// Why: the engine that routes any connected fabric without credit loops and
// without extra VLs: tori, hypercubes, random and chained fabrics where the
// fat-tree engines refuse and MinHop deadlocks. OpenSM's updn finds no roots
// on those fabrics (it falls back to MinHop), leaves switch pairs between
// roots unroutable, and balances only locally (EBB 0.17 on the 3 456-host
// tree).
//
// Data structures: the orientation of updn_order.h (switches renumbered top
// first, up and down links in CSR). Per destination LID, arrays by switch:
// the cost of its down-only path (valid only for ancestors of the
// destination, a stamp per LID says which), the cost and next link of its
// chosen route, and whether a switch above already sends its route down
// through it ("forced"). Across destinations: the load of every channel
// (routes of CA traffic crossing it) and the number of CA LIDs routed through
// every port (its local use).
//
// Algorithm, for each destination LID in OpenSM's order (routing/minhop.cpp:
// CA LIDs grouped by switch, busiest first; switch LIDs last; the LMC offset
// outermost, so each LID of a block gets its own tree):
// 1. Down pass, bottom-up: the destination's switch t has cost 0; switches
//    are visited from t toward the top and each reached one offers its cost
//    plus one hop to the switches above it. This gives every ancestor of t
//    (switch with an all-down path to t) its cheapest all-down path.
// 2. Top-down pass over all switches: a switch takes the cheaper of its best
//    up link (the chosen route of the switch above plus one hop; the switch
//    above is final already) and, if it is an ancestor, its all-down path.
//    A switch that chose to go down makes its down neighbour "forced": that
//    one must go down too (a hop up after a hop down is forbidden), so it
//    takes its all-down path. Every route is then up* down*: legal, hence no
//    credit loop on one VL, switch traffic included (the CDG only turns from
//    up to down links, never back, and up links form a DAG). Every switch
//    gets a route: the top of the component is an ancestor of every switch,
//    and every other switch has an up link.
// 3. The routes form an in-tree; counting CA sources from the leaves of the
//    tree inward adds to every channel the number of routes through it.
// Cost = (hops, sum of channel loads) with global balancing, (hops) with
// local; ties go to the port whose remote switch no earlier LID of the same
// block took, then the least used port, then the lowest port. Switch LIDs are
// routed like CA LIDs but add no load. O(LIDs x (switches + links)).
// Routes are minimal on fat-trees; elsewhere the up/down rule (and a forced
// switch's all-down path) costs some length: CA-to-CA stretch 1.03 on the
// 64-switch random fabric, 1.08 on an 8x8 torus, 1.0 on a 6-D hypercube.
#pragma once

#include "routing/engine.h"

namespace ibsm::routing {

class UpdnEngine final : public Engine {
public:
    std::string name() const override { return "updn"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
    // Routes again only the destinations whose trees a delta touched, while
    // the Up*/Down* orientation stays the same (updn_state.h, updn_reroute.cpp).
    EngineRun compute_after(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                            const Previous* previous) const override;
};

} // namespace ibsm::routing
