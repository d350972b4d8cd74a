// MinHop's switch graph, destinations and routing order (minhop.cpp), shared
// with its re-route (minhop_reroute.cpp), and what a run keeps for the next
// one (docs/routing.md, "Re-route").
//
// Why: MinHop's entry for (switch s, LID) is the least-loaded port among s's
// least-hop ports toward the LID's delivering switch t. It reads only the
// candidate set C(s, t) (from the hop distances of s and of its neighbours
// to t) and the load of s's ports. A delta that leaves C(s, t) and the LID's
// delivery alone leaves the entry valid; a re-route re-chooses only the
// other entries, into the loads the kept entries put on the ports.
//
// Data structures: `Graph` is the switch graph of minhop.cpp (dense switch
// indices in NodeId order, per switch its usable switch links in port order,
// the S x S hop matrix); `MinHopMemory` keeps a run's graph with every
// switch's GUID, so the next run maps its own indices by GUID (nodes are
// numbered by GUID; one that leaves shifts the rest).
#pragma once

#include "lidassign/lid_map.h"
#include "routing/guid_roles.h"
#include "routing/engine.h"
#include "routing/incremental.h"
#include "topology/fabric.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::minhop {

constexpr std::uint8_t unreachable = 255;

struct Hop {
    std::uint8_t port;
    std::uint32_t neighbour;
    Guid node_guid;
    Guid system_guid;
};

// Where a destination port is delivered: the switch that hands the packet
// over and the port it uses (0 for the switch's own LIDs).
struct Destination {
    std::uint32_t base = 0;
    std::uint16_t count = 1;
    std::int64_t target = -1; // switch index, -1 when unreachable from any switch
    std::uint8_t final_port = 0;
    bool counts_as_traffic = true;
    Guid port_guid;
};

struct Graph {
    std::vector<topology::NodeId> switches;
    std::vector<std::vector<Hop>> hops;
    std::vector<std::uint8_t> dist; // dist[n * S + t]
    std::size_t size() const { return switches.size(); }
    std::uint8_t d(std::size_t from, std::size_t to) const { return dist[from * switches.size() + to]; }
};

// `index`: NodeId value -> switch index, -1 for other nodes.
Graph build_graph(const topology::Fabric& fabric, std::vector<std::int64_t>& index);
std::vector<Destination> destinations(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                      const std::vector<std::int64_t>& index);
// OpenSM's order (minhop.cpp, routing_order).
std::vector<std::uint32_t> routing_order(const std::vector<Destination>& dests, const Graph& g,
                                         const GuidRoles& roles);

// Every switch's row, in full (minhop.cpp).
RoutingTables route_full(const Graph& g, const std::vector<Destination>& dests,
                         const std::vector<std::uint32_t>& order, Lid top, const Options& options);

struct MinHopMemory final : EngineMemory {
    Graph graph;                    // as routed (NodeIds of that run's fabric)
    std::vector<Guid> switch_guids; // by switch index
};

} // namespace ibsm::routing::minhop
