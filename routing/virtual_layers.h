// Splitting shortest-path routes into virtual layers whose channel
// dependency graphs are acyclic: the deadlock removal of dfsssp, seed 001
// §III-D (LASH-like layering), done the way OpenSM's dfsssp does it (cycle
// search per layer; the routes on the weakest dependency of each cycle move
// up one layer).
//
// Why: minimal routes on anything but a tree close credit loops (a ring, a
// torus, a degraded tree, and on every fabric once switches send too).
// Routes on different VLs do not share buffers, so a partition of the routes
// whose every part has an acyclic channel dependency graph (CDG) is
// deadlock-free with one VL per part.
//
// Data structures: all sources on one switch (its CA ports and its own
// port 0) reach a LID along the same path, so the unit that gets a layer is
// (source switch, destination LID), weighted by the number of source ports
// there: layer[lid * S + s]. A CDG node is a switch-to-switch channel (CA
// links start or end every route, so they are never on a cycle); a CDG edge
// is a turn c1 -> c2 at the switch c1 enters, numbered turn_first[c1] + (c2's
// place among that switch's channels). Per layer, one counter per turn: the
// source ports whose route on that layer makes the turn; a turn is an edge
// of the layer's CDG while its counter is non-zero. Layers are allocated when
// the first unit moves there. Per channel, the LIDs its tail switch forwards
// through it (CSR, 16-bit LIDs), so the routes on a turn are found without
// scanning every LID.
//
// Algorithm: every unit starts on layer 0; the counters are filled per LID by
// summing the sources that flow into each switch along the routing tree,
// farthest switch first (routing/tree_flow.h; O(LIDs x switches)). Then, layer by layer, an
// iterative depth-first search over the CDG: a turn to a channel on the DFS
// stack closes a cycle; the cycle's weakest turn (fewest source ports, first
// in cycle order on ties) is found, and every unit of this layer that makes
// it is moved to the next layer (found from the LIDs whose routes take both
// channels, then, per LID, the switches whose route passes the turn's first
// switch a: routes are minimal, so only switches with a on a shortest path to
// the destination are candidates, visited nearest first; each moved route is
// walked to move its counts). The turn's
// counter is then 0; the stack is unwound to below the first of its turns
// that lost its last route, and the search goes on (finished channels stay
// finished: removing turns cannot create a cycle). A layer is done when the
// search finishes; the next layer holds only what moved up. Deterministic:
// channels, turns and LIDs are visited in index order.
#pragma once

#include "routing/sssp.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing {

struct VirtualLayers {
    // Layers in use (1 when the routes have no credit loop at all); when the
    // last allowed layer still has a cycle, limit + 1 and `complete` false.
    unsigned needed = 1;
    bool complete = true;
    // layer[lid * S + s]: layer of the routes from switch s's sources to lid.
    std::vector<std::uint8_t> layer;
    // Source ports x destination LIDs routed on each layer.
    std::vector<std::uint64_t> pairs;
    std::uint64_t cycles_broken = 0;
};

// Source ports on switch s that count for a unit: its CA ports and, when it
// has a LID, the switch itself.
std::vector<std::uint32_t> source_ports_per_switch(const SwitchGraph& graph);

// `limit` layers at most (1..16).
VirtualLayers assign_virtual_layers(const SsspRoutes& routes, unsigned limit);

} // namespace ibsm::routing
