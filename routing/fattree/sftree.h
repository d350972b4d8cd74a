// `sftree`: D-Mod-K plus deadlock-free, fully connected switch-to-switch
// routes, seed 000 §4 (Algorithms 1 and 2) and §5 (the subtree argument).
//
// Why: classic fat-tree routing leaves every switch pair without a common
// ancestor unroutable (OpenSM ftree: 172 656 pairs on a 3 456-host tree),
// and MinHop-style fill-ins create credit loops with switch traffic (seed 000
// Fig. 2). sFtree routes those pairs through one leaf switch, the subtree
// root: all down->up turns (U-turns) then happen inside the upside-down tree
// of the routes toward that leaf, which the proof of seed 000 §5 shows cannot
// close a cycle.
//
// Data structures: the ftree tables (dmodk.h), modified in place only at
// entries ftree left without a route and, on multi-core trees (step 2a), at
// the subtree root's entries for switch LIDs; every CA-destined entry (so
// every CA->CA route) is ftree's. Per destination LID that needed
// Algorithm 2, the hop count of every switch toward it (get_path_length
// bookkeeping, 0xFF = not known). Per parent of the subtree root R, its
// gateway (below), and per source switch the gateway it descends through.
//
// Algorithm:
// 1. (Alg. 1) The subtree root is the first leaf, in compute-node order, whose
//    table routes every LID and which does not host the SM's port
//    (Options::sm_port_guid, seed 000 §4.2) nor a CA port stating IsSM (a
//    standby: the SM that takes over then picks the same root). If none
//    does, the first leaf hosting no SM.
// 2a. (Extension of seed 000 §4-5 for multi-core trees.) The §5 proof needs
//    the routes that U-turn at R to leave through a part of the tree that
//    cannot lead back down into R: in a PGFT the parents of a leaf share no
//    ancestor, so a packet that leaves R up through parent P can only come
//    back to R's level through P itself, and it never turns back down at P.
//    On a multi-core tree joined only through its edge switches (Ranger's
//    NEMs: R is a NEM with several core leaves in every core, all under the
//    same core tops) a packet leaving R up through core leaf P1 can come
//    back down through core leaf P2 (P1 -> middle -> P2 is an ordinary
//    up->down route), and U-turns at R toward two cores close a cycle
//    R -> P1 -> middle -> P2 -> R -> other core -> ... -> R. So R's parents
//    are grouped into classes that share an ancestor (union-find over their
//    ancestor sets; a PGFT gives classes of one, where nothing changes), and
//    each class of two or more gets one gateway: the parent E behind R's
//    lowest-numbered cable into the class. R's entries for switch LIDs that
//    leave through the class leave through that cable (if E routes the LID
//    without coming back to R), and a source whose own route to R enters
//    through the class descends to R through E (it sends dst where it sends
//    E's LID; E sends it where it sends R's). Why acyclic: ftree's routes
//    and the Alg. 2 segments on either side of R are up*/down* paths, so
//    every down->up turn is at R, in from a gateway (or a class of one) and
//    out through another class's gateway E_b. A cycle needs a chain of
//    dependencies from channel R->E_b to some X->E_a followed by E_a->R.
//    Routes are up*/down* there, so the chain climbs from E_b to some T and
//    then only descends; to come down into E_a, T is an ancestor of both, so
//    E_a is in E_b's class, i.e. E_a = E_b. In a core that is a (possibly
//    degraded) PGFT, the switches between E_b and its ancestor T are the
//    same going up and coming down (one per level), so the chain would turn
//    at the switch below T straight back into the switch it came from,
//    which no route does (a switch climbs only toward what is not below it,
//    and T descends into it only toward what is). R's other cables into a
//    class carry only routes that start at R, which nothing precedes in the
//    dependency graph. The credit-loop safety net (sftree.cpp,
//    break_credit_loops) still checks the result.
// 2. (Alg. 2) For every switch src and every LID dst that src cannot route:
//    if the root routes dst (and src routes the root), src sends dst where
//    it sends the root's LID (or its gateway's, 2a); else, if the root's
//    sibling (a leaf joined to it by a horizontal link) routes dst and src
//    routes the sibling, the root sends dst over the horizontal link and src
//    sends dst where it sends the sibling's LID. Otherwise the pair is
//    reported as failed.
// 3. (get_path_length) After each new entry, the path from src is walked until
//    a switch whose hop count toward dst is known (the destination's own
//    switch: 0, a CA's leaf: 1); the counts are then written back along the
//    walk. A walk that revisits a switch or dead-ends undoes the entry and the
//    pair is reported, so the tables never get a forwarding loop.
// Also routes switch->CA pairs ftree could not (degraded trees): those entries
// carry only switch-originated traffic.
// Re-route (docs/routing.md, "Re-route"): Algorithm 2's entry is a function
// of the subtree root, whether it routes dst, and src's own entry toward the
// root's LID, so when Algorithm 1 picks the same root (no gateway, the root's
// row kept), a re-route keeps the last entries and routes again only the
// holes whose row or column D-Mod-K decided again or whose row now leads
// toward the root elsewhere, and the columns where such a row on a kept
// path routes differently (sftree.cpp, "Re-route"). The safety net then
// checks the last dependency graph plus the dependencies of the changed
// entries; a cycle there (or any failed pair) makes it a full run of both.
#pragma once

#include "routing/engine.h"
#include "routing/fattree/dmodk.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace ibsm::routing::fattree {

struct SftreeResult {
    RoutingTables tables;
    FatTree tree;
    topology::NodeId subtree_root;
    bool root_routes_everything = false; // Alg. 1 found a leaf that routes every LID
    std::vector<topology::NodeId> gateways; // step 2a: one per class of R's parents sharing ancestors
    std::size_t root_entries_pinned = 0;    // R's switch-LID entries moved onto a gateway cable
    // hops[dst][switch index] for the LIDs Algorithm 2 touched; 0xFF unknown.
    std::map<Lid, std::vector<std::uint8_t>> hops;
    std::vector<std::pair<topology::NodeId, Lid>> failed; // "SW2SW failed for src and dst"
    // Step 2a's overwrites: (root's switch index, LID, D-Mod-K's port there).
    std::vector<std::tuple<std::uint32_t, Lid, std::uint8_t>> pinned;
    // D-Mod-K's state for the next re-route and how this run was made (dmodk.h).
    std::shared_ptr<const EngineMemory> state;
    std::string how;
    bool incremental = false;
};

// `engine_name` names the tables and refusals; ftree runs this too (see
// dmodk.h, FtreeEngine), promising less. `avoid_sm`: step 1's rule about
// the SM's leaf; ftree, which promises no switch pair, takes the first leaf
// that routes every LID wherever the SMs are, so its tables do not depend
// on which SM computes them (a takeover moves no route).
// `previous`: as run_dmodk's (D-Mod-K re-decides only what the delta may
// change; Algorithm 2 and the safety net only what that and the delta
// change, see "Re-route" above).
std::variant<SftreeResult, Refusal> run_sftree(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                               const Options& options, const std::string& engine_name = "sftree",
                                               bool avoid_sm = true, const Previous* previous = nullptr);

class SftreeEngine final : public Engine {
public:
    std::string name() const override { return "sftree"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
    EngineRun compute_after(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                            const Previous* previous) const override;
};

} // namespace ibsm::routing::fattree
