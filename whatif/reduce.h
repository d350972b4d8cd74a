// A fabric with some of it taken away, what that cuts off, and the links a
// drain takes out of the routing.
//
// Why pure: the offline what-if, the daemon's drain and its dry run must
// agree on what is cut off and on which links a drained switch loses.
//
// Data structures: Reduction names nodes taken away (every cable of theirs)
// and single link ends (either end names the cable); Component is the
// fabric the SM would still see, renumbered (topology/fabric_subset.h),
// with its LIDs carried over and the NodeId it had before.
//
// Algorithm: cut_off is a breadth-first search from the SM's node over the
// reduced fabric; every node not reached and not taken away is cut off.
// drain_links keeps one link of a drained switch for its own LID (so the
// SM and tools reach it in-band, e.g. to update its firmware) and takes out
// every other: the kept one leads to the neighbour switch, not drained
// itself, that is nearest the SM over the fabric without drained switches
// (ties: lowest port). A switch with one link is a dead end: nothing
// routes through it but traffic to its own LID.
#pragma once

#include "lidassign/lid_map.h"
#include "topology/fabric.h"

#include <optional>
#include <set>
#include <vector>

namespace ibsm::whatif {

struct Reduction {
    std::set<topology::NodeId> removed; // nodes taken away
    std::set<topology::PortRef> links;  // link ends taken out (either end names the cable)
    std::vector<std::string> labels;    // what was taken, as the report names it
};

// `f` with every cable of a removed node and every named link disconnected.
topology::Fabric reduce(topology::Fabric f, const Reduction& r);

// Nodes neither removed nor reached from `sm_node` over `reduced`, in NodeId
// order. An `sm_node` that was removed reaches nothing.
std::vector<topology::NodeId> cut_off(const topology::Fabric& reduced, topology::NodeId sm_node,
                                      const std::set<topology::NodeId>& removed);

struct Component {
    topology::Fabric fabric;
    lidassign::LidMap lids;
    std::vector<topology::NodeId> old_of; // new NodeId -> NodeId in the fabric it came from
};
// The nodes of `f` not in `drop`, renumbered, with their LIDs in `lids`.
Component component(const topology::Fabric& f, const lidassign::LidMap& lids, const std::vector<bool>& drop);

struct DrainLinks {
    std::vector<topology::PortRef> isolated;  // the switch's ends of every link taken out
    std::optional<topology::PortRef> kept;     // the switch's end of the link kept for its LID
};
// The links draining `sw` takes out, with `drained` the other drained switches.
DrainLinks drain_links(const topology::Fabric& f, topology::NodeId sm_node, topology::NodeId sw,
                       const std::set<topology::NodeId>& drained);

} // namespace ibsm::whatif
