#include "routing/analysis/network.h"

#include "topology/node_map_file.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace ibsm::routing::analysis {

using topology::Fabric;
using topology::Node;
using topology::NodeId;
using topology::PortRef;

bool natural_less(const std::string& a, const std::string& b)
{
    std::size_t i = 0, j = 0;
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && digit(a[ie])) ++ie;
            while (je < b.size() && digit(b[je])) ++je;
            // Compare by value: strip leading zeros, then length, then digits.
            std::size_t is = i, js = j;
            while (is + 1 < ie && a[is] == '0') ++is;
            while (js + 1 < je && b[js] == '0') ++js;
            if (ie - is != je - js) return ie - is < je - js;
            for (std::size_t k = 0; k < ie - is; ++k)
                if (a[is + k] != b[js + k]) return a[is + k] < b[js + k];
            if (ie - i != je - j) return ie - i < je - j; // "01" after "1"
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

std::vector<std::string> node_display_names(const Fabric& fabric)
{
    std::unordered_map<std::string, int> uses;
    // The node-name-map's name when there is one (topology::display_name).
    for (const Node& n : fabric.nodes()) ++uses[topology::display_name(n)];
    std::vector<std::string> names;
    names.reserve(fabric.node_count());
    for (const Node& n : fabric.nodes()) {
        const std::string& shown = topology::display_name(n);
        if (shown.empty())
            names.push_back(n.guid.str());
        else if (uses[shown] > 1)
            names.push_back(shown + " (" + n.guid.str() + ")");
        else
            names.push_back(shown);
    }
    return names;
}

namespace {

// The LIDs as the ports show them (see network.h).
std::vector<PortLids> lids_on_ports(const Fabric& fabric)
{
    std::vector<PortLids> out;
    for (NodeId id : fabric.node_ids()) {
        const Node& n = fabric.node(id);
        if (n.is_switch()) {
            const topology::Port* p0 = &n.ports[0];
            if (!p0->lid.valid_unicast()) {
                for (const auto& p : n.ports)
                    if (p.lid.valid_unicast()) {
                        p0 = &p;
                        break;
                    }
            }
            if (p0->lid.valid_unicast()) out.push_back(PortLids{PortRef{id, PortNum(0)}, p0->lid, p0->lmc});
            continue;
        }
        for (std::size_t pn = 1; pn < n.ports.size(); ++pn)
            if (n.ports[pn].lid.valid_unicast())
                out.push_back(PortLids{PortRef{id, PortNum(static_cast<std::uint8_t>(pn))}, n.ports[pn].lid, n.ports[pn].lmc});
    }
    return out;
}

} // namespace

Network::Network(const Fabric& fabric, const RoutingTables& tables)
    : fabric_(&fabric), switch_of_node_(fabric.node_count(), -1), node_names_(node_display_names(fabric))
{
    build(tables, lids_on_ports(fabric));
}

Network::Network(const Fabric& fabric, const RoutingTables& tables, std::vector<PortLids> lids)
    : fabric_(&fabric), switch_of_node_(fabric.node_count(), -1), node_names_(node_display_names(fabric))
{
    for (const PortLids& l : lids) {
        if (l.port.node.value >= fabric.node_count() || l.port.port.value() >= fabric.node(l.port.node).ports.size())
            throw std::invalid_argument("LID " + std::to_string(l.base.value()) + " is assigned to a port not in the fabric");
    }
    build(tables, std::move(lids));
}

