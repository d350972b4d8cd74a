// `ftree`: D-Mod-K routing on (real-life, possibly degraded) fat-trees,
// seed 003 §IV eq. (3).
//
// Why: on a complete RLFT, D-Mod-K sends every shift permutation without
// link congestion (seed 003 theorem 1) and gives every destination a single
// top switch and one dedicated down path (theorem 2, lemma 5). It is a
// closed form, so it is also fast: O(switches x LIDs) table writes.
//
// Data structures:
// - the FatTree (ranking.h) and the compute-node index j (ca_order.h);
// - per level l the PGFT parameters w_{l+1} (distinct parents of a level-l
//   switch) and p_{l+1} (parallel cables to one parent), inferred as the most
//   common values at that level, so missing cables do not change them;
// - per switch the "up port index" table q -> physical port (below);
// - bitsets over switches: down(s) = switches reachable from s going only
//   down (s included), reach(s) = down(s) plus reach() of every parent, i.e.
//   everything s reaches by an up*down* path;
// - per destination LID its attach switch, index j, and its chain: the single
//   down path from its top switch (the switches D-Mod-K climbs through from
//   the destination's own leaf, with the cables used).
//
// How up port index q maps to physical ports (seed 003 §II-B): the q-th
// up-going port of a level-l switch goes to the parent whose tuple digit is
// b_{l+1} = q mod w_{l+1}, over that parent's parallel cable number
// k = floor(q / w_{l+1}). The digit of a parent P is computed, not read: the
// set of top switches above P only depends on P's low digits (b_{l+1}..b_1),
// so P's digit is the rank of min{GUID rank of the tops above P} among the
// parents of P's children (its "co-parents"). Every switch of a level ranks
// the same classes the same way, so this is one uniform relabelling of the
// PGFT's digits (and cables k are numbered by the lower switch's port number,
// another per-pair permutation): the graph with these labels is the same
// PGFT, and theorems 1-2 hold for it. In a PGFT co-parents never share a top;
// where they do (a multi-core tree: an edge switch with several leaves in
// one core) ties are broken by GUID, so each of the w_{l+1} parents still
// gets its own digit (no theorem holds there, but every up port is used).
// Down: a switch on the chain sends the
// destination down the same cable the chain climbed, which is D-Mod-K's
// D_p port; a switch that reaches the destination going down but is not on
// its chain heads for the chain's next switch when it is its child, else
// takes its first down port that reaches it.
//
// Algorithm (per switch s at level l, destination with attach switch A):
// 1. A below s (A in down(s)): go down as above.
// 2. else if A in reach(s): up port q_l(j) = floor(j / prod_{k<=l} w_k)
//    mod (w_{l+1} p_{l+1}) (eq. 3, w_1 = 1), the same at every switch of a
//    level. Degraded trees: the port is taken only if it exists and its
//    parent still reaches A (reach bit), so every route stays a pure
//    up*/down* path and needs no credit-loop check (a down->up turn never
//    happens). Otherwise the destinations of the missing port are spread
//    round-robin by the next digit of j, d2 = floor(j / (prod_{k<=l} w_k *
//    w_{l+1} p_{l+1})): first over the other cables to the same parent (that
//    keeps the destination's top switch), then over all up ports whose parent
//    reaches A. A top switch that lost its down path to A is thus avoided by
//    every switch below it, and A is reached through the tops that still
//    reach it.
// 3. else, when A is a leaf with a horizontal link to a leaf A' (seed 000
//    Fig. 1): route as to A', which delivers over the horizontal link. Such a
//    link is only ever the last switch hop, so it cannot close a cycle; A' is
//    used only if no switch above it would have to turn back up to reach A.
// 4. else no route (switch-to-switch pairs with no up->down path: sftree).
// CA<->switch: steps 1-4 give every CA pair, but on a degraded tree a
// switch that lost its way down to a pod (a top cut off from it) has no
// up*/down* route to that pod's CAs, nor their CAs to it: 1 386 CA->switch
// and 1 386 switch->CA pairs on the 432-host tree minus 25 links. A
// switch's traps must reach the SM and the SM's SMPs by LID must reach the
// switch, so the `ftree` engine (FtreeEngine) fills every entry D-Mod-K
// left empty with sftree's Algorithm 2 (sftree.h: through the subtree
// root, deadlock-free with the CA routes, CA-destined entries of CA routes
// untouched) and promises CA pairs and CA<->switch pairs; run_dmodk alone
// is the pure D-Mod-K of the steps above.
// CA and switch port-0 LIDs are routed alike: switches take indices after the
// compute nodes. With OpenSM's compute-node and I/O files (ca_order.h) the
// CA ports that are not compute nodes take indices between the two, so
// the compute nodes' indices, and with them their balance, are what they
// would be without those ports. LMC > 0: LID base+o takes index j + o * stride, with
// stride = max(1, (number of top digit tuples) / 2^LMC), so the 2^LMC LIDs
// of a port climb to different top switches.
#pragma once

#include "routing/engine.h"
#include "routing/fattree/ca_order.h"
#include "routing/fattree/dmodk_state.h"
#include "routing/fattree/ranking.h"

#include <memory>

#include <string>
#include <variant>

namespace ibsm::routing::fattree {

// What sftree builds on: the ranking and order ftree used, and its tables.
// `state`: what a re-route starts from next time (dmodk_state.h), its
// holes filled in here; `how`: "incremental (...)" or "full run (why)".
struct DmodkRun {
    FatTree tree;
    CaOrder order;
    RoutingTables tables;
    std::shared_ptr<DmodkState> state;
    std::string how;
    bool incremental = false;
    // A re-route's (all empty on a full run): per switch index whether its
    // row was decided again and its index in the last run (no_switch: new),
    // per LID whether its column was; `alg2_kept`: the kept rows still hold
    // the last run's Algorithm 2 entries at `state->holes` (sftree.cpp
    // keeps them or puts D-Mod-K's empty entries back).
    std::vector<char> row_redone, lid_redone;
    std::vector<std::uint32_t> to_old;
    bool alg2_kept = false;
};

// `previous`: the last routing by the same engine (routing/incremental.h);
// when it carries a DmodkState and the tree's parameters are the same, only
// the entries the delta may change are decided again (dmodk_state.h), and
// the tables are those a full run gives.
std::variant<DmodkRun, Refusal> run_dmodk(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                          const Options& options, const std::string& engine_name,
                                          const Previous* previous = nullptr);

class FtreeEngine final : public Engine {
public:
    std::string name() const override { return "ftree"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
    EngineRun compute_after(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                            const Previous* previous) const override;
};

} // namespace ibsm::routing::fattree
