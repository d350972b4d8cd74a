// OpenSM's max_reverse_hops: how far a CA's route to an I/O node hanging
// above the leaves may go the wrong way.
//
// Why: a CA port that is not a compute node may hang from a spine or core
// switch (ranking.h, `floats`). Some sources reach it only by going down
// and then up again: an I/O node on one top switch, seen from an I/O node
// on another, lies below no switch the second can climb to. OpenSM's ftree
// lets the routes to the nodes of io_guid_file make up to max_reverse_hops
// such "reverse hops" (osm_ucast_ftree.c, fabric_route_downgoing_by_going_up
// and its reverse_hop_credit), and no others: with 0 (its default) those
// pairs are left unrouted. ibsmd routes them through the subtree root, the
// one switch where sftree lets routes turn back up (sftree.h, Algorithm 2,
// and §5's argument that turns at a single switch close no credit loop), so
// the tables stay deadlock-free for the gate; this check then holds each
// CA's route to what the configuration allows, and refuses otherwise, so
// the chain's next engine routes the fabric and the operator reads why.
//
// A reverse hop, as OpenSM counts its credit: a down hop taken before a
// later up hop on the same route (down, down, up costs 2; a horizontal hop
// between leaves costs nothing).
//
// Data structures: the tables and the FatTree's levels; nothing kept.
//
// Algorithm: for each destination LID of an off-leaf CA port
// (FatTree::off_leaf_ca_ports) and each switch with CA ports (the only
// switches whose entries carry CA-originated traffic from their first hop),
// walk the route, counting down hops until the next up hop. Compute nodes
// and CA ports on leaves are not checked: their routes are D-Mod-K's, and
// what was routed before these files existed stays as it was. O(off-leaf
// LIDs x switches x height).
#pragma once

#include "lidassign/lid_map.h"
#include "routing/engine.h"
#include "routing/fattree/ranking.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <optional>
#include <string>

namespace ibsm::routing::fattree {

// Why the tables take some CA to an off-leaf non-compute port with more
// reverse hops than allowed (Options::max_reverse_hops for nodes listed in
// io_nodes, 0 for the others), with the pair count and one example;
// nullopt when they do not.
std::optional<std::string> reverse_hops_refusal(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                                const FatTree& tree, const RoutingTables& tables,
                                                const Options& options);

} // namespace ibsm::routing::fattree
