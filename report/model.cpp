#include "report/model.h"

#include "routing/analysis/network.h"
#include "routing/fattree/ranking.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <variant>

namespace ibsm::report {

namespace {

using routing::analysis::LinkLoad;
using routing::analysis::NamedLink;
using topology::PortRef;

constexpr std::int64_t none = -1;

// A directed channel by its tail port: node index << 8 | port.
std::uint64_t tail_key(topology::NodeId node, unsigned port) { return (std::uint64_t{node.value} << 8) | port; }

topology::NodeId node_of(const topology::Fabric& fabric, Guid guid)
{
    auto n = fabric.find_node(guid);
    if (!n) throw std::invalid_argument("report does not match the fabric: no node " + guid.str());
    return *n;
}

// Every channel of the report by its tail port, checked against the cables.
std::unordered_map<std::uint64_t, const LinkLoad*> loads_by_tail(const topology::Fabric& fabric,
                                                                 const routing::analysis::Report& report)
{
    std::unordered_map<std::uint64_t, const LinkLoad*> out;
    out.reserve(report.link_loads.size());
    for (const LinkLoad& l : report.link_loads) {
        const topology::NodeId from = node_of(fabric, l.link.from.guid);
        const topology::NodeId to = node_of(fabric, l.link.to.guid);
        const auto& node = fabric.node(from);
        if (l.link.from.port == 0 || l.link.from.port > node.num_ports())
            throw std::invalid_argument("report does not match the fabric: " + link_label(l.link));
        const auto remote = node.ports[l.link.from.port].remote;
        if (!remote || remote->node != to || remote->port.value() != l.link.to.port)
            throw std::invalid_argument("report does not match the fabric: " + link_label(l.link));
        out[tail_key(from, l.link.from.port)] = &l;
    }
    return out;
}

const LinkLoad& load_of(const std::unordered_map<std::uint64_t, const LinkLoad*>& loads,
                        const topology::Fabric& fabric, PortRef tail)
{
    auto it = loads.find(tail_key(tail.node, tail.port.value()));
    if (it == loads.end())
        throw std::invalid_argument("report has no load for the cable at " + fabric.node(tail.node).guid.str() + "[" +
                                    std::to_string(tail.port.value()) + "]");
    return *it->second;
}

// The bundle's examples: the hottest channels' first, no pair twice.
std::vector<Example> bundle_examples(std::vector<const LinkLoad*> channels, std::size_t limit)
{
    std::stable_sort(channels.begin(), channels.end(),
                     [](const LinkLoad* a, const LinkLoad* b) { return a->load > b->load; });
    std::vector<Example> out;
    for (const LinkLoad* c : channels)
        for (const auto& e : c->examples) {
            if (out.size() >= limit) return out;
            const bool seen = std::any_of(out.begin(), out.end(), [&](const Example& x) {
                return x.source == e.source && x.destination == e.destination;
            });
            if (!seen) out.push_back(Example{e.source, e.destination});
        }
    return out;
}

} // namespace

std::uint64_t Link::max_load() const
{
    std::uint64_t m = 0;
    for (const Cable& c : cables) m = std::max({m, c.load_ab, c.load_ba});
    return m;
}

std::int64_t Model::find(Guid guid) const
{
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].guid == guid) return static_cast<std::int64_t>(i);
    return none;
}

