// Fat-tree recognition: which switch sits at which level, and which of its
// links go up, down or sideways.
//
// Why: D-Mod-K (seed 003 §IV) and sFtree (seed 000 §4) are defined on the
// levels of a fat-tree; a discovered fabric only gives a graph. This turns the
// graph into levels, or says clearly why the fabric is not a fat-tree so the
// fallback chain can try the next engine.
//
// Data structures: switches are numbered 0..S-1 in node order; per switch the
// level (seed 003 §II-B numbering: 1 = leaf switches, h = top switches, 0 = not
// connected to the tree) and its usable links split into up / down / sibling
// (same level, only between leaf switches as in seed 000 Fig. 1) lists, each
// sorted by local port number, plus the ports that lead to CAs/routers.
//
// Algorithm (seed 000 §3 and OpenSM's ftree ranking): leaves are the switches
// with CAs. Roots are the configured root GUIDs, or found automatically from
// d(s), the BFS distance of switch s from the leaves. OpenSM (and this code
// before) took the switches farthest from every leaf; on a multi-core tree
// whose core pods carry no hosts (Ranger: core leaves 168..287) those pods
// are farther than the core tops, so they were taken for roots and the
// tree came out 6 levels high. Instead: D = the smallest distance such that
// the switches with d <= D join every leaf into one component (the level
// where all leaves meet; union-find in order of d, O(links)); the roots are
// the switches at d = D in that component. Host-less pods then hang below
// the roots as ordinary host-less subtrees. If that ranking is refused, D+1,
// D+2, .. up to the farthest are tried (a single NEM group meets at the core
// leaves already; one level up are the tops); when no such candidate ranks,
// or the leaves never meet, the old rule decides: the farthest switches and
// those one step nearer, the one leaving fewer CA-less switches at the leaf
// rank winning, so every fabric that ranked before still ranks. Ranks are
// then a BFS from the roots, and the tree is checked: every CA at the
// deepest rank, no switch below the leaves, horizontal links only between
// leaves, more than one level when there is more than one switch. A leaf
// that lost every up link but keeps a horizontal link to another leaf stays
// a leaf; a switch without CAs cabled like a leaf (its neighbours a subset
// of a leaf's) is an empty leaf and starts the upward BFS too; a switch
// above the leaves that lost every up link (reached only through its
// leaves) is put back one rank above them (for the D candidates only when
// one of those leaves has CAs, or roots one level too low would rank the
// core tops as empty leaves and put host-less core leaves above them).
// Last, the tree must be one tree: every leaf with CAs that has a way up
// must reach a top switch from which every other leaf with CAs (or a leaf
// cabled horizontally to it) lies below. Several two-level trees chained
// leaf to leaf (seed 001's Deimos) rank with every spine a root and the
// chain cables as horizontal links, but no up*/down* route crosses from one
// tree to the next but one: D-Mod-K left 133 128 of 553 536 CA pairs of a
// 744-host chain unreachable. Such fabrics are refused with the pair named.
#pragma once

#include "mad/types.h"
#include "topology/fabric.h"

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace ibsm::routing::fattree {

inline constexpr std::uint32_t no_switch = 0xFFFFFFFFu;

struct SwitchLink {
    std::uint8_t port = 0;      // local port
    std::uint8_t peer_port = 0; // port at the other end
    std::uint32_t peer = no_switch;
};

struct FatTree {
    std::vector<topology::NodeId> switches;   // switch index -> node
    std::vector<std::uint32_t> index_of_node;  // NodeId.value -> switch index or no_switch
    std::vector<std::uint8_t> level;           // 1 = leaf .. height = top; 0 = outside the tree
    std::uint8_t height = 0;
    std::vector<std::vector<SwitchLink>> up, down, sibling;
    std::vector<std::vector<std::uint8_t>> ca_ports; // ports cabled to CAs/routers
    // Ports of switches above the leaves cabled to CA ports that are not
    // compute nodes (rank_fat_tree's `floats`): OpenSM's I/O nodes on
    // spine or core switches.
    std::vector<std::vector<std::uint8_t>> off_leaf_ca_ports;
    std::vector<std::uint32_t> leaves;         // switches with CAs, by switch index

    std::size_t size() const { return switches.size(); }
    bool in_tree(std::uint32_t s) const { return level[s] != 0; }
};

// Usable for routing: answered and not DOWN on both ends (the same rule as
// the other engines).
bool fattree_link_usable(const topology::Fabric& fabric, topology::PortRef end);

// The fat-tree, or the reason the fabric is not one ("not a fat-tree: ...").
// `floats` (port GUID -> true): CA ports that need not sit on a leaf, the
// ones that are not compute nodes (routing/guid_roles.h). As in OpenSM's
// ftree, where only compute nodes mark leaves, they may hang at any level;
// a fabric that ranks with every CA port counted keeps that ranking, and
// only one that is refused so is ranked again with those ports set aside.
// Set aside, a port cabled to a leaf-level switch is a leaf CA as any other,
// one cabled higher is in FatTree::off_leaf_ca_ports.
std::variant<FatTree, std::string> rank_fat_tree(const topology::Fabric& fabric,
                                                 const std::vector<Guid>& root_guids,
                                                 const std::function<bool(Guid)>& floats = {});

} // namespace ibsm::routing::fattree
