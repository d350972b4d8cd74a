// A dense, index-based view of a Fabric plus its routing tables, shaped for
// the analyzer's inner loops.
//
// Why: the analyses walk millions of (switch, destination) steps; doing that
// through NodeId maps and optional<PortRef> would dominate the run time. This
// view numbers switches 0..S-1, addressable ports ("endpoints": every CA or
// router port with a LID and every switch's port 0) 0..E-1 and directed links
// ("channels") 0..C-1 once, and keeps a LID -> endpoint table.
//
// Data structures: `lid_owner_` is indexed by LID value (every LID of an
// LMC block points at its endpoint). Channels are found from (switch, port)
// through a per-switch offset into `switch_port_channel_`. A channel stores
// where it leads: the next switch (or -1) and, when it ends on an endpoint
// port, that endpoint (or -1).
//
// LIDs are taken from the ports as the net file / ibnetdiscover shows them
// (Port::lid, Port::lmc; a switch's LID from port 0, or any port if port 0 has
// none), so tables read back from any SM can be scored; or, for the
// verification gate (routing/verify.h), from the LID assignment itself,
// which the daemon has not written onto its discovered fabric.
#pragma once

#include "routing/tables.h"
#include "topology/fabric.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm::routing::analysis {

struct Endpoint {
    topology::PortRef port;
    bool is_switch = false;
    Lid base;
    std::uint8_t lmc = 0;
    // Switch index the endpoint's traffic starts from: the switch itself, or
    // for a CA port the switch its cable leads to; -1 when there is none.
    std::int32_t attach_switch = -1;
    std::string name; // display name (see Network::display_name)
};

struct Channel {
    topology::PortRef tail; // the port the traffic leaves from
    topology::PortRef head; // the port it arrives at
    std::int32_t tail_switch = -1;
    std::int32_t head_switch = -1;   // -1: ends on a CA/router port
    std::int32_t head_endpoint = -1; // endpoint owning `head`, if any
};

// Where leaving switch s by one port leads, as tracing reads it: one 8-byte
// entry per (switch, port) instead of a channel index and then a 28-byte
// Channel elsewhere in memory.
struct Hop {
    std::int32_t channel = -1; // -1: port 0, uncabled
    // >= 0: the switch the cable leads to; -1: none (uncabled, or a port
    // without a LID); <= -2: the endpoint -(head + 2) owning the far port.
    std::int32_t head = -1;
    std::int32_t head_switch() const { return head >= 0 ? head : -1; }
    std::int32_t head_endpoint() const { return head <= -2 ? -(head + 2) : -1; }
};

// A channel's ends as the CDG reads them (8 bytes per channel).
struct ChannelEnds {
    std::int32_t head_switch = -1;
    std::uint8_t head_port = 0;
    std::uint8_t tail_port = 0;
};

// One addressable port's LIDs: base..base+2^lmc-1 (port 0 for a switch).
struct PortLids {
    topology::PortRef port;
    Lid base;
    std::uint8_t lmc = 0;
};

class Network {
public:
    // LIDs from the fabric's ports. Throws std::invalid_argument when two
    // ports claim the same LID or a port's LMC block leaves the unicast range.
    Network(const topology::Fabric& fabric, const RoutingTables& tables);
    // LIDs from `lids` (ports not listed have none); throws like the above,
    // and for a listed port that is not in the fabric.
    Network(const topology::Fabric& fabric, const RoutingTables& tables, std::vector<PortLids> lids);

    const topology::Fabric& fabric() const { return *fabric_; }

    std::size_t switch_count() const { return switches_.size(); }
    topology::NodeId switch_node(std::int32_t s) const { return switches_[static_cast<std::size_t>(s)]; }
    // -1 when the node is not a switch.
    std::int32_t switch_index(topology::NodeId n) const { return switch_of_node_[n.value]; }
    std::uint8_t switch_ports(std::int32_t s) const { return switch_nports_[static_cast<std::size_t>(s)]; }
    // The switch's LFT, or nullptr when the tables have none for it.
    const Lft* lft(std::int32_t s) const { return lfts_[static_cast<std::size_t>(s)]; }
    // Endpoint index of the switch's port 0 (-1 if it has no LID).
    std::int32_t switch_endpoint(std::int32_t s) const { return switch_endpoint_[static_cast<std::size_t>(s)]; }