void Network::build(const RoutingTables& tables, std::vector<PortLids> lids)
{
    const Fabric& fabric = *fabric_;
    for (NodeId id : fabric.node_ids()) {
        const Node& n = fabric.node(id);
        if (!n.is_switch()) continue;
        switch_of_node_[id.value] = static_cast<std::int32_t>(switches_.size());
        switches_.push_back(id);
        switch_nports_.push_back(n.num_ports());
        auto it = tables.lfts.find(id);
        lfts_.push_back(it == tables.lfts.end() ? nullptr : &it->second);
    }
    switch_endpoint_.assign(switches_.size(), -1);

    // Endpoints and the LID table.
    auto claim = [&](std::int32_t e) {
        const Endpoint& ep = endpoints_[static_cast<std::size_t>(e)];
        std::uint32_t first = ep.base.value();
        std::uint32_t count = 1u << ep.lmc;
        if (first == 0 || first + count - 1 > Lid::max_unicast || first % count != 0)
            throw std::invalid_argument("port " + port_label(ep.port) + ": LID " + std::to_string(first) +
                                        " with LMC " + std::to_string(ep.lmc) +
                                        " is not an aligned unicast LID block");
        if (lid_owner_.size() < first + count) lid_owner_.resize(first + count, -1);
        for (std::uint32_t l = first; l < first + count; ++l) {
            std::int32_t prev = lid_owner_[l];
            if (prev >= 0)
                throw std::invalid_argument("LID " + std::to_string(l) + " is claimed by both " +
                                            port_label(endpoints_[static_cast<std::size_t>(prev)].port) + " and " +
                                            port_label(ep.port));
            lid_owner_[l] = e;
        }
    };
    // Endpoints in node order, a switch's port 0 before a CA's ports.
    std::sort(lids.begin(), lids.end(), [](const PortLids& a, const PortLids& b) { return a.port < b.port; });
    std::size_t next = 0;
    for (NodeId id : fabric.node_ids()) {
        const Node& n = fabric.node(id);
        const std::size_t first = next;
        while (next < lids.size() && lids[next].port.node == id) ++next;
        if (n.is_switch()) {
            if (next == first) continue;
            const PortLids& l = lids[first];
            Endpoint ep;
            ep.port = PortRef{id, PortNum(0)};
            ep.is_switch = true;
            ep.base = l.base;
            ep.lmc = l.lmc;
            ep.attach_switch = switch_of_node_[id.value];
            ep.name = node_names_[id.value];
            endpoints_.push_back(std::move(ep));
            switch_endpoint_[static_cast<std::size_t>(switch_of_node_[id.value])] =
                static_cast<std::int32_t>(endpoints_.size() - 1);
            claim(static_cast<std::int32_t>(endpoints_.size() - 1));
        } else {
            const std::size_t lid_ports = next - first;
            for (std::size_t k = first; k < next; ++k) {
                const std::size_t pn = lids[k].port.port.value();
                if (pn == 0) continue; // a CA has no port 0
                const topology::Port& p = n.ports[pn];
                Endpoint ep;
                ep.port = lids[k].port;
                ep.base = lids[k].base;
                ep.lmc = lids[k].lmc;
                if (p.remote) ep.attach_switch = switch_of_node_[p.remote->node.value];
                ep.name = node_names_[id.value];
                if (lid_ports > 1) {
                    ep.name += '/';
                    ep.name += std::to_string(pn);
                }
                endpoints_.push_back(std::move(ep));
                claim(static_cast<std::int32_t>(endpoints_.size() - 1));
            }
        }
    }
    std::unordered_map<std::uint64_t, std::int32_t> endpoint_of_port; // key: node << 8 | port
    auto port_key = [](PortRef p) { return (std::uint64_t{p.node.value} << 8) | p.port.value(); };
    for (std::size_t e = 0; e < endpoints_.size(); ++e)
        endpoint_of_port.emplace(port_key(endpoints_[e].port), static_cast<std::int32_t>(e));

    // Channels: every cabled port is the tail of one.
    switch_port_offset_.resize(switches_.size());
    std::size_t total = 0;
    for (std::size_t s = 0; s < switches_.size(); ++s) {
        switch_port_offset_[s] = total;
        total += switch_nports_[s] + 1u;
    }
    switch_port_channel_.assign(total, -1);
    injection_.assign(endpoints_.size(), -1);
    for (NodeId id : fabric.node_ids()) {
        const Node& n = fabric.node(id);
        for (std::size_t pn = 1; pn < n.ports.size(); ++pn) {
            const topology::Port& p = n.ports[pn];
            if (!p.remote) continue;
            Channel c;
            c.tail = PortRef{id, PortNum(static_cast<std::uint8_t>(pn))};
            c.head = *p.remote;
            c.tail_switch = switch_of_node_[id.value];
            c.head_switch = switch_of_node_[c.head.node.value];
            if (c.head_switch < 0) {
                auto it = endpoint_of_port.find(port_key(c.head));
                if (it != endpoint_of_port.end()) c.head_endpoint = it->second;
            }
            auto ci = static_cast<std::int32_t>(channels_.size());
            if (c.tail_switch >= 0) {
                switch_port_channel_[switch_port_offset_[static_cast<std::size_t>(c.tail_switch)] + pn] = ci;
            } else {
                auto it = endpoint_of_port.find(port_key(c.tail));
                if (it != endpoint_of_port.end()) injection_[static_cast<std::size_t>(it->second)] = ci;
            }
            channels_.push_back(c);
        }
    }

    hops_.assign(total, Hop{});
    ends_.resize(channels_.size());
    for (std::size_t c = 0; c < channels_.size(); ++c) {
        const Channel& ch = channels_[c];
        ends_[c] = ChannelEnds{ch.head_switch, ch.head.port.value(), ch.tail.port.value()};
        if (ch.tail_switch < 0) continue;
        hops_[switch_port_offset_[static_cast<std::size_t>(ch.tail_switch)] + ch.tail.port.value()] =
            Hop{static_cast<std::int32_t>(c),
                ch.head_switch >= 0 ? ch.head_switch : ch.head_endpoint >= 0 ? -(ch.head_endpoint + 2) : -1};
    }
    lft_rows_.assign(switches_.size(), nullptr);
    lft_row_sizes_.assign(switches_.size(), 0);
    for (std::size_t s = 0; s < switches_.size(); ++s)
        if (lfts_[s] && !lfts_[s]->port.empty()) {
            lft_rows_[s] = lfts_[s]->port.data();
            lft_row_sizes_[s] = lfts_[s]->port.size();
        }

    for (std::size_t e = 0; e < endpoints_.size(); ++e)
        if (!endpoints_[e].is_switch) hosts_by_name_.push_back(static_cast<std::int32_t>(e));
    std::sort(hosts_by_name_.begin(), hosts_by_name_.end(), [&](std::int32_t a, std::int32_t b) {
        const Endpoint& ea = endpoints_[static_cast<std::size_t>(a)];
        const Endpoint& eb = endpoints_[static_cast<std::size_t>(b)];
        const Node& na = fabric.node(ea.port.node);
        const Node& nb = fabric.node(eb.port.node);
        if (na.description != nb.description) return natural_less(na.description, nb.description);
        if (na.guid != nb.guid) return na.guid < nb.guid;
        return ea.port.port < eb.port.port;
    });
}

std::string Network::port_label(PortRef p) const
{
    return node_names_[p.node.value] + "[" + std::to_string(p.port.value()) + "]";
}

} // namespace ibsm::routing::analysis
