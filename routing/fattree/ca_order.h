// Compute-node order: the topological index j that D-Mod-K routes by
// (seed 003 §IV: "end-ports are marked with an increasing index"), and the
// order file MPI rank files can follow (like OpenSM's
// opensm-ftree-ca-order.dump).
//
// Why: seed 003's theorems hold when the index follows the tree's tuples
// (§II-B): hosts of one leaf are consecutive, leaves of one sub-tree are
// consecutive, recursively. A discovered fabric has no tuples, so the order
// is rebuilt from the structure.
//
// Data structures: the leaf order, the slot count per leaf (m_1 = the most
// CAs on one leaf, so a partially populated leaf leaves a gap instead of
// shifting every later index), and the CA ports with their index
// j = leaf position * m_1 + rank of the port among the leaf's CA ports.
// With OpenSM's GUID files (guid_roles.h) only compute nodes take part:
// m_1 counts the most compute nodes on one leaf and ranks are among a
// leaf's compute nodes, so I/O and other CA ports do not shift any compute
// node's index; they follow in `others` (I/O nodes first, then by port
// GUID), indexed after the compute nodes' span, and are routed with those
// indices (osm_ucast_ftree.c routes non-compute nodes after the compute
// nodes, so they do not change the compute nodes' balance).
//
// Algorithm: a level-l sub-tree (the nodes sharing tuple digits a_h..a_{l+1})
// is a connected component of the switches of level <= l. Components are
// found with union-find for l = 2..h-1 and named by their smallest leaf GUID;
// leaves sort by (component at h-1, ..., component at 2, GUID), which nests
// every sub-tree inside its parent sub-tree.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/engine.h"
#include "routing/fattree/ranking.h"
#include "topology/fabric.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace ibsm::routing::fattree {

struct CaSlot {
    topology::PortRef ca;       // the CA (or router) port
    std::uint32_t leaf = 0;     // switch index of its leaf (of the switch it hangs from, for an off-leaf port)
    std::uint8_t leaf_port = 0; // that switch's port cabled to it
    std::uint32_t index = 0;    // D-Mod-K index j
};

struct CaOrder {
    std::vector<std::uint32_t> leaf_order; // leaf switch indices, in order
    std::uint32_t slots_per_leaf = 0;      // m_1
    std::vector<CaSlot> cas;               // compute nodes, ascending index
    std::vector<CaSlot> others;            // CA ports that are not compute nodes, index from index_span()
    std::uint32_t index_span() const { return static_cast<std::uint32_t>(leaf_order.size()) * slots_per_leaf; }
};

// `options`: its compute_nodes and io_nodes (guid_roles.h); without them
// every CA port is a compute node.
CaOrder compute_ca_order(const topology::Fabric& fabric, const FatTree& tree, const Options& options = {});

// One line per compute node in index order: "0x<LID, 4 hex digits>\t<node description>"
// (the base LID; ports without a LID are skipped), as OpenSM's ftree writes
// opensm-ftree-ca-order.dump.
void write_ca_order(std::ostream& out, const topology::Fabric& fabric, const lidassign::LidMap& lids,
                    const CaOrder& order);

} // namespace ibsm::routing::fattree
