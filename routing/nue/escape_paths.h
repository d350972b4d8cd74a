// Nue's escape paths (HPDC 2016, §4): a spanning tree per layer whose
// routes' dependencies are put into the layer before anything else, so that
// whatever the layer's other routes block, a destination can always be
// routed along the tree — the guarantee that Nue never fails.
//
// Why: routing inside an acyclic subgraph of the cCDG can run into an
// impasse (the paper's term): every way towards some switch would close a
// cycle. Routes along a tree cannot form a cycle (a closed walk without
// U-turns does not exist in a tree), so reserving the turns the tree routes
// need keeps them available for the whole layer.
//
// Data structures: per switch its tree channel towards its parent (up) and
// its children (CSR); the tree is a forest, one tree per component, each
// grown from its root (layer_split.h) by Dijkstra over the channel weights
// it is given. The paper grows each layer's tree when the layer's turn
// comes, over the weights the earlier layers left; nue sets every layer up
// before routing (its LIDs are routed in one global order, nue.h), so the
// trees see the start weights and differ by their roots.
//
// Algorithm: reserve() marks, at every switch y, each turn from one tree
// channel into y onto another tree channel leaving y whose far side holds a
// destination of the layer (subtree counts decide which side that is): the
// turns of all tree routes towards the layer's destinations, no more.
// routes_to(t) is a breadth-first walk over the tree from t.
//
// Routes instead of a tree (issue 35): built from per-LID routes that are
// deadlock-free together (Up*/Down*'s, updn_escape.h), the escape of a LID
// is its own route and reserve_lids() marks every turn those routes take
// towards the layer's LIDs; their union is acyclic, so nothing is refused.
#pragma once

#include "routing/nue/channel_turns.h"
#include "routing/nue/dependency_layer.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::nue {

class EscapePaths {
public:
    EscapePaths(const ChannelTurns& turns, const std::vector<std::uint32_t>& roots,
                const std::vector<std::uint64_t>& weight);
    // Escape routes given per LID: route_via[lid * S + s] (updn_escape.h),
    // which must outlive this object.
    EscapePaths(const ChannelTurns& turns, const std::vector<std::uint32_t>& route_via);

    // Marks the tree routes' turns towards the switches flagged in
    // `is_destination` as used in `layer` (they cannot close a cycle).
    void reserve(DependencyLayer& layer, const std::vector<char>& is_destination) const;
    // With routes per LID: marks the turns of the routes towards `lids` as
    // used; throws std::logic_error if they close a cycle.
    void reserve_lids(DependencyLayer& layer, const std::vector<std::uint32_t>& lids) const;
    bool per_lid() const { return route_via_ != nullptr; }

    // via[s]: the channel switch s takes towards t along the tree
    // (no_channel for t and for switches of other components); order: the
    // switches reached, t first, each after the switch its channel leads to.
    // `lid` (delivered by t) selects the route when they are given per LID.
    void routes_to(std::uint32_t lid, std::size_t t, std::vector<std::uint32_t>& via,
                   std::vector<std::uint32_t>& order) const;

private:
    const ChannelTurns& t_;
    std::vector<std::uint32_t> up_;          // channel s -> parent, no_channel at a root
    std::vector<std::uint32_t> grown_;       // switches in the order the trees grew
    std::vector<std::uint32_t> child_first_; // CSR into children_
    std::vector<std::uint32_t> children_;
    const std::vector<std::uint32_t>* route_via_ = nullptr;
};

} // namespace ibsm::routing::nue
