// Compute-node order (see ca_order.h).
#include "routing/fattree/ca_order.h"

#include "routing/guid_roles.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace ibsm::routing::fattree {

namespace {

struct UnionFind {
    std::vector<std::uint32_t> parent;
    explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
    std::uint32_t find(std::uint32_t x)
    {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void unite(std::uint32_t a, std::uint32_t b) { parent[find(a)] = find(b); }
};

} // namespace

CaOrder compute_ca_order(const topology::Fabric& fabric, const FatTree& t, const Options& options)
{
    const GuidRoles roles(options);
    CaOrder order;
    const std::size_t S = t.size();
    const std::size_t L = t.leaves.size();
    auto guid_of = [&](std::uint32_t s) { return fabric.node(t.switches[s]).guid; };

    // keys[leaf position][i] = name of the leaf's level-(h-1-i) sub-tree.
    std::vector<std::vector<std::uint64_t>> keys(L);
    for (int l = t.height - 1; l >= 2; --l) {
        UnionFind uf(S);
        for (std::uint32_t s = 0; s < S; ++s)
            if (t.level[s] && t.level[s] <= l)
                for (const auto& d : t.down[s]) uf.unite(s, d.peer);
        // Horizontal links join leaves into one sub-tree only if nothing
        // above does: they are not part of the tuple structure.
        std::vector<std::uint64_t> name(S, ~0ull);
        for (auto leaf : t.leaves) {
            auto r = uf.find(leaf);
            name[r] = std::min(name[r], guid_of(leaf).value());
        }
        for (std::size_t i = 0; i < L; ++i) keys[i].push_back(name[uf.find(t.leaves[i])]);
    }
    std::vector<std::size_t> pos(L);
    std::iota(pos.begin(), pos.end(), 0);
    std::sort(pos.begin(), pos.end(), [&](std::size_t a, std::size_t b) {
        if (keys[a] != keys[b]) return keys[a] < keys[b];
        return guid_of(t.leaves[a]) < guid_of(t.leaves[b]);
    });
    for (auto p : pos) order.leaf_order.push_back(t.leaves[p]);
    // Per leaf, its compute nodes' ports (in port order) and the others.
    auto is_compute = [&](std::uint32_t leaf, std::uint8_t port) {
        const auto ca = *fabric.node(t.switches[leaf]).ports[port].remote;
        return roles.is_compute(fabric.port(ca).guid);
    };
    for (auto leaf : order.leaf_order) {
        std::uint32_t n = 0;
        for (auto port : t.ca_ports[leaf]) n += is_compute(leaf, port);
        order.slots_per_leaf = std::max(order.slots_per_leaf, n);
    }
    for (std::uint32_t i = 0; i < order.leaf_order.size(); ++i) {
        const auto leaf = order.leaf_order[i];
        const auto& node = fabric.node(t.switches[leaf]);
        std::uint32_t k = 0;
        for (auto port : t.ca_ports[leaf]) {
            CaSlot slot{*node.ports[port].remote, leaf, port, 0};
            if (is_compute(leaf, port)) {
                slot.index = i * order.slots_per_leaf + k++;
                order.cas.push_back(slot);
            } else {
                order.others.push_back(slot);
            }
        }
    }
    // Non-compute CA ports above the leaves (FatTree::off_leaf_ca_ports),
    // routed to from the switch they hang from.
    for (std::uint32_t s = 0; s < t.off_leaf_ca_ports.size(); ++s)
        for (auto port : t.off_leaf_ca_ports[s])
            order.others.push_back(CaSlot{*fabric.node(t.switches[s]).ports[port].remote, s, port, 0});
    auto guid = [&](const CaSlot& s) { return fabric.port(s.ca).guid; };
    std::sort(order.others.begin(), order.others.end(), [&](const CaSlot& a, const CaSlot& b) {
        const bool ia = roles.is_io(guid(a)), ib = roles.is_io(guid(b));
        if (ia != ib) return ia;
        return guid(a) < guid(b);
    });
    for (std::size_t i = 0; i < order.others.size(); ++i)
        order.others[i].index = order.index_span() + static_cast<std::uint32_t>(i);
    return order;
}

void write_ca_order(std::ostream& out, const topology::Fabric& fabric, const lidassign::LidMap& lids,
                    const CaOrder& order)
{
    for (const auto& ca : order.cas) {
        auto l = lids.lids_of(ca.ca);
        if (!l) continue;
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%04x\t", l->base.value());
        out << buf << fabric.node(ca.ca.node).description << '\n';
    }
}

} // namespace ibsm::routing::fattree
