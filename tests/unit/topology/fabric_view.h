// Test helper: a fabric described by GUIDs rather than NodeIds, so fabrics
// built in different node orders (reader vs generator, before vs after a
// round trip) can be compared with ==.
#pragma once

#include "topology/fabric.h"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace ibsm::topology::test {

struct PortView {
    std::uint64_t guid;
    std::uint16_t lid;
    unsigned lmc;
    unsigned width;
    unsigned speed;
    bool operator==(const PortView&) const = default;
};

struct NodeView {
    NodeType type;
    std::string description;
    unsigned num_ports;
    std::uint64_t system_guid;
    std::vector<PortView> ports; // index = port number
    bool operator==(const NodeView&) const = default;
};

using LinkView = std::tuple<std::uint64_t, unsigned, std::uint64_t, unsigned>;

inline std::map<std::uint64_t, NodeView> nodes_by_guid(const Fabric& f)
{
    std::map<std::uint64_t, NodeView> out;
    for (const Node& n : f.nodes()) {
        NodeView v{n.type, n.description, n.num_ports(), n.system_guid.value(), {}};
        for (const Port& p : n.ports)
            v.ports.push_back(PortView{p.guid.value(), p.lid.value(), p.lmc, p.link_width_active,
                                       static_cast<unsigned>(p.link_speed_active | (p.link_speed_ext_active << 8))});
        out.emplace(n.guid.value(), std::move(v));
    }
    return out;
}

// Each cable once, smaller (guid, port) end first.
inline std::set<LinkView> links_by_guid(const Fabric& f)
{
    std::set<LinkView> out;
    for (const Link& l : f.links()) {
        auto a = std::make_pair(f.node(l.a.node).guid.value(), static_cast<unsigned>(l.a.port.value()));
        auto b = std::make_pair(f.node(l.b.node).guid.value(), static_cast<unsigned>(l.b.port.value()));
        if (b < a) std::swap(a, b);
        out.emplace(a.first, a.second, b.first, b.second);
    }
    return out;
}

inline NodeId by_description(const Fabric& f, const std::string& desc)
{
    for (NodeId id : f.node_ids())
        if (f.node(id).description == desc) return id;
    throw std::runtime_error("no node described \"" + desc + "\"");
}

} // namespace ibsm::topology::test
