#include "mcast/tree.h"

#include "routing/minhop.h"

#include <algorithm>
#include <bit>
#include <deque>
#include <limits>
#include <set>

namespace ibsm::mcast {

using topology::Fabric;
using topology::NodeId;
using topology::PortRef;

std::size_t PortMask::count() const
{
    std::size_t n = 0;
    for (auto b : bits) n += static_cast<std::size_t>(std::popcount(b));
    return n;
}

namespace {

constexpr std::uint32_t far = std::numeric_limits<std::uint32_t>::max();

struct Hop {
    std::uint8_t out; // port on this switch
    NodeId next;
    std::uint8_t in; // port on the next switch
};

// Switch-to-switch links that can carry traffic, per switch in port order.
std::vector<std::vector<Hop>> switch_links(const Fabric& fabric, const TreeOptions& options)
{
    std::vector<std::vector<Hop>> out(fabric.node_count());
    for (auto id : fabric.node_ids()) {
        const auto& n = fabric.node(id);
        if (!n.is_switch() || (options.capable && !options.capable(id))) continue;
        for (std::uint8_t p = 1; p <= n.num_ports(); ++p) {
            const PortRef end{id, PortNum(p)};
            if (!routing::link_usable(fabric, end)) continue;
            const PortRef far_end = *fabric.remote(end);
            if (!fabric.node(far_end.node).is_switch()) continue;
            if (options.capable && !options.capable(far_end.node)) continue;
            out[id.value].push_back(Hop{p, far_end.node, far_end.port.value()});
        }
    }
    return out;
}

struct Bfs {
    std::vector<std::uint32_t> dist;
    std::vector<std::optional<std::pair<NodeId, std::uint8_t>>> parent; // parent switch, port on it
    std::vector<std::uint8_t> up_port;                                   // port towards the parent
};

Bfs bfs(const std::vector<std::vector<Hop>>& links, NodeId from)
{
    Bfs b;
    b.dist.assign(links.size(), far);
    b.parent.resize(links.size());
    b.up_port.assign(links.size(), 0);
    std::deque<NodeId> queue{from};
    b.dist[from.value] = 0;
    while (!queue.empty()) {
        const NodeId s = queue.front();
        queue.pop_front();
        for (const auto& h : links[s.value]) {
            if (b.dist[h.next.value] != far) continue;
            b.dist[h.next.value] = b.dist[s.value] + 1;
            b.parent[h.next.value] = std::make_pair(s, h.out);
            b.up_port[h.next.value] = h.in;
            queue.push_back(h.next);
        }
    }
    return b;
}

} // namespace

Tree spanning_tree(const Fabric& fabric, std::span<const TreeMember> members, const TreeOptions& options)
{
    Tree tree;
    // (1) where each member attaches.
    struct Attach {
        PortRef member;
        NodeId sw;
        std::uint8_t port; // 0: the switch itself
        bool receives;
    };
    std::vector<Attach> attach;
    for (const auto& m : members) {
        const auto& node = fabric.node(m.port.node);
        if (node.is_switch()) {
            if (options.capable && !options.capable(m.port.node)) {
                tree.unreachable.push_back(m.port);
                continue;
            }
            attach.push_back({m.port, m.port.node, 0, m.receives});
            continue;
        }
        if (!routing::link_usable(fabric, m.port)) {
            tree.unreachable.push_back(m.port);
            continue;
        }
        const PortRef sw_end = *fabric.remote(m.port);
        if (!fabric.node(sw_end.node).is_switch() || (options.capable && !options.capable(sw_end.node))) {
            tree.unreachable.push_back(m.port); // CA-to-CA cable or a switch without multicast
            continue;
        }
        attach.push_back({m.port, sw_end.node, sw_end.port.value(), m.receives});
    }
    std::set<NodeId> member_switches;
    for (const auto& a : attach) member_switches.insert(a.sw);
    if (member_switches.empty()) return tree;

    // (2) the root: fewest hops to the farthest member switch.
    const auto links = switch_links(fabric, options);
    std::vector<std::uint32_t> farthest(fabric.node_count(), 0), total(fabric.node_count(), 0),
        reached(fabric.node_count(), 0);
    for (NodeId ms : member_switches) {
        const Bfs b = bfs(links, ms);
        for (std::size_t s = 0; s < b.dist.size(); ++s) {
            if (b.dist[s] == far) continue;
            ++reached[s];
            farthest[s] = std::max(farthest[s], b.dist[s]);
            total[s] += b.dist[s];
        }
    }
    // Candidates: switches reaching the most member switches (all of them
    // on a connected fabric), then the smallest (farthest, total).
    std::vector<NodeId> best;
    auto key = [&](NodeId s) { return std::tuple(-static_cast<std::int64_t>(reached[s.value]), farthest[s.value], total[s.value]); };
    for (auto id : fabric.node_ids()) {
        if (!fabric.node(id).is_switch() || reached[id.value] == 0) continue;
        if (best.empty() || key(id) < key(best.front())) {
            best.assign(1, id);
        } else if (key(id) == key(best.front())) {
            best.push_back(id);
        }
    }
    std::sort(best.begin(), best.end(),
              [&](NodeId a, NodeId b) { return fabric.node(a).guid < fabric.node(b).guid; });
    const NodeId root = best[options.spread % best.size()];
    tree.root = root;

    // (3) the shortest-path tree from the root, pruned to member switches.
    const Bfs from_root = bfs(links, root);
    std::vector<bool> on_tree(fabric.node_count(), false);
    on_tree[root.value] = true;
    for (NodeId ms : member_switches) {
        if (from_root.dist[ms.value] == far) continue;
        tree.depth = std::max<std::uint8_t>(tree.depth, static_cast<std::uint8_t>(std::min<std::uint32_t>(from_root.dist[ms.value], 255)));
        NodeId s = ms;
        while (!on_tree[s.value]) {
            on_tree[s.value] = true;
            const auto [parent, down] = *from_root.parent[s.value];
            tree.masks[s].set(from_root.up_port[s.value]);
            tree.masks[parent].set(down);
            s = parent;
        }
    }
    // (4) the receiving members' own ports.
    for (const auto& a : attach) {
        if (from_root.dist[a.sw.value] == far) {
            tree.unreachable.push_back(a.member);
            continue;
        }
        if (a.receives) tree.masks[a.sw].set(a.port);
    }
    std::erase_if(tree.masks, [](const auto& e) { return !e.second.any(); });
    return tree;
}

std::optional<std::vector<PortRef>> deliver(const Fabric& fabric, const std::map<NodeId, PortMask>& masks, PortRef from)
{
    std::vector<PortRef> reached;
    std::vector<bool> seen(fabric.node_count(), false);
    // (switch, input port); input 0 = from the switch itself.
    std::deque<std::pair<NodeId, std::uint8_t>> queue;
    if (fabric.node(from.node).is_switch()) {
        queue.emplace_back(from.node, 0);
    } else {
        if (!routing::link_usable(fabric, from)) return reached;
        const PortRef sw = *fabric.remote(from);
        if (!fabric.node(sw.node).is_switch()) return reached;
        queue.emplace_back(sw.node, sw.port.value());
    }
    while (!queue.empty()) {
        const auto [s, in] = queue.front();
        queue.pop_front();
        if (seen[s.value]) return std::nullopt;
        seen[s.value] = true;
        auto it = masks.find(s);
        if (it == masks.end()) continue;
        const auto& node = fabric.node(s);
        for (unsigned p = 0; p <= node.num_ports(); ++p) {
            if (!it->second.test(static_cast<std::uint8_t>(p)) || p == in) continue;
            if (p == 0) {
                if (PortRef{s, PortNum(0)} != from) reached.push_back(PortRef{s, PortNum(0)});
                continue;
            }
            const PortRef out{s, PortNum(static_cast<std::uint8_t>(p))};
            if (!routing::link_usable(fabric, out)) return std::nullopt;
            const PortRef next = *fabric.remote(out);
            if (fabric.node(next.node).is_switch()) {
                queue.emplace_back(next.node, next.port.value());
            } else if (next != from) {
                reached.push_back(next);
            }
        }
    }
    return reached;
}

} // namespace ibsm::mcast
