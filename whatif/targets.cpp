#include "whatif/targets.h"

#include "topology/node_map_file.h"

#include <charconv>

namespace ibsm::whatif {

namespace {

std::optional<std::uint64_t> hex_guid(std::string_view s)
{
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::vector<topology::NodeId> nodes_named(const topology::Fabric& f, std::string_view name)
{
    std::vector<topology::NodeId> out;
    if (auto g = hex_guid(name)) {
        if (auto id = f.find_node(Guid(*g))) return {*id};
        if (auto p = f.find_port(Guid(*g))) return {p->node};
        return out;
    }
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (n.name == name || n.description == name) out.push_back(id);
    }
    return out;
}

} // namespace

std::string_view kind_name(TargetKind k)
{
    switch (k) {
    case TargetKind::switch_node: return "switch";
    case TargetKind::link: return "link";
    case TargetKind::node: return "node";
    }
    return "?";
}

Target make_target(std::string_view kind, std::string_view name)
{
    Target t;
    if (kind == "switch")
        t.kind = TargetKind::switch_node;
    else if (kind == "link")
        t.kind = TargetKind::link;
    else if (kind == "node")
        t.kind = TargetKind::node;
    else
        throw std::invalid_argument("expected switch, link or node, got '" + std::string(kind.substr(0, 40)) + "'");
    if (name.empty()) throw std::invalid_argument(std::string(kind) + ": the name or GUID is missing");
    t.name = std::string(name);
    return t;
}

Target parse_target(std::string_view text)
{
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        throw std::invalid_argument("expected switch:NAME|GUID, link:GUID/PORT or node:NAME|GUID, got '" +
                                    std::string(text.substr(0, 60)) + "'");
    return make_target(text.substr(0, colon), text.substr(colon + 1));
}

std::string to_string(const Target& t) { return std::string(kind_name(t.kind)) + ":" + t.name; }

std::string node_label(const topology::Fabric& f, topology::NodeId n)
{
    const auto& name = topology::display_name(f.node(n));
    return name.empty() ? f.node(n).guid.str() : name;
}

std::string port_label(const topology::Fabric& f, topology::PortRef p)
{
    return node_label(f, p.node) + "/" + std::to_string(p.port.value());
}

Resolved resolve(const topology::Fabric& f, const Target& t)
{
    Resolved r{t, {}, {}, {}};
    const std::string what = to_string(t);
    if (t.kind == TargetKind::link) {
        const auto slash = t.name.rfind('/');
        if (slash == std::string::npos)
            throw std::invalid_argument(what + ": expected GUID/PORT (node GUID or a CA's port GUID, a port number)");
        const auto nodes = nodes_named(f, std::string_view(t.name).substr(0, slash));
        if (nodes.empty()) throw std::invalid_argument(what + ": no node " + t.name.substr(0, slash) + " in the fabric");
        if (nodes.size() > 1) throw std::invalid_argument(what + ": several nodes are named " + t.name.substr(0, slash));
        unsigned port = 0;
        const std::string_view num = std::string_view(t.name).substr(slash + 1);
        auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), port);
        if (ec != std::errc{} || end != num.data() + num.size() || port == 0 || port > f.node(nodes[0]).num_ports())
            throw std::invalid_argument(what + ": port '" + std::string(num) + "' is not a port of " +
                                        node_label(f, nodes[0]) + " (1.." +
                                        std::to_string(f.node(nodes[0]).num_ports()) + ")");
        r.node = nodes[0];
        r.link_end = topology::PortRef{nodes[0], PortNum(static_cast<std::uint8_t>(port))};
        auto far = f.remote(r.link_end);
        if (!far) throw std::invalid_argument(what + ": " + port_label(f, r.link_end) + " has no link");
        r.label = port_label(f, r.link_end) + " - " + port_label(f, *far);
        return r;
    }
    const auto nodes = nodes_named(f, t.name);
    if (nodes.empty()) throw std::invalid_argument(what + ": no node named or with GUID '" + t.name + "' in the fabric");
    if (nodes.size() > 1) {
        std::string list;
        for (auto n : nodes) list += (list.empty() ? "" : ", ") + f.node(n).guid.str();
        throw std::invalid_argument(what + ": " + std::to_string(nodes.size()) + " nodes have that name (" + list +
                                    "): name one by GUID");
    }
    r.node = nodes[0];
    if (t.kind == TargetKind::switch_node && !f.node(r.node).is_switch())
        throw std::invalid_argument(what + ": " + node_label(f, r.node) + " is not a switch (use node:)");
    r.label = node_label(f, r.node) + " (" + f.node(r.node).guid.str() + ")";
    return r;
}

} // namespace ibsm::whatif
