// Small hand-built fabrics and forwarding tables for the analyzer tests.
#pragma once

#include "routing/tables.h"
#include "topology/fabric.h"

#include <string>

namespace ibsm::test {

struct HandFabric {
    topology::Fabric fabric;
    routing::RoutingTables tables;

    topology::NodeId sw(const std::string& name, std::uint64_t guid, std::uint8_t ports, std::uint16_t lid)
    {
        auto id = fabric.add_node(topology::NodeType::switch_node, Guid(guid), ports, name);
        fabric.port({id, PortNum(0)}).lid = Lid(lid);
        tables.lfts[id];
        route(id, lid, 0);
        return id;
    }
    // A one-port CA cabled to (sw, port); lid 0 leaves it without a LID.
    topology::NodeId host(const std::string& name, std::uint64_t guid, std::uint16_t lid, topology::NodeId at,
                          std::uint8_t port, std::uint8_t lmc = 0)
    {
        auto id = fabric.add_node(topology::NodeType::ca, Guid(guid), 1, name);
        fabric.set_port_guid({id, PortNum(1)}, Guid(guid + 1));
        fabric.port({id, PortNum(1)}).lid = Lid(lid);
        fabric.port({id, PortNum(1)}).lmc = lmc;
        fabric.connect({id, PortNum(1)}, {at, PortNum(port)});
        return id;
    }
    void link(topology::NodeId a, std::uint8_t pa, topology::NodeId b, std::uint8_t pb)
    {
        fabric.connect({a, PortNum(pa)}, {b, PortNum(pb)});
    }
    void route(topology::NodeId s, std::uint16_t lid, std::uint8_t port)
    {
        auto& v = tables.lfts[s].port;
        if (v.size() <= lid) v.resize(lid + 1u, routing::no_route);
        v[lid] = port;
        if (lid > tables.linear_fdb_top.value()) tables.linear_fdb_top = Lid(lid);
    }
};

} // namespace ibsm::test
