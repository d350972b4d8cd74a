// Reverse hops to I/O nodes above the leaves (see reverse_hops.h).
#include "routing/fattree/reverse_hops.h"

#include "routing/guid_roles.h"

namespace ibsm::routing::fattree {

namespace {

std::string name_of(const topology::Fabric& f, topology::NodeId n)
{
    const auto& node = f.node(n);
    return node.description.empty() ? node.guid.str() : '"' + node.description + "\" (" + node.guid.str() + ")";
}

// Reverse hops of the route from switch `s` toward `lid`, which ends at
// switch `attach`; nullopt when it does not get there (the gate says so).
std::optional<unsigned> reverse_hops_from(const topology::Fabric& f, const FatTree& t, const RoutingTables& tables,
                                          std::uint32_t s, std::uint32_t attach, Lid lid)
{
    unsigned reverse = 0, pending = 0;
    for (std::size_t hop = 0; s != attach; ++hop) {
        if (hop > t.size()) return std::nullopt;
        const auto it = tables.lfts.find(t.switches[s]);
        if (it == tables.lfts.end()) return std::nullopt;
        const auto port = it->second.at(lid);
        const auto& node = f.node(t.switches[s]);
        if (port == no_route || port == 0 || port >= node.ports.size() || !node.ports[port].remote)
            return std::nullopt;
        const auto next = t.index_of_node[node.ports[port].remote->node.value];
        if (next == no_switch || !t.in_tree(next)) return std::nullopt;
        if (t.level[next] > t.level[s]) {
            reverse += pending;
            pending = 0;
        } else if (t.level[next] < t.level[s]) {
            ++pending;
        }
        s = next;
    }
    return reverse;
}

} // namespace

std::optional<std::string> reverse_hops_refusal(const topology::Fabric& f, const lidassign::LidMap& lids,
                                                const FatTree& t, const RoutingTables& tables,
                                                const Options& options)
{
    const GuidRoles roles(options);
    std::vector<std::uint32_t> sources;
    for (std::uint32_t s = 0; s < t.size(); ++s)
        if (t.in_tree(s) && (!t.ca_ports[s].empty() || !t.off_leaf_ca_ports[s].empty())) sources.push_back(s);
    std::uint64_t pairs = 0;
    std::string example;
    for (std::uint32_t a = 0; a < t.off_leaf_ca_ports.size(); ++a)
        for (auto port : t.off_leaf_ca_ports[a]) {
            const auto dest = *f.node(t.switches[a]).ports[port].remote;
            const auto range = lids.lids_of(dest);
            if (!range) continue;
            const bool io = roles.is_io(f.port(dest).guid);
            const unsigned allowed = io ? options.max_reverse_hops : 0;
            for (auto s : sources) {
                if (s == a) continue;
                std::optional<unsigned> worst;
                for (std::uint16_t o = 0; o < range->count(); ++o) {
                    const Lid lid(static_cast<std::uint16_t>(range->base.value() + o));
                    const auto hops = reverse_hops_from(f, t, tables, s, a, lid);
                    if (hops && *hops > allowed && (!worst || *hops > *worst)) worst = hops;
                }
                if (!worst) continue;
                pairs += t.ca_ports[s].size() + t.off_leaf_ca_ports[s].size();
                if (!example.empty()) continue;
                const auto& sw = f.node(t.switches[s]);
                const auto first = t.ca_ports[s].empty() ? t.off_leaf_ca_ports[s].front() : t.ca_ports[s].front();
                example = "CA " + name_of(f, sw.ports[first].remote->node) + " reaches " +
                          (io ? "I/O node " : "non-compute node ") + name_of(f, dest.node) + " port " +
                          std::to_string(dest.port.value()) + " (on switch " + name_of(f, t.switches[a]) +
                          ", level " + std::to_string(t.level[a]) + " of " + std::to_string(t.height) +
                          ") only by going down and up again: " + std::to_string(*worst) + " reverse hop(s), " +
                          (io ? "routing.max_reverse_hops allows " + std::to_string(allowed) +
                                    " (raise it to route these pairs with this engine)"
                              : "and only the I/O nodes of routing.io_guid_file may take any (list it there "
                                "and set routing.max_reverse_hops)");
            }
        }
    if (!pairs) return std::nullopt;
    return std::to_string(pairs) + " CA pair(s) need more reverse hops than allowed, e.g. " + example;
}

} // namespace ibsm::routing::fattree
