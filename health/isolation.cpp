#include "health/isolation.h"

#include "topology/node_map_file.h"

#include <deque>

namespace ibsm::health {

namespace {

using topology::Fabric;
using topology::NodeId;
using topology::PortRef;

std::string node_text(const Fabric& f, NodeId n)
{
    const auto& node = f.node(n);
    const auto& shown = topology::display_name(node);
    return shown.empty() ? node.guid.str() : shown;
}

// The ends of every link `isolated` names, and of `extra`'s link.
std::set<PortRef> cut_ends(const Fabric& f, const std::set<PortId>& isolated, std::optional<PortRef> extra)
{
    std::set<PortRef> cut;
    auto add = [&](PortRef p) {
        cut.insert(p);
        if (auto r = f.remote(p)) cut.insert(*r);
    };
    for (const auto& id : isolated)
        if (auto p = find_port(f, id)) add(*p);
    if (extra) add(*extra);
    return cut;
}

// Nodes reached from `from` over links with no end in `cut`.
std::vector<bool> reached(const Fabric& f, NodeId from, const std::set<PortRef>& cut)
{
    std::vector<bool> seen(f.node_count(), false);
    std::deque<NodeId> queue{from};
    seen[from.value] = true;
    while (!queue.empty()) {
        const NodeId n = queue.front();
        queue.pop_front();
        const auto& node = f.node(n);
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            const PortRef here{n, PortNum(static_cast<std::uint8_t>(p))};
            auto r = node.ports[p].remote;
            if (!r || cut.count(here) || seen[r->node.value]) continue;
            seen[r->node.value] = true;
            queue.push_back(r->node);
        }
    }
    return seen;
}

} // namespace

std::string port_text(const Fabric& f, PortRef p) { return node_text(f, p.node) + "/" + std::to_string(p.port.value()); }

std::optional<PortRef> find_port(const Fabric& f, PortId id)
{
    auto n = f.find_node(id.node);
    if (!n || id.port.value() == 0 || id.port.value() > f.node(*n).num_ports()) return std::nullopt;
    return PortRef{*n, id.port};
}

PortId port_id(const Fabric& f, PortRef p) { return PortId{f.node(p.node).guid, p.port}; }

bool link_isolated(const Fabric& f, const std::set<PortId>& isolated, PortId id)
{
    if (isolated.count(id)) return true;
    auto p = find_port(f, id);
    if (!p) return false;
    auto r = f.remote(*p);
    return r && isolated.count(port_id(f, *r));
}

IsolationCheck check_isolation(const Fabric& f, PortRef sm_port, const std::set<PortId>& isolated, PortId candidate)
{
    auto p = find_port(f, candidate);
    if (!p) return {false, "no port " + std::to_string(candidate.port.value()) + " on node " + candidate.node.str()};
    auto r = f.remote(*p);
    if (!r) return {false, "isolating " + port_text(f, *p) + " - it has no link"};
    const std::string link = port_text(f, *p) + " - " + port_text(f, *r);
    for (auto end : {*p, *r}) {
        const auto& node = f.node(end.node);
        if (node.is_switch()) continue;
        unsigned links = 0;
        for (std::size_t i = 1; i < node.ports.size(); ++i) links += node.ports[i].remote.has_value();
        if (links <= 1)
            return {false, "isolating " + link + " would cut off " + node_text(f, end.node) + ": its only link"};
    }
    const auto before = reached(f, sm_port.node, cut_ends(f, isolated, std::nullopt));
    const auto after = reached(f, sm_port.node, cut_ends(f, isolated, *p));
    std::vector<std::string> lost;
    for (std::size_t n = 0; n < before.size(); ++n)
        if (before[n] && !after[n]) lost.push_back(node_text(f, NodeId{static_cast<std::uint32_t>(n)}));
    if (lost.empty()) return {true, {}};
    std::string names;
    for (std::size_t i = 0; i < lost.size() && i < 5; ++i) names += (i ? ", " : "") + lost[i];
    if (lost.size() > 5) names += ", ...";
    return {false, "isolating " + link + " would cut off " + std::to_string(lost.size()) + " node(s) from the SM (" +
                       names + ")" + (isolated.empty() ? "" : " on top of the links already isolated")};
}

Fabric without_isolated(Fabric f, const std::set<PortId>& isolated)
{
    for (const auto& id : isolated)
        if (auto p = find_port(f, id)) f.disconnect(*p);
    return f;
}

Decisions decide(const std::vector<Finding>& findings, const Fabric& f, PortRef sm_port,
                 const std::set<PortId>& isolated)
{
    Decisions out;
    out.isolated = isolated;
    for (const auto& fd : findings) {
        if (fd.action == Action::off) continue;
        if (link_isolated(f, out.isolated, fd.port)) {
            // Already out of the routing (or isolated through its other end
            // by an earlier finding): the port stays isolated.
            continue;
        }
        if (fd.action == Action::report) {
            out.decisions.push_back({fd.port, fd.rule, HealthState::reported, fd.reason});
            continue;
        }
        // A link that is down now has nothing to take out of the routing;
        // the finding is decided once it is back up (flapping: at the
        // relink), against the fabric it then belongs to.
        if (auto p = find_port(f, fd.port); !p || !f.remote(*p)) continue;
        auto check = check_isolation(f, sm_port, out.isolated, fd.port);
        if (check.allowed) {
            out.isolated.insert(fd.port);
            out.decisions.push_back({fd.port, fd.rule, HealthState::isolated, fd.reason});
        } else {
            out.decisions.push_back({fd.port, fd.rule, HealthState::isolation_refused,
                                     fd.reason + "; not isolated: " + check.reason});
        }
    }
    return out;
}

} // namespace ibsm::health
