// Up*/Down*-legal switch paths for the per-pair path engines (seed 002 §5.1:
// "Up*/Down* routing is applied to limit the paths that can be used").
//
// Why: both path engines pick among legal paths between the switches of a
// source and a destination; this file owns the orientation, the legal hop
// counts and the enumeration of legal loop-free paths, so the engines only
// choose.
//
// Roots: routing/updn_order.h (configured roots, else the tops of a tree,
// else the most central switch). The paper draws the root at random; a
// random root on an irregular fabric is often peripheral, and the farther the
// root from the centre the more pairs must detour up to it — fewer and longer
// legal paths for both selection and LID assignment. The central root
// (smallest eccentricity, then smallest distance sum) keeps legal paths
// shortest on average; on trees the spines are the natural tops.
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

#include "routing/engine.h"
#include "routing/updn_order.h"

#include <cstdint>
#include <span>
#include <string>
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

// True when the channel sequence is connected, starts at a, ends at b, never
// takes an up channel after a down one and visits no switch twice.
bool legal_loop_free(const UpdnGraph& g, std::span<const std::uint32_t> channels, std::uint32_t a,
                     std::uint32_t b);

} // namespace ibsm::routing::paths
