#include "topology/compare.h"

#include <map>
#include <set>
#include <tuple>

namespace ibsm::topology {
namespace {

using End = std::pair<std::uint64_t, unsigned>; // (node GUID, port)
using LinkKey = std::pair<End, End>;            // ordered ends

std::set<LinkKey> link_keys(const Fabric& f)
{
    std::set<LinkKey> out;
    for (const Link& l : f.links()) {
        End a{f.node(l.a.node).guid.value(), l.a.port.value()};
        End b{f.node(l.b.node).guid.value(), l.b.port.value()};
        if (b < a) std::swap(a, b);
        out.emplace(a, b);
    }
    return out;
}

std::string label(const Fabric& f, Guid g)
{
    auto id = f.find_node(g);
    if (!id || f.node(*id).description.empty()) return g.str();
    return g.str() + " (" + f.node(*id).description + ")";
}

std::string end_text(const Fabric& f, const End& e)
{
    return label(f, Guid(e.first)) + "[" + std::to_string(e.second) + "]";
}

} // namespace

FabricDiff compare(const Fabric& a, const Fabric& b, bool compare_descriptions)
{
    FabricDiff d;
    d.nodes_a = a.node_count();
    d.nodes_b = b.node_count();
    d.links_a = a.link_count();
    d.links_b = b.link_count();

    for (const Node& n : a.nodes()) {
        auto other = b.find_node(n.guid);
        if (!other) {
            d.differences.push_back("node " + label(a, n.guid) + ": only in A");
            continue;
        }
        const Node& m = b.node(*other);
        if (n.type != m.type)
            d.differences.push_back("node " + label(a, n.guid) + ": " + to_string(n.type) + " in A, " +
                                    to_string(m.type) + " in B");
        if (n.num_ports() != m.num_ports())
            d.differences.push_back("node " + label(a, n.guid) + ": " + std::to_string(n.num_ports()) + " ports in A, " +
                                    std::to_string(m.num_ports()) + " in B");
        if (compare_descriptions && n.description != m.description)
            d.differences.push_back("node " + n.guid.str() + ": description \"" + n.description + "\" in A, \"" +
                                    m.description + "\" in B");
    }
    for (const Node& m : b.nodes())
        if (!a.find_node(m.guid)) d.differences.push_back("node " + label(b, m.guid) + ": only in B");

    auto la = link_keys(a);
    auto lb = link_keys(b);
    for (const auto& k : la)
        if (!lb.contains(k))
            d.differences.push_back("link " + end_text(a, k.first) + " <-> " + end_text(a, k.second) + ": only in A");
    for (const auto& k : lb)
        if (!la.contains(k))
            d.differences.push_back("link " + end_text(b, k.first) + " <-> " + end_text(b, k.second) + ": only in B");
    return d;
}

} // namespace ibsm::topology
