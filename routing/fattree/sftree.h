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
// entries ftree left without a route, so every route ftree gives (in
// particular every CA->CA route) is unchanged; per destination LID that
// needed Algorithm 2, the hop count of every switch toward it
// (get_path_length bookkeeping, 0xFF = not known).
//
// Algorithm:
// 1. (Alg. 1) The subtree root is the first leaf, in compute-node order, whose
//    table routes every LID and which does not host the SM's port
//    (Options::sm_port_guid, seed 000 §4.2). If none does, the first leaf not
//    hosting the SM.
// 2. (Alg. 2) For every switch src and every LID dst that src cannot route:
//    if the root routes dst (and src routes the root), src sends dst where it
//    sends the root's LID; else, if the root's sibling (a leaf joined to it by
//    a horizontal link) routes dst and src routes the sibling, the root sends
//    dst over the horizontal link and src sends dst where it sends the
//    sibling's LID. Otherwise the pair is reported as failed.
// 3. (get_path_length) After each new entry, the path from src is walked until
//    a switch whose hop count toward dst is known (the destination's own
//    switch: 0, a CA's leaf: 1); the counts are then written back along the
//    walk. A walk that revisits a switch or dead-ends undoes the entry and the
//    pair is reported, so the tables never get a forwarding loop.
// Also routes switch->CA pairs ftree could not (degraded trees): those entries
// carry only switch-originated traffic.
#pragma once

#include "routing/engine.h"
#include "routing/fattree/dmodk.h"

#include <map>
#include <variant>
#include <vector>

namespace ibsm::routing::fattree {

struct SftreeResult {
    RoutingTables tables;
    FatTree tree;
    topology::NodeId subtree_root;
    bool root_routes_everything = false; // Alg. 1 found a leaf that routes every LID
    // hops[dst][switch index] for the LIDs Algorithm 2 touched; 0xFF unknown.
    std::map<Lid, std::vector<std::uint8_t>> hops;
    std::vector<std::pair<topology::NodeId, Lid>> failed; // "SW2SW failed for src and dst"
};

std::variant<SftreeResult, Refusal> run_sftree(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                               const Options& options);

class SftreeEngine final : public Engine {
public:
    std::string name() const override { return "sftree"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
};

} // namespace ibsm::routing::fattree
