// A dense view of the switches of a Fabric and the directed links between
// them, for the engines that route over the whole switch graph (sssp,
// dfsssp).
//
// Why: SSSP runs one shortest-path pass per destination LID over every
// switch-to-switch channel (~4 200 passes over ~14 000 channels at 3 456
// hosts); going through NodeIds, PortRefs and optionals there would cost more
// than the arithmetic. Here switches are 0..S-1 and channels 0..C-1.
//
// Data structures:
// - channels in CSR form: switch s owns channels first[s]..first[s+1]-1, in
//   port order; channel c leaves through out_port[c] and arrives at switch
//   head[c] on in_port[c]. Only usable links (minhop.h, link_usable) count.
// - channel_at: per switch, its ports 0..num_ports mapped to the channel
//   leaving there (or no_channel), so a forwarding entry turns into a channel.
// - hosts[s]: CA/router ports with LIDs cabled to switch s (the traffic
//   sources there).
// - dist: S x S hop counts between switches (unreachable = 255); row t is
//   every switch's distance to t. by_distance: row t lists the switches that
//   reach t, nearest first (t itself first).
// - destinations: every port with LIDs (LidMap order), with the switch that
//   delivers it and the port it delivers through (0 for a switch's own LIDs);
//   lid_target: the delivering switch of every LID.
//
// Algorithm: one BFS per switch (O(S * C)), the graph being undirected.
#pragma once

#include "lidassign/lid_map.h"
#include "topology/fabric.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing {

inline constexpr std::uint32_t no_channel = 0xffffffffu;
inline constexpr std::uint8_t unreachable_hops = 255;

struct GraphDestination {
    topology::PortRef port;
    Guid port_guid;
    std::uint32_t base = 0;   // first LID
    std::uint16_t count = 1;  // LIDs (2^LMC)
    std::int32_t target = -1; // delivering switch, -1 when none (an unconnected CA)
    std::uint8_t final_port = 0;
    bool is_switch = false;
};

struct SwitchGraph {
    std::vector<topology::NodeId> switches;
    std::vector<std::int32_t> switch_of_node; // NodeId value -> switch index or -1

    std::vector<std::uint32_t> first; // size S+1
    std::vector<std::uint32_t> head;
    std::vector<std::uint8_t> out_port;
    std::vector<std::uint8_t> in_port;
    std::vector<std::uint32_t> port_first; // size S+1, into channel_at
    std::vector<std::uint32_t> channel_at;

    std::vector<std::uint32_t> hosts;
    std::vector<std::uint8_t> dist;
    std::vector<std::uint32_t> by_distance;
    std::vector<std::uint32_t> reach_count; // per switch t: how many switches reach it

    std::vector<GraphDestination> destinations;
    std::uint32_t lid_limit = 0;          // top LID + 1
    std::vector<std::int32_t> lid_target; // per LID: delivering switch, -1 when none

    std::size_t size() const { return switches.size(); }
    std::size_t channel_count() const { return head.size(); }
    std::uint8_t hops(std::size_t from, std::size_t to) const { return dist[to * size() + from]; }
    const std::uint8_t* hops_to(std::size_t to) const { return &dist[to * size()]; }
    // The reaching(to) switches that reach `to`, nearest first.
    const std::uint32_t* nearest_first(std::size_t to) const { return &by_distance[to * size()]; }
    std::uint32_t reaching(std::size_t to) const { return reach_count[to]; }
    std::uint32_t channel_from(std::size_t s, std::uint8_t port) const
    {
        const auto i = port_first[s] + port;
        return i < port_first[s + 1] ? channel_at[i] : no_channel;
    }
};

SwitchGraph build_switch_graph(const topology::Fabric& fabric, const lidassign::LidMap& lids);

} // namespace ibsm::routing
