// Chained trees: N two-level fat-trees in a row, neighbouring trees joined
// by leaf-to-leaf cables (seed 001 §IV's "Deimos-like" fabric).
//
// Why: real clusters grown in phases are often several trees cabled
// together at the leaves. No fat-tree engine can route that as one tree (a
// leaf-to-leaf cable between trees is neither up nor down), so it is the
// test for the ranking's refusal and for the general engines; seed 001
// measures P-SSSP/DFSSSP on exactly such a fabric.
//
// Shape (per tree t = 0..N-1): `spines` spine switches and `leaves` leaf
// switches of `ports` ports; every leaf has one cable to every spine (leaf
// ports hosts_per_leaf+1 .. hosts_per_leaf+spines, spine port = leaf index
// + 1) and `hosts_per_leaf` host ports 1..hosts_per_leaf. Between trees t
// and t+1 run `cables` leaf-to-leaf cables; each takes a host port on both
// ends (the highest free one), so those host slots stay empty. The leaves
// a boundary uses are a seeded shuffle of each tree's leaves, taken round
// robin, so the cables spread evenly and a seed means the same fabric.
// Defaults: the benchmark fabric, 3 trees x (12 spines, 24 leaves of
// 24-port switches, 12 hosts per leaf), 30 cables between neighbours: 108
// switches, 744 hosts.
//
// Naming: "t1-spine-0003", "t1-leaf-0007"; hosts "host-0000".. numbered tree
// by tree, leaf by leaf. Hosts come first in the Fabric, then each tree's
// spines and leaves.
#pragma once

#include "topology/fabric.h"

#include <cstdint>

namespace ibsm::topology {

struct ChainParams {
    unsigned trees = 3;          // >= 1
    unsigned spines = 12;        // per tree, >= 1
    unsigned leaves = 24;        // per tree, >= 1
    unsigned ports = 24;         // per switch
    unsigned hosts_per_leaf = 12;
    unsigned cables = 30;        // between neighbouring trees
    std::uint64_t seed = 1;
};

// Throws std::invalid_argument for impossible parameters (ports too few for
// the hosts and spines or the leaves, more chain cables on a leaf than it
// has host ports).
Fabric generate_chain(const ChainParams& params);

} // namespace ibsm::topology
