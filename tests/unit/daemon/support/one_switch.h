// A fabric of one CA and one switch with the tables routing it, shared by
// the LFT and PortInfo programmer tests.
#pragma once

#include "daemon/core/fabric_state.h"
#include "mad/switch_info.h"
#include "routing/tables.h"

namespace ibsm::test {

// A fabric of one CA (the SM) and one 4-port switch, and tables routing
// LIDs 1..130 (three blocks) out of ports 1..4.
struct OneSwitch {
    daemon::DiscoveryResult found;
    routing::RoutingTables tables;
    topology::NodeId sw;

    explicit OneSwitch(std::uint16_t discovered_top)
    {
        auto& f = found.fabric;
        auto ca = f.add_node(topology::NodeType::ca, Guid(0x100), 1);
        sw = f.add_node(topology::NodeType::switch_node, Guid(0x200), 4);
        f.connect({ca, PortNum(1)}, {sw, PortNum(1)});
        found.paths = {DrPath{}, DrPath{}.extended(PortNum(1))};
        found.sm_port = {ca, PortNum(1)};
        mad::SwitchInfo si;
        si.linear_fdb_cap = 49152;
        si.linear_fdb_top = discovered_top;
        found.switch_info[sw] = si;
        routing::Lft lft;
        lft.port.assign(131, routing::no_route);
        for (std::size_t lid = 1; lid <= 130; ++lid) lft.port[lid] = static_cast<std::uint8_t>(1 + lid % 4);
        tables.lfts[sw] = lft;
        tables.linear_fdb_top = Lid(130);
        tables.engine = "test";
    }
};

} // namespace ibsm::test
