// Nue's routing step for one destination LID (HPDC 2016, §4, the modified
// Dijkstra on the complete CDG): a shortest-path tree towards the
// destination switch in which every dependency a route takes is one the
// layer can hold without a cycle.
//
// Why: destination-based routing gives each switch one output per LID, so
// the routes to a LID form a tree; growing that tree outward from the
// destination with Dijkstra, and accepting a switch's channel only when the
// turn it makes into its parent's channel keeps the layer's CDG acyclic,
// makes deadlock freedom a property of the path search instead of a repair
// afterwards (layers, as dfsssp does) — so any number of VLs is enough.
//
// Data structures: per switch the tentative distance, the chosen channel
// (via), whether its turn was added for this LID (fresh, so a better
// offer can take it back), a settled mark; a heap of (distance, switch).
// Channel weights are shared across LIDs and layers (the balancing);
// `out_port` is the dense forwarding matrix out_port[lid * S + s].
//
// Algorithm: settle the destination switch t; relax, from each settled
// switch x with channel c_x, every channel c_w = w -> x of an unsettled w:
// distance d(x) + weight(c_w), acceptable when the turn c_w -> c_x is used
// already or can be added (dependency_layer.h; the first hop into t makes
// no turn). A tie keeps the first offer: the paper tries used turns before
// unused ones, but on equal distances that measured worse here (EBB 0.7560
// against 0.7604 on a degraded 648-host tree, with no fewer impasses).
// Switches that can reach t but were not settled mean an impasse (the
// paper's term). First a local repair of our own: an unsettled switch w
// with a settled neighbour x is attached through x if x can change its
// channel to another settled neighbour y (one that does not route through
// x) with every turn involved fitting the layer — w's into x's new channel,
// x's into y's, and those of x's children into x's new channel; the search
// then goes on from w. What that cannot attach takes the escape paths
// (escape_paths.h), whose turns the layer reserved. The paper moves the
// whole LID onto them; here only as much as needed moves: the stranded
// switches take their escape path, so does every switch on those paths,
// and a settled switch whose parent moved keeps its channel only if the
// turn into the parent's new channel can be added — otherwise it moves
// too, until nothing changes. Every turn of the result is then a reserved
// tree turn, one accepted before, or one just accepted, so the layer stays
// acyclic; with every switch moved it is the paper's fallback. Finally
// every switch's CA sources (source_weight) are added to the weights of
// the channels their route crosses (the paper's weight update, sssp's
// counting: routing/tree_flow.h).
#pragma once

#include "routing/nue/dependency_layer.h"
#include "routing/nue/escape_paths.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::nue {

class CdgRouter {
public:
    CdgRouter(const ChannelTurns& turns, std::vector<std::uint8_t>& out_port, std::vector<std::uint64_t>& weight,
              std::vector<std::uint32_t> source_weight);

    // Routes `lid`, delivered by switch t through final_port, in `layer`.
    // The switches moved onto escape paths after an impasse (0: none).
    std::size_t route(std::uint32_t lid, std::size_t t, std::uint8_t final_port, DependencyLayer& layer,
               const EscapePaths& escape);

    // Impasses repaired by local backtracking so far (all LIDs).
    std::size_t repaired() const { return repaired_; }

private:
    void relax(std::uint32_t x, std::size_t t, DependencyLayer& layer);
    bool backtrack(std::size_t t, DependencyLayer& layer);
    bool routes_through(std::uint32_t from, std::uint32_t x, std::size_t t) const;
    std::size_t escape_impasse(std::uint32_t lid, std::size_t t, DependencyLayer& layer, const EscapePaths& escape);
    void tree_order(std::size_t t);
    void add_load();

    const ChannelTurns& t_;
    std::vector<std::uint8_t>& out_port_;
    std::vector<std::uint64_t>& weight_;
    const std::vector<std::uint32_t> source_weight_;

    std::vector<std::uint64_t> dist_;
    std::vector<std::uint32_t> via_;
    std::vector<char> fresh_;
    std::vector<std::uint32_t> into_; // when fresh: the parent channel its added turn leads into
    std::vector<std::uint32_t> settled_; // == stamp_: settled for this LID
    std::uint32_t stamp_ = 0;
    std::size_t repaired_ = 0;
    std::vector<std::uint32_t> order_; // settled switches, t first
    std::vector<std::uint64_t> load_;
    std::vector<std::uint32_t> escape_via_, escape_order_, queue_;
    std::vector<char> moved_, checked_;
    struct Offer {
        std::uint64_t dist;
        std::uint32_t node;
        std::uint32_t channel;
        bool operator>(const Offer& o) const { return std::tie(dist, node) > std::tie(o.dist, o.node); }
    };
    std::vector<Offer> heap_;
};

} // namespace ibsm::routing::nue