    const std::vector<Endpoint>& endpoints() const { return endpoints_; }
    const Endpoint& endpoint(std::int32_t e) const { return endpoints_[static_cast<std::size_t>(e)]; }
    // CA/router endpoints in name order (digit runs compared as numbers,
    // then node GUID, then port number).
    const std::vector<std::int32_t>& hosts_by_name() const { return hosts_by_name_; }

    // Endpoint owning `lid`, or -1.
    std::int32_t lid_owner(std::uint32_t lid) const
    {
        return lid < lid_owner_.size() ? lid_owner_[lid] : -1;
    }
    std::uint32_t lid_table_size() const { return static_cast<std::uint32_t>(lid_owner_.size()); }

    const std::vector<Channel>& channels() const { return channels_; }
    const Channel& channel(std::int32_t c) const { return channels_[static_cast<std::size_t>(c)]; }
    // Channel leaving switch s through `port`, or -1 (port 0, uncabled, out of range).
    std::int32_t channel_from(std::int32_t s, unsigned port) const
    {
        auto si = static_cast<std::size_t>(s);
        if (port > switch_nports_[si]) return -1;
        return switch_port_channel_[switch_port_offset_[si] + port];
    }
    // Switch s's hops by port, 0..switch_ports(s) (Hop).
    const Hop* hops_from(std::int32_t s) const { return &hops_[switch_port_offset_[static_cast<std::size_t>(s)]]; }
    // channel(c)'s ends, compact (ChannelEnds).
    const std::vector<ChannelEnds>& channel_ends() const { return ends_; }
    // The switch's LFT entries (index = LID) and how many: a flat view of
    // lft(s) for the loops that gather columns (nullptr, 0 when none).
    const std::uint8_t* lft_row(std::int32_t s) const { return lft_rows_[static_cast<std::size_t>(s)]; }
    std::size_t lft_row_size(std::int32_t s) const { return lft_row_sizes_[static_cast<std::size_t>(s)]; }
    // Channel leaving a CA/router port (its cable), or -1.
    std::int32_t injection_channel(std::int32_t endpoint) const { return injection_[static_cast<std::size_t>(endpoint)]; }

    // "name" of a node: its description when that is unique and non-empty,
    // else "description (GUID)" or the GUID.
    const std::string& display_name(topology::NodeId n) const { return node_names_[n.value]; }
    // "name[port]".
    std::string port_label(topology::PortRef p) const;

private:
    void build(const RoutingTables& tables, std::vector<PortLids> lids);

    const topology::Fabric* fabric_;
    std::vector<topology::NodeId> switches_;
    std::vector<std::int32_t> switch_of_node_;
    std::vector<std::uint8_t> switch_nports_;
    std::vector<const Lft*> lfts_;
    std::vector<std::int32_t> switch_endpoint_;
    std::vector<Endpoint> endpoints_;
    std::vector<std::int32_t> hosts_by_name_;
    std::vector<std::int32_t> lid_owner_;
    std::vector<Channel> channels_;
    std::vector<std::size_t> switch_port_offset_;
    std::vector<std::int32_t> switch_port_channel_;
    std::vector<Hop> hops_;          // by switch_port_offset_ + port
    std::vector<ChannelEnds> ends_;  // by channel
    std::vector<const std::uint8_t*> lft_rows_;
    std::vector<std::size_t> lft_row_sizes_;
    std::vector<std::int32_t> injection_;
    std::vector<std::string> node_names_;
};

// Every node's display name (index = NodeId value), as Network::display_name
// gives it; for code that names nodes without a Network (report/model.h).
std::vector<std::string> node_display_names(const topology::Fabric& fabric);

// Natural ordering of names: runs of digits compare by value ("h2" < "h10").
bool natural_less(const std::string& a, const std::string& b);

} // namespace ibsm::routing::analysis
