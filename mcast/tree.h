// The multicast forwarding of one group: a spanning tree over the switches
// that connect its members, turned into one port mask per switch (the
// switch's MulticastForwardingTable entry for the group's MLID).
//
// Why: a switch forwards a multicast packet out of every port in the MLID's
// mask except the one it came in on. Any cycle in the masks makes packets
// circulate for ever, so the masks must form a tree; every member that
// receives must be on it, and every member that only sends must have its
// switch on it so its packets enter the tree.
//
// Which tree: the shortest-path tree from the switch at the centre of the
// members (OpenSM's choice in osm_mcast_mgr.c: the switch with the fewest
// hops to the farthest member's switch), pruned to the branches that lead to
// members. It keeps every member within (eccentricity) hops of the root, so
// the worst delivery path is at most twice the radius, and it reuses the
// links minimum-hop unicast routing uses. On a fat-tree the root is a spine
// and the tree is leaf -> spine -> leaf, as in the unicast routes. Groups
// with the same members tie on many roots (every spine of a two-level
// tree); `spread` (the MLID) picks among the tied ones, so the groups of a
// fabric do not all load the same spine. A Steiner tree would use fewer
// links but is NP-hard and buys nothing on the trees this SM targets.
//
// Data structures: the multicast-capable switches numbered 0..S-1 and the
// usable links between them (both ends known and not DOWN) in CSR form, in
// port order, so the BFSs run over a compact graph with reused buffers (at
// 11 664 hosts BFSs over every node with fresh buffers took 18x longer); the
// BFS from the root keeps the link each switch was reached by; the result
// is a map switch -> PortMask.
//
// Algorithm: (1) member ports to (switch, port): a CA port's switch is the
// far end of its cable, a switch's own port 0 is that switch; (2) one BFS
// per member switch gives each switch's farthest member; the root
// minimises (farthest, total hops), among ties the (spread % ties)-th by
// GUID; (3) a BFS from the root; for every member switch walk the parent
// chain up until a switch already on the tree, setting the port bits on
// both ends of each link; (4) set the port of every receiving member.
// Members the root cannot reach are returned as unreachable.
// O(M * (S + L)) for M member switches, S switches, L links (figures:
// tests/bench/mcast_tree_bench).
#pragma once

#include "topology/fabric.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace ibsm::mcast {

// A set of ports 0..255 of one switch.
struct PortMask {
    std::array<std::uint64_t, 4> bits{};

    void set(std::uint8_t p) { bits[p / 64] |= 1ull << (p % 64); }
    void reset(std::uint8_t p) { bits[p / 64] &= ~(1ull << (p % 64)); }
    bool test(std::uint8_t p) const { return (bits[p / 64] >> (p % 64)) & 1; }
    bool any() const { return bits[0] || bits[1] || bits[2] || bits[3]; }
    std::size_t count() const;
    // The 16 bits of ports 16*position .. 16*position+15 (a MulticastForwardingTable entry).
    std::uint16_t position(std::uint8_t position) const
    {
        return static_cast<std::uint16_t>(bits[position / 4] >> (16 * (position % 4)));
    }
    bool operator==(const PortMask&) const = default;
};

struct TreeMember {
    topology::PortRef port;
    bool receives = true; // false: send-only (its switch joins the tree, its port does not)
};

struct Tree {
    std::optional<topology::NodeId> root;
    std::map<topology::NodeId, PortMask> masks; // switches with a non-empty mask
    std::vector<topology::PortRef> unreachable; // members not cabled or not reachable from the root
    std::uint8_t depth = 0;                     // hops from the root to its farthest member switch
};

struct TreeOptions {
    // Switches that may carry multicast (MulticastFDBCap > 0); null: all.
    std::function<bool(topology::NodeId)> capable;
    std::uint32_t spread = 0; // picks among equally central roots
};

Tree spanning_tree(const topology::Fabric& fabric, std::span<const TreeMember> members, const TreeOptions& options = {});

// Independent check by simulation: a packet sent by `from` (a member port),
// forwarded by `masks` (every port of a switch's mask except the input),
// until it reaches end ports. Returns the end ports it reached (in order of
// arrival) or nullopt when a switch receives it twice (a loop or a
// duplicate) or a mask names a port without a usable link.
std::optional<std::vector<topology::PortRef>> deliver(const topology::Fabric& fabric,
                                                      const std::map<topology::NodeId, PortMask>& masks,
                                                      topology::PortRef from);

} // namespace ibsm::mcast
