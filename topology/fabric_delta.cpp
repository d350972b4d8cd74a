// Fabric delta by identity (see header): both fabrics' links as sorted
// (PortKey, PortKey) lists, merged.
#include "topology/fabric_delta.h"

#include <algorithm>
#include <set>

namespace ibsm::topology {

namespace {

using LinkKey = std::pair<PortKey, PortKey>;

std::vector<LinkKey> link_keys(const Fabric& f)
{
    std::vector<LinkKey> out;
    out.reserve(f.link_count());
    for (const auto& node : f.nodes())
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            const auto& remote = node.ports[p].remote;
            if (!remote) continue;
            const PortKey a{node.guid, PortNum(static_cast<std::uint8_t>(p))};
            const PortKey b{f.node(remote->node).guid, remote->port};
            if (a < b) out.emplace_back(a, b);
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Guid> node_guids(const Fabric& f)
{
    std::vector<Guid> out;
    out.reserve(f.node_count());
    for (const auto& node : f.nodes()) out.push_back(node.guid);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

FabricDelta fabric_delta(const Fabric& before, const Fabric& after)
{
    FabricDelta d;
    const auto nb = node_guids(before), na = node_guids(after);
    std::set_difference(nb.begin(), nb.end(), na.begin(), na.end(), std::back_inserter(d.nodes_gone));
    std::set_difference(na.begin(), na.end(), nb.begin(), nb.end(), std::back_inserter(d.nodes_new));
    const auto lb = link_keys(before), la = link_keys(after);
    auto involves = [](const std::vector<Guid>& nodes, const LinkKey& l) {
        return std::binary_search(nodes.begin(), nodes.end(), l.first.node) ||
               std::binary_search(nodes.begin(), nodes.end(), l.second.node);
    };
    std::vector<LinkKey> down, up;
    std::set_difference(lb.begin(), lb.end(), la.begin(), la.end(), std::back_inserter(down));
    std::set_difference(la.begin(), la.end(), lb.begin(), lb.end(), std::back_inserter(up));
    for (auto& l : down)
        if (!involves(d.nodes_gone, l)) d.links_down.push_back(l);
    for (auto& l : up)
        if (!involves(d.nodes_new, l)) d.links_up.push_back(l);
    return d;
}

std::string FabricDelta::summary() const
{
    if (empty()) return "no change";
    std::string out;
    auto add = [&](std::size_t n, const char* what) {
        if (n == 0) return;
        if (!out.empty()) out += ", ";
        out += std::to_string(n) + what;
    };
    add(links_down.size(), " link(s) down");
    add(links_up.size(), " link(s) up");
    add(nodes_gone.size(), " node(s) gone");
    add(nodes_new.size(), " node(s) new");
    return out;
}

} // namespace ibsm::topology
