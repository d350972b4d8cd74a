// Up*/Down*-legal switch paths for the per-pair path engines (seed 002 §5.1:
// "Up*/Down* routing is applied to limit the paths that can be used").
//
// Why: both path engines pick among legal paths between the switches of a
// source and a destination; this file owns the orientation, the legal hop
// counts and the enumeration of legal loop-free paths, so the engines only
// choose.
//
// Roots: configured roots, else the tops of a tree (routing/updn_order.h).
// Otherwise (random fabrics, tori, ...) the paper draws the root at random,
// and updn_order.h takes the most central switch; on seed 002's fabrics
// neither is good: the maximum link load of the same path selection varies
// 2-3x with the root (one 512/64 instance: 5.4 to 18.4 over its 64 roots,
// 11.0 for the most central one) and no simple property (eccentricity,
// degree) predicts it. So the engines try several roots — the `trials` most
// central switches (smallest eccentricity, then distance sum, then GUID),
// `root_trials` below — and keep the one whose selected paths have the
// lowest maximum link load (ties: the more central). Each trial is one run
// of the engine's selection; trials run in parallel. Measured with pathsel
// over seeds 1-8 (tests/bench/colorl_bench, maximum link load, most central
// / random as the paper / best of 8): 128/16 3.30 / 3.23 / 2.40, 512/16
// 10.94 / 11.60 / 8.60, 128/64 2.57 / 2.14 / 1.80, 512/64 8.16 / 6.99 / 6.86,
// at 0-10 % more LIDs than the most central root.
//
// Data structures: switches by their place in the Up*/Down* order (0 = the
// top); directed switch-to-switch channels in CSR by place, each marked up
// (toward an earlier place) or down. A legal path is some up channels then
// some down channels. Per destination switch b, two hop counts for every
// place u: `any` (u may still go up) and `down` (u has gone down, only down
// channels left), 255 when b is unreachable that way. Terminals: the CA and
// router ports cabled to a switch by a usable link, sorted by port.
//
// Algorithm: hop counts by two passes over the orientation's DAG per b
// (down-only from the last place to the first, then any from the first to
// the last), O(S x (S + C)) in all. Path enumeration (`legal_paths`): a
// depth-first search from a in the "any" state that only steps to states
// from which b is still reachable within the remaining length, never
// revisits a switch and stops at b — one pass per length from the legal
// minimum up to minimum + slack, so shorter paths come first.
#pragma once

#include "common/parallel_for.h"
#include "routing/engine.h"
#include "routing/updn_order.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ibsm::routing::paths {

inline constexpr std::uint8_t no_legal_path = 255;

struct Terminal {
    topology::PortRef port;   // the CA/router port
    std::uint32_t place = 0;  // switch it is cabled to
    std::uint8_t switch_port = 0;
};

struct UpdnGraph {
    updn::Orientation order;
    std::vector<std::uint32_t> first; // by place: channels first[u]..first[u+1]-1, in port order
    std::vector<std::uint32_t> from, to;
    std::vector<std::uint8_t> port; // out port on `from`
    std::vector<std::uint8_t> up;   // 1: toward an earlier place
    std::vector<Terminal> terminals;
    std::vector<std::vector<std::uint32_t>> terminals_at; // by place: terminal indices
    std::vector<std::uint8_t> hops_any, hops_down;        // [b * S + u]

    std::size_t size() const { return order.size(); }
    std::size_t channel_count() const { return to.size(); }
    std::uint8_t legal_hops(std::uint32_t u, std::uint32_t b, bool down_only) const
    {
        return (down_only ? hops_down : hops_any)[static_cast<std::size_t>(b) * size() + u];
    }
    topology::NodeId node(std::uint32_t place) const { return order.switches[place]; }
};

// A refusal reason when the orientation refuses or the fabric has no switch.
std::variant<UpdnGraph, std::string> build_updn_graph(const topology::Fabric& fabric, const Options& options);

// Up to `k` legal loop-free channel sequences from place a to place b (a !=
// b), shortest first, no longer than the legal minimum + `slack`. Within one
// length, when more than the remaining quota exist, the kept ones are spread
// evenly over the depth-first order (so over first hops) instead of the
// first few found. At most `cap` paths of one length are looked at.
std::vector<std::vector<std::uint32_t>> legal_paths(const UpdnGraph& g, std::uint32_t a, std::uint32_t b,
                                                    unsigned k, unsigned slack, unsigned cap = 4096);

// The orientations to try: empty when `options` configures roots, when the
// fabric is a tree (updn_order.h's tree tops) or when trials <= 1 — then
// `g` (built from `options`) is the only one; otherwise `options` with each
// of the `trials` most central switches as the single configured root, most
// central first (the first gives the same orientation as updn_order.h's
// central rule).
std::vector<Options> root_trials(const UpdnGraph& g, const topology::Fabric& fabric, const Options& options,
                                 unsigned trials);

// Runs `select(graph, threads)` on `g` or, when root_trials() offers
// several orientations, on each of them (in parallel, one thread each) and
// returns the graph and selection whose `max_load` is smallest (ties: the
// earlier trial). Selection: any movable type with a comparable `max_load`.
template <typename Selection, typename Select>
std::pair<UpdnGraph, Selection> best_orientation(UpdnGraph g, const topology::Fabric& fabric, const Options& options,
                                                 unsigned trials, unsigned threads, Select select)
{
    const auto opts = root_trials(g, fabric, options, trials);
    if (opts.empty()) {
        auto chosen = select(g, threads);
        return {std::move(g), std::move(chosen)};
    }
    std::vector<std::optional<std::pair<UpdnGraph, Selection>>> results(opts.size());
    common::parallel_for(opts.size(), threads, [&](std::size_t i, unsigned) {
        auto built = build_updn_graph(fabric, opts[i]);
        if (auto* graph = std::get_if<UpdnGraph>(&built)) {
            auto chosen = select(*graph, 1u);
            results[i].emplace(std::move(*graph), std::move(chosen));
        }
    });
    std::size_t best = results.size();
    for (std::size_t i = 0; i < results.size(); ++i)
        if (results[i] && (best == results.size() || results[i]->second.max_load < results[best]->second.max_load))
            best = i;
    if (best == results.size()) { // no trial orientation built: keep the given one
        auto chosen = select(g, threads);
        return {std::move(g), std::move(chosen)};
    }
    return std::move(*results[best]);
}

// True when the channel sequence is connected, starts at a, ends at b, never
// takes an up channel after a down one and visits no switch twice.
bool legal_loop_free(const UpdnGraph& g, std::span<const std::uint32_t> channels, std::uint32_t a,
                     std::uint32_t b);

} // namespace ibsm::routing::paths
