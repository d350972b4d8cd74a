// Which destination trees a delta touched, for the engines that route one
// tree per destination LID over minimal or up*/down* paths and re-route
// only those trees (updn, sssp: docs/routing.md, "Re-route").
//
// Why: a destination's routes are one tree toward its delivering switch.
// The tree is still valid when it used no link the delta took away (a lost
// switch's links count as lost from its neighbours' side) and no link the
// delta added could give a switch of it a shorter or an equal-hop path;
// then it can be kept, with the load it puts on the channels.
//
// Algorithm, per LID (last tables, last fabric):
// - its delivery changed (new, gone, another delivering switch or port);
// - an entry of the last tables leaves through a lost link: scan each lost
//   link's row once, O(LIDs) per lost link;
// - a new link (a, b) between switches of both fabrics, and the hops of a
//   and b to the LID along the last tree differ (|h(a) - h(b)| >= 1: one of
//   them reaches it in h + 1 through the other), or one has no route:
//   O(LIDs x hops) per new link.
// A switch both fabrics lack on one side (new) is the caller's to handle.
#pragma once

#include "routing/incremental.h"
#include "topology/fabric.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing {

struct TouchedTrees {
    std::vector<char> lid;       // per LID (0..top): the tree is routed again
    std::size_t delivery = 0;    // LIDs whose delivery changed
    std::size_t on_lost = 0;     // ... whose tree used a lost link
    std::size_t by_new = 0;      // ... that a new link may shorten
    std::vector<char> traffic_before, traffic_now; // per LID: a CA's, delivered (its tree carries CA routes)
    std::vector<char> routed_before;               // per LID: delivered by some switch in the last fabric
    std::vector<topology::PortRef> added;          // switch_links_only_in(fabric, previous fabric)
};

TouchedTrees touched_trees(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Previous& previous);

// The trees a re-route keeps, for kept_channel_loads: the last run's
// switches (GUIDs by its index), the sources (CA ports) of each switch then
// and now, this run's index -> the last run's, and per LID whether its tree
// carried sources before / carries them now, and whether it is routed again
// (whole LID blocks).
struct KeptTrees {
    const std::vector<Guid>& old_switches;
    const std::vector<std::uint32_t>& old_sources;
    const std::vector<std::uint32_t>& old_index;
    const std::vector<std::uint32_t>& sources;
    const std::vector<char>& before;
    const std::vector<char>& now;
    const std::vector<char>& again;
};

// The channel counters the kept trees put on this fabric, by this run's
// switch index * 256 + port (`channel`: 1 where this run has a switch
// link): the last run's (`old_load`, `old_usage` by the last run's index),
// less the routes of the trees routed again, traced in the last tables with
// the last sources (and one tree each from `usage`), and with the sources
// that left or came added along the kept trees from their switches. The
// last run's counters less the removed paths' contributions (seed 001
// §III-A's weights), without counting every kept tree again: O(trees routed
// again x S + changed switches x LIDs x hops). Every switch must be one the
// last run had.
void kept_channel_loads(const topology::Fabric& fabric, const std::vector<topology::NodeId>& switches,
                        const std::vector<char>& channel, const Previous& prev, const TouchedTrees& touched,
                        const KeptTrees& kept, const std::vector<std::uint64_t>& old_load,
                        const std::vector<std::uint32_t>* old_usage, std::vector<std::uint64_t>& load,
                        std::vector<std::uint32_t>* usage);

// The switch-to-switch links of `a` that `b` lacks, as (switch of a, port),
// from the switches both have.
std::vector<topology::PortRef> switch_links_only_in(const topology::Fabric& a, const topology::Fabric& b);

} // namespace ibsm::routing
