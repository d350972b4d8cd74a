// Dragonfly+ (Shpiner et al., "Dragonfly+: Low Cost Topology for Scaling
// Datacenters", 2017): groups of two-level trees whose spines carry the
// global links between groups.
//
// Why: large machines are built this way because a global cable per group
// pair is far cheaper than a three-level fat-tree. It is neither a fat-tree
// (spine-to-spine cables between groups are neither up nor down) nor a
// torus: its cycles run through the global links of several groups, so a
// shortest-path routing has credit loops that a deadlock-free engine must
// break with layers or turns, and the fat-tree engines must refuse it.
//
// Shape: G groups; group g has L leaf switches and P spine switches; every
// leaf has one cable to every spine of its group and H hosts. Spine s of
// every group belongs to global "plane" s: it is cabled only to spine s of
// other groups. With K = G-1 global links per spine (the default) each plane
// joins every group pair once. With fewer, plane s joins group g to the
// groups g ± d for K/2 offsets d taken round robin from 1..(G-1)/2 (plane s
// starts where plane s-1 stopped, so the planes together reach many group
// pairs), plus g + G/2 when K is odd (which needs G even: an odd number of
// groups cannot all have an odd number of links, the handshake lemma).
//
// Port layout: leaf ports 1..H hosts, H+1..H+P up to spines 0..P-1; spine
// ports 1..L down to leaves 0..L-1, L+1..L+K global, ordered by offset: port
// L+1+j goes to group (g + D[j]) mod G for the plane's offsets D ascending
// (with K = G-1: port L+i to group g+i), arriving there on the port of
// offset G - D[j].
//
// Naming: "dfly-g01-leaf02", "dfly-g01-spine00"; hosts "host-0000".. numbered
// group by group, leaf by leaf (host j of leaf l of group g is (g*L + l)*H +
// j on leaf port j+1). Hosts come first in the Fabric, then per group its
// leaves and then its spines.
#pragma once

#include "topology/fabric.h"

namespace ibsm::topology {

struct DragonflyParams {
    unsigned groups = 0;          // G >= 2
    unsigned leaves = 0;          // L >= 1 per group
    unsigned spines = 0;          // P >= 1 per group (= global planes)
    unsigned hosts_per_leaf = 0;  // H
    unsigned global_per_spine = 0; // K, 1..G-1; 0 = G-1 (every group pair on every plane)
};

// Throws std::invalid_argument, with the numbers, for parameters that need
// more ports than a switch has, an odd K with an odd G, or global links that
// leave some groups unreachable from others.
Fabric generate_dragonfly(const DragonflyParams& params);

} // namespace ibsm::topology
