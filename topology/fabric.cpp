#include "topology/fabric.h"

#include <algorithm>
#include <stdexcept>

namespace ibsm::topology {

NodeId Fabric::add_node(NodeType type, Guid guid, std::uint8_t num_ports, std::string description)
{
    if (by_node_guid_.contains(guid) || (type == NodeType::switch_node && by_port_guid_.contains(guid)))
        throw std::invalid_argument("duplicate node GUID " + guid.str());
    NodeId id{static_cast<std::uint32_t>(nodes_.size())};
    Node n;
    n.type = type;
    n.guid = guid;
    n.system_guid = guid;
    n.description = std::move(description);
    n.ports.resize(static_cast<std::size_t>(num_ports) + 1);
    for (std::size_t i = 0; i < n.ports.size(); ++i) {
        n.ports[i].num = PortNum(static_cast<std::uint8_t>(i));
        if (type == NodeType::switch_node) n.ports[i].guid = guid;
    }
    if (type == NodeType::switch_node) {
        n.sw = SwitchData{};
        by_port_guid_.emplace(guid, PortRef{id, PortNum(0)});
    }
    nodes_.push_back(std::move(n));
    by_node_guid_.emplace(guid, id);
    return id;
}

void Fabric::set_port_guid(PortRef p, Guid guid)
{
    Port& port = this->port(p);
    if (port.guid == guid) return;
    if (node(p.node).is_switch())
        throw std::invalid_argument("switch ports carry the node GUID " + node(p.node).guid.str() + ", not " + guid.str());
    if (!guid.is_zero()) {
        auto it = by_port_guid_.find(guid);
        if (it != by_port_guid_.end() && it->second != p)
            throw std::invalid_argument("duplicate port GUID " + guid.str());
    }
    if (!port.guid.is_zero()) by_port_guid_.erase(port.guid);
    port.guid = guid;
    if (!guid.is_zero()) by_port_guid_[guid] = p;
}

void Fabric::connect(PortRef a, PortRef b)
{
    if (a == b) throw std::invalid_argument("cannot cable a port to itself");
    if (a.port.value() == 0 || b.port.value() == 0)
        throw std::invalid_argument("port 0 cannot be cabled");
    Port& pa = port(a);
    Port& pb = port(b);
    if (pa.remote && *pa.remote == b && pb.remote && *pb.remote == a) return;
    if (pa.remote || pb.remote)
        throw std::invalid_argument("port already cabled: " + node(pa.remote ? a.node : b.node).guid.str() +
                                    " port " + std::to_string((pa.remote ? a : b).port.value()));
    pa.remote = b;
    pb.remote = a;
    link_ends_ += 2;
}

void Fabric::disconnect(PortRef p)
{
    Port& pp = port(p);
    if (!pp.remote) return;
    port(*pp.remote).remote.reset();
    pp.remote.reset();
    link_ends_ -= 2;
}

std::optional<NodeId> Fabric::find_node(Guid node_guid) const
{
    auto it = by_node_guid_.find(node_guid);
    if (it == by_node_guid_.end()) return std::nullopt;
    return it->second;
}

std::optional<PortRef> Fabric::find_port(Guid port_guid) const
{
    auto it = by_port_guid_.find(port_guid);
    if (it == by_port_guid_.end()) return std::nullopt;
    return it->second;
}

std::vector<Link> Fabric::links() const
{
    std::vector<Link> out;
    out.reserve(link_count());
    for (std::uint32_t n = 0; n < nodes_.size(); ++n) {
        for (const Port& p : nodes_[n].ports) {
            if (!p.remote) continue;
            PortRef self{NodeId{n}, p.num};
            if (self < *p.remote) out.push_back(Link{self, *p.remote});
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::size_t Fabric::switch_count() const
{
    return static_cast<std::size_t>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.is_switch(); }));
}

std::size_t Fabric::ca_count() const
{
    return static_cast<std::size_t>(
        std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.type == NodeType::ca; }));
}

std::vector<NodeId> Fabric::node_ids() const
{
    std::vector<NodeId> ids(nodes_.size());
    for (std::uint32_t i = 0; i < ids.size(); ++i) ids[i] = NodeId{i};
    return ids;
}

const char* to_string(NodeType t)
{
    switch (t) {
    case NodeType::ca: return "CA";
    case NodeType::switch_node: return "Switch";
    case NodeType::router: return "Router";
    }
    return "?";
}

const char* to_string(PortState s)
{
    switch (s) {
    case PortState::unknown: return "Unknown";
    case PortState::down: return "Down";
    case PortState::init: return "Initialize";
    case PortState::armed: return "Armed";
    case PortState::active: return "Active";
    }
    return "?";
}

} // namespace ibsm::topology
