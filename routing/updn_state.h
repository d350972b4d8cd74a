// Up*/Down*'s destinations, routing order and router (updn.cpp), shared
// with its re-route (updn_reroute.cpp), and what a run keeps for the next
// one (docs/routing.md, "Re-route").
//
// Why: updn routes each destination LID along a tree (updn.h) whose cost
// reads the orientation and the channel loads of the LIDs routed before
// it. With the orientation unchanged, a tree that uses no lost link or
// switch, and that no new link could shorten, is still a legal tree of the
// same length: a re-route keeps it, with the load it puts on the channels
// (the last run's counters, kept here, less the re-routed trees'), and
// routes again only the other destinations on top of those loads.
//
// Data structures: `Destination` as in updn.cpp; `UpdnMemory` keeps the
// orientation by GUID (the switches in their up/down order with their BFS
// ranks, the roots and the rule that chose them), so the next run can tell
// whether its orientation is the same one.
#pragma once

#include "routing/engine.h"
#include "routing/incremental.h"
#include "routing/updn_order.h"
#include "topology/fabric.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::updn {

inline constexpr std::uint32_t no_target = 0xffffffffu;

// Where a destination LID block is delivered.
struct Destination {
    std::uint32_t base = 0;
    std::uint16_t count = 1;
    std::uint32_t target = no_target; // place of the delivering switch
    std::uint8_t final_port = 0;
    bool counts_as_traffic = true;
};

std::vector<Destination> destinations(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                      const Orientation& o);
// OpenSM's order (updn.cpp).
std::vector<std::uint32_t> routing_order(const std::vector<Destination>& dests, const Orientation& o);

// The balancing counters of updn.cpp by channel, as place * 256 + port: the
// CA routes crossing the channel (load) and the destinations whose tree
// takes it (usage).
struct ChannelLoads {
    std::vector<std::uint64_t> load;
    std::vector<std::uint32_t> usage;
};

// Routes the destinations with route_it[di] set into `lfts` (rows by place,
// those columns cleared), in `order`, LID offset outermost, on top of
// `loads` (the re-route's counters of the kept trees, touched_trees.h;
// empty: none). All set and empty loads: a full run. `loads` holds the
// final counters afterwards.
void route_destinations(const topology::Fabric& fabric, const Orientation& o, Balancing balancing,
                        const std::vector<Destination>& dests, const std::vector<std::uint32_t>& order,
                        const std::vector<char>& route_it, std::vector<Lft>& lfts, ChannelLoads& loads);
RoutingTables tables_of(const Orientation& o, std::vector<Lft>&& lfts, Lid top);

struct UpdnMemory final : EngineMemory {
    RootRule rule = RootRule::central;
    std::vector<Guid> order;         // switch GUIDs by place
    std::vector<std::uint32_t> rank; // by place
    std::vector<Guid> roots;         // ascending place
    std::vector<std::uint32_t> ca_ports; // by place (the CA sources of every tree)
    ChannelLoads loads;              // by place, after the run
};

} // namespace ibsm::routing::updn