Model build_model(const topology::Fabric& fabric, const routing::analysis::Report& report, const ModelOptions& options)
{
    if (report.link_loads.empty() && fabric.link_count() > 0)
        throw std::invalid_argument("report has no link loads (analyze with Options::keep_link_loads)");
    const auto loads = loads_by_tail(fabric, report);
    const std::vector<std::string> names = routing::analysis::node_display_names(fabric);

    Model m;
    std::size_t hosts = 0;
    for (const auto& n : fabric.nodes())
        if (!n.is_switch()) ++hosts;
    m.hosts_folded = hosts >= options.fold_hosts_from;

    // Nodes: switches, then hosts unless folded.
    std::vector<std::int64_t> index(fabric.node_count(), none);
    const auto ranked = routing::fattree::rank_fat_tree(fabric, {});
    const auto* tree = std::get_if<routing::fattree::FatTree>(&ranked);
    if (tree) m.height = tree->height;
    for (bool switches : {true, false}) {
        if (!switches && m.hosts_folded) break;
        for (topology::NodeId id : fabric.node_ids()) {
            const auto& n = fabric.node(id);
            if (n.is_switch() != switches) continue;
            Node node;
            node.name = names[id.value];
            node.guid = n.guid;
            node.kind = switches ? NodeKind::switch_node : NodeKind::host;
            if (switches && tree) {
                const std::uint32_t s = tree->index_of_node[id.value];
                if (s != routing::fattree::no_switch) node.level = tree->level[s];
            }
            index[id.value] = static_cast<std::int64_t>(m.nodes.size());
            m.nodes.push_back(std::move(node));
        }
    }
    // A folded host is counted at the switch of its first cabled port.
    if (m.hosts_folded)
        for (topology::NodeId id : fabric.node_ids()) {
            const auto& n = fabric.node(id);
            if (n.is_switch()) continue;
            for (std::size_t p = 1; p < n.ports.size(); ++p) {
                const auto& r = n.ports[p].remote;
                if (!r || !fabric.node(r->node).is_switch()) continue;
                ++m.nodes[static_cast<std::size_t>(index[r->node.value])].folded_hosts;
                break;
            }
        }

    // Links: one per pair of drawn nodes, a cable per fabric cable.
    std::unordered_map<std::uint64_t, std::size_t> link_of_pair; // a << 32 | b
    std::unordered_map<std::uint64_t, std::size_t> link_of_tail; // tail_key -> link
    std::vector<std::vector<const LinkLoad*>> channels;
    for (const topology::Link& cable : fabric.links()) {
        std::int64_t a = index[cable.a.node.value], b = index[cable.b.node.value];
        if (a == none || b == none || a == b) continue;
        PortRef pa = cable.a, pb = cable.b;
        if (a > b) {
            std::swap(a, b);
            std::swap(pa, pb);
        }
        const LinkLoad& ab = load_of(loads, fabric, pa);
        const LinkLoad& ba = load_of(loads, fabric, pb);
        const std::uint64_t pair = (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint64_t>(b);
        auto [it, added] = link_of_pair.try_emplace(pair, m.links.size());
        if (added) {
            Link l;
            l.a = static_cast<std::size_t>(a);
            l.b = static_cast<std::size_t>(b);
            l.switch_link = fabric.node(pa.node).is_switch() && fabric.node(pb.node).is_switch();
            m.links.push_back(std::move(l));
            channels.emplace_back();
        }
        Link& l = m.links[it->second];
        l.cables.push_back(Cable{pa.port.value(), pb.port.value(), ab.load, ba.load});
        channels[it->second].push_back(&ab);
        channels[it->second].push_back(&ba);
        link_of_tail[tail_key(pa.node, pa.port.value())] = it->second;
        link_of_tail[tail_key(pb.node, pb.port.value())] = it->second;
    }
    for (std::size_t i = 0; i < m.links.size(); ++i) {
        Link& l = m.links[i];
        std::sort(l.cables.begin(), l.cables.end(),
                  [](const Cable& x, const Cable& y) { return std::pair(x.port_a, x.port_b) < std::pair(y.port_a, y.port_b); });
        l.examples = bundle_examples(std::move(channels[i]), options.examples_per_link);
        m.max_load = std::max(m.max_load, l.max_load());
    }

    // The printed credit-loop cycles, found by their channels' tail ports.
    for (const auto* credit : {&report.credit_all, &report.credit_ca_only})
        for (const auto& vl : credit->vls)
            for (const NamedLink& c : vl.cycle) {
                auto it = link_of_tail.find(tail_key(node_of(fabric, c.from.guid), c.from.port));
                if (it != link_of_tail.end()) m.links[it->second].on_credit_loop = true;
            }

    std::sort(m.links.begin(), m.links.end(),
              [](const Link& x, const Link& y) { return std::pair(x.a, x.b) < std::pair(y.a, y.b); });
    return m;
}

} // namespace ibsm::report
