// Up*/Down* orientation: which switches are the roots and which direction of
// every switch-to-switch link is "up" (seed 004, "Overview": distances from
// the roots, a hop back up after a hop down is forbidden).
//
// Why: the up/down rule is deadlock-free for any acyclic orientation, but it
// reaches every pair only if the up links lead every switch to one common
// top. OpenSM ranks switches by BFS distance from the root set and orients by
// (rank, GUID); with several roots that are not cabled to each other (the
// spines of a 3-level tree) every root is a top of its own, so root-to-root
// and many switch-to-switch pairs have no legal path, and its automatic root
// detection finds no roots at all on random fabrics, tori, hypercubes and
// chained trees (then it falls back to MinHop, with credit loops).
//
// Roots (in this order):
// 1. configured: the switches of Options::root_guids (GUIDs that are not
//    switches of the fabric are ignored; none left is a refusal);
// 2. tree tops: when some switches have no CAs, the switches at the largest
//    distance h >= 1 from any switch with CAs, kept only if every switch with
//    CAs is exactly h hops from them (fat-trees complete or degraded,
//    multi-core trees, chained trees: the spines; a fabric with a few host-less
//    switches scattered about fails the test);
// 3. central: otherwise one switch, the one with the smallest eccentricity,
//    then the smallest sum of distances, then the smallest GUID (random
//    fabrics, tori, hypercubes, rings: every switch has hosts).
//
// Orientation: rank = BFS distance from the roots. The switches are then put
// in one order by a best-first search that starts at the smallest
// (rank, GUID) root and always takes, among the switches cabled to one already
// taken, the smallest (rank, GUID). A link is "up" toward the switch earlier in
// that order. When sorting by (rank, GUID) already gives every switch but the
// first an earlier neighbour — OpenSM's orientation has a single top — the
// search yields exactly that sort (each next switch in sorted order is cabled
// to an earlier one, so it is the smallest candidate). Otherwise it departs
// from the sort only where it must: on a 3-level PGFT the groups of spines and
// their middle switches are joined through the first leaf taken, which then
// sits above the other groups — its routes into them are all "down" and the
// routes into it all "up", so no CA route loses a path. Every switch except
// the first has an earlier neighbour, so the first is the only top of its
// connected component: any switch reaches it going up and it reaches any
// switch going down, hence every pair has a legal up*-down* path. Each further
// component (a fabric split by failures) gets its own search, started at its
// smallest (rank, GUID) switch.
//
// Data structures: switches renumbered by their place in the order (index 0 =
// the top), with CSR adjacency whose up links (neighbour index smaller) and
// down links are kept apart, so the engine's passes run over plain arrays in
// topological order.
#pragma once

#include "mad/types.h"
#include "topology/fabric.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace ibsm::routing::updn {

enum class RootRule : std::uint8_t { configured, tree_tops, central };
const char* to_string(RootRule r);

struct Link {
    std::uint32_t neighbour; // index in the order
    std::uint8_t port;       // output port on this switch
};

struct Orientation {
    RootRule rule = RootRule::central;
    // Switches in order: switches[i] is the switch at place i (0 = top).
    std::vector<topology::NodeId> switches;
    std::vector<std::uint32_t> rank;      // by place: BFS distance from the roots (UINT32_MAX: no root reachable)
    std::vector<std::uint32_t> roots;     // places of the roots, ascending
    std::vector<std::uint32_t> ca_ports;  // by place: CA/router ports cabled to the switch
    // by place: links to switches earlier in the order (up) and later (down),
    // each sorted by port.
    std::vector<std::uint32_t> up_first, down_first; // CSR offsets, size switches+1
    std::vector<Link> up, down;
    std::vector<std::int64_t> place_of; // by NodeId: place, or -1 for non-switches

    std::size_t size() const { return switches.size(); }
};

// Only usable links count (routing/minhop.h: link_usable). A refusal text
// when configured roots are given and none of them is a switch here.
std::variant<Orientation, std::string> orient(const topology::Fabric& fabric, const std::vector<Guid>& root_guids);

} // namespace ibsm::routing::updn
