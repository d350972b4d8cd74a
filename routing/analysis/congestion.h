// The linear congestion model of seed 001 §IV: a set of flows is routed,
// every link counts the flows crossing it (tau(e)), and each flow gets the
// link bandwidth divided by the largest count on its path.
//
// Why: both the effective bisection bandwidth and the shift permutations are
// this model applied to different traffic patterns.
//
// Data structures: `PathTable` keeps, per CA destination (base LID) and per
// switch, the output port toward it (255 when that switch's route to it is
// not delivered) — one byte per (host, switch), filled during the
// per-destination pass; walking a path is then a few array reads per hop.
// `FlowScratch` is a per-thread counter per channel plus the flows' paths.
//
// Only switch-to-switch links are counted: the patterns evaluated here are
// partial permutations (every CA port sends at most one flow and receives at
// most one), so a CA's cable carries exactly one flow each way and can never
// be the maximum above 1. A flow whose route is not delivered gets bandwidth 0.
#pragma once

#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"
#include "routing/analysis/pair_routes.h"

#include <cstdint>
#include <span>
#include <vector>

namespace ibsm::routing::analysis {

class PathTable {
public:
    explicit PathTable(const Network& net);
    // Records the routes toward a CA port's base LID; other traces are ignored.
    // Distinct destinations may be added from different threads.
    void add(const DestinationTree& tree);

    // Appends the switch-to-switch channels from `src` to `dst` (endpoints,
    // CA ports) to `path`; false when the route is not delivered.
    bool walk(std::int32_t src, std::int32_t dst, std::vector<std::int32_t>& path) const;
    // Per-pair path routing (pair_routes.h): walks follow the LFTs on the
    // DLID each pair uses instead of the destination's base LID.
    void use_pair_routes(const PairRoutes& routes);

private:
    const Network* net_;
    std::size_t nsw_;
    std::vector<std::int32_t> row_of_;       // endpoint -> row (-1: not a CA port)
    std::vector<std::uint8_t> out_port_;     // [row * nsw + switch]
    std::vector<std::size_t> port_offset_;   // per switch, into chan_
    std::vector<std::int32_t> chan_;         // (switch, port) -> channel
    std::vector<std::int32_t> head_switch_;  // channel -> next switch or -1
    const PairRoutes* pairs_ = nullptr;
    std::vector<std::int32_t> pair_src_, pair_dst_; // endpoint -> index in the DLID map, or -1
};

struct Flow {
    std::int32_t src = -1; // endpoints
    std::int32_t dst = -1;
};

struct FlowScratch {
    std::vector<std::uint32_t> tau;       // per channel, all zero between calls
    std::vector<std::int32_t> path;       // concatenated paths
    std::vector<std::uint32_t> path_end;  // per flow, end offset in `path`; no_path when unroutable
};

struct FlowOutcome {
    double bandwidth_sum = 0;     // sum over flows of 1 / max tau on the path
    std::uint64_t unroutable = 0; // flows whose route is not delivered
};

class FlowEvaluator {
public:
    FlowEvaluator(const Network& net, const PathTable& paths) : net_(&net), paths_(&paths) {}
    FlowOutcome evaluate(std::span<const Flow> flows, FlowScratch& scratch) const;

private:
    const Network* net_;
    const PathTable* paths_;
};

} // namespace ibsm::routing::analysis
