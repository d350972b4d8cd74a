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

BudgetUse budget_use(const Fabric& f, const std::set<PortId>& isolated, const std::set<PortId>& exempt, double budget)
{
    BudgetUse u;
    for (const auto& l : f.links()) {
        if (!f.node(l.a.node).is_switch() || !f.node(l.b.node).is_switch()) continue;
        ++u.links;
        const PortId a = port_id(f, l.a), b = port_id(f, l.b);
        if ((isolated.count(a) && !exempt.count(a)) || (isolated.count(b) && !exempt.count(b))) ++u.isolated;
    }
    u.allowed = static_cast<std::size_t>(budget * static_cast<double>(u.links) + 1e-9);
    return u;
}

IsolationCheck check_no_discover(const Fabric& f, PortRef sm_port, const std::set<Guid>& no_discover, Guid node)
{
    auto n = f.find_node(node);
    if (!n) return {false, "node " + node.str() + " is not in the fabric"};
    if (*n == sm_port.node) return {false, "it is the SM's own node: discovery starts there"};
    if (!f.node(*n).is_switch()) return {true, {}};
    // Breadth-first from the SM's node, entering every node but leaving none
    // of the switches discovery does not go beyond.
    auto reach = [&](const std::set<Guid>& stop) {
        std::vector<bool> seen(f.node_count(), false);
        std::deque<NodeId> queue{sm_port.node};
        seen[sm_port.node.value] = true;
        while (!queue.empty()) {
            const NodeId at = queue.front();
            queue.pop_front();
            if (at != sm_port.node && stop.count(f.node(at).guid)) continue;
            for (const auto& port : f.node(at).ports)
                if (port.remote && !seen[port.remote->node.value]) {
                    seen[port.remote->node.value] = true;
                    queue.push_back(port.remote->node);
                }
        }
        return seen;
    };
    auto stop = no_discover;
    const auto before = reach(stop);
    stop.insert(node);
    const auto after = reach(stop);
    std::vector<std::string> lost;
    for (std::size_t i = 0; i < before.size(); ++i)
        if (before[i] && !after[i]) lost.push_back(node_text(f, NodeId{static_cast<std::uint32_t>(i)}));
    if (lost.empty()) return {true, {}};
    std::string names;
    for (std::size_t i = 0; i < lost.size() && i < 5; ++i) names += (i ? ", " : "") + lost[i];
    if (lost.size() > 5) names += ", ...";
    return {false, "discovery would no longer reach " + std::to_string(lost.size()) + " node(s) (" + names +
                       ") found only beyond " + node_text(f, *n)};
}

Decisions decide(const std::vector<Finding>& findings, const Fabric& f, PortRef sm_port,
                 const std::set<PortId>& isolated, const DecideOptions& options)
{
    Decisions out;
    out.isolated = isolated;
    out.no_discover = options.no_discover;
    // What a dry run would have done so far: later findings are decided
    // against it, so the log says what the real run would do in order.
    std::set<PortId> would = isolated;
    std::set<Guid> would_skip = options.no_discover;
    const bool dry = options.dry_run;

    auto isolate_one = [&](const Finding& fd, PortId port) {
        if (link_isolated(f, would, port)) return; // already out of the routing
        // A link that is down now has nothing to take out of the routing;
        // the finding is decided once it is back up (flapping: at the
        // relink), against the fabric it then belongs to.
        auto p = find_port(f, port);
        if (!p || !f.remote(*p)) return;
        const auto r = *f.remote(*p);
        if (f.node(p->node).is_switch() && f.node(r.node).is_switch()) {
            const auto use = budget_use(f, would, options.budget_exempt, options.budget);
            if (use.isolated + 1 > use.allowed) {
                const double pct = options.budget * 100;
                out.decisions.push_back(
                    {port, fd.rule, HealthState::reported,
                     fd.reason + "; reported only: the isolation budget is spent (" + std::to_string(use.isolated) +
                         " of " + std::to_string(use.links) + " switch-to-switch links isolated, at most " +
                         std::to_string(use.allowed) + " = " + std::to_string(static_cast<int>(pct + 0.5)) +
                         " %, health.isolation_budget_percent)",
                     Action::isolate, dry, true});
                return;
            }
        }
        auto check = check_isolation(f, sm_port, would, port);
        if (!check.allowed) {
            out.decisions.push_back({port, fd.rule, HealthState::isolation_refused,
                                     fd.reason + "; not isolated: " + check.reason, Action::isolate, dry, false});
            return;
        }
        would.insert(port);
        if (!dry) out.isolated.insert(port);
        out.decisions.push_back(
            {port, fd.rule, dry ? HealthState::reported : HealthState::isolated, fd.reason, Action::isolate, dry, false});
    };

    for (const auto& fd : findings) {
        if (fd.action == Action::off) continue;
        const bool whole_node = fd.port.port.value() == 0;
        if (fd.action == Action::report) {
            if (!whole_node && link_isolated(f, would, fd.port)) continue; // stays isolated
            out.decisions.push_back({fd.port, fd.rule, HealthState::reported, fd.reason});
            continue;
        }
        if (fd.action == Action::no_discover) {
            const Guid g = fd.port.node;
            if (would_skip.count(g)) continue; // already not swept past
            auto n = f.find_node(g);
            if (!n) continue; // decided when the node is back
            const PortId node_id{g, PortNum(0)};
            auto check = check_no_discover(f, sm_port, would_skip, g);
            if (!check.allowed) {
                out.decisions.push_back({node_id, fd.rule, HealthState::isolation_refused,
                                         fd.reason + "; still swept past: " + check.reason, Action::no_discover, dry,
                                         false});
                continue;
            }
            if (!f.node(*n).is_switch()) {
                out.decisions.push_back({node_id, fd.rule, HealthState::reported,
                                         fd.reason + "; no_discover: a CA, discovery never goes beyond one",
                                         Action::no_discover, dry, false});
                continue;
            }
            would_skip.insert(g);
            if (!dry) out.no_discover.insert(g);
            out.decisions.push_back({node_id, fd.rule, HealthState::reported, fd.reason, Action::no_discover, dry, false});
            continue;
        }
        if (!whole_node) {
            isolate_one(fd, fd.port);
            continue;
        }
        // A node's condition: every link of the node, in port order.
        auto n = f.find_node(fd.port.node);
        if (!n) continue; // decided when the node is back
        const auto& node = f.node(*n);
        for (std::size_t i = 1; i < node.ports.size(); ++i)
            if (node.ports[i].remote) isolate_one(fd, PortId{node.guid, PortNum(static_cast<std::uint8_t>(i))});
    }
    return out;
}

} // namespace ibsm::health
