#include "mcast/tree.h"

#include "routing/minhop.h"

#include <algorithm>
#include <bit>
#include <deque>
#include <limits>
#include <tuple>

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

// The multicast-capable switches, numbered 0..S-1, and the usable links
// between them in CSR form (per switch in port order): the BFSs below run
// over this compact graph with reused buffers, not over every node.
struct SwitchLinks {
    std::vector<std::int32_t> index_of;  // NodeId value -> switch index, -1
    std::vector<NodeId> node;            // switch index -> NodeId
    std::vector<std::uint32_t> first;    // size S+1
    std::vector<std::uint32_t> from;     // the switch a link leaves
    std::vector<std::uint32_t> next;     // neighbour switch index
    std::vector<std::uint8_t> out_port;  // port on this switch
    std::vector<std::uint8_t> in_port;   // port on the neighbour
    std::size_t size() const { return node.size(); }
};

SwitchLinks switch_links(const Fabric& fabric, const TreeOptions& options)
{
    SwitchLinks g;
    g.index_of.assign(fabric.node_count(), -1);
    for (auto id : fabric.node_ids()) {
        if (!fabric.node(id).is_switch() || (options.capable && !options.capable(id))) continue;
        g.index_of[id.value] = static_cast<std::int32_t>(g.node.size());
        g.node.push_back(id);
    }
    g.first.push_back(0);
    for (NodeId id : g.node) {
        const auto& n = fabric.node(id);
        for (std::uint8_t p = 1; p <= n.num_ports(); ++p) {
            const PortRef end{id, PortNum(p)};
            if (!routing::link_usable(fabric, end)) continue;
            const PortRef far_end = *fabric.remote(end);
            const auto j = g.index_of[far_end.node.value];
            if (j < 0) continue; // a CA, or a switch without multicast
            g.from.push_back(static_cast<std::uint32_t>(g.first.size() - 1));
            g.next.push_back(static_cast<std::uint32_t>(j));
            g.out_port.push_back(p);
            g.in_port.push_back(far_end.port.value());
        }
        g.first.push_back(static_cast<std::uint32_t>(g.next.size()));
    }
    return g;
}

// BFS from `from` over `g`; dist and queue are the caller's buffers.
// `parent_link`: when given, the CSR link each switch was reached by.
void bfs(const SwitchLinks& g, std::uint32_t from, std::vector<std::uint32_t>& dist,
         std::vector<std::uint32_t>& queue, std::vector<std::uint32_t>* parent_link = nullptr)
{
    dist.assign(g.size(), far);
    if (parent_link) parent_link->assign(g.size(), far);
    queue.clear();
    queue.push_back(from);
    dist[from] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t s = queue[head];
        for (std::uint32_t l = g.first[s]; l < g.first[s + 1]; ++l) {
            const std::uint32_t t = g.next[l];
            if (dist[t] != far) continue;
            dist[t] = dist[s] + 1;
            if (parent_link) (*parent_link)[t] = l;
            queue.push_back(t);
        }
    }
}

} // namespace

Tree spanning_tree(const Fabric& fabric, std::span<const TreeMember> members, const TreeOptions& options)
{
    Tree tree;
    const SwitchLinks g = switch_links(fabric, options);
    // (1) where each member attaches.
    struct Attach {
        PortRef member;
        std::uint32_t sw; // switch index
        std::uint8_t port; // 0: the switch itself
        bool receives;
    };
    std::vector<Attach> attach;
    for (const auto& m : members) {
        const auto& node = fabric.node(m.port.node);
        if (node.is_switch()) {
            const auto i = g.index_of[m.port.node.value];
            if (i < 0) tree.unreachable.push_back(m.port);
            else attach.push_back({m.port, static_cast<std::uint32_t>(i), 0, m.receives});
            continue;
        }
        if (!routing::link_usable(fabric, m.port)) {
            tree.unreachable.push_back(m.port);
            continue;
        }
        const PortRef sw_end = *fabric.remote(m.port);
        const auto i = g.index_of[sw_end.node.value];
        if (i < 0) {
            tree.unreachable.push_back(m.port); // CA-to-CA cable or a switch without multicast
            continue;
        }
        attach.push_back({m.port, static_cast<std::uint32_t>(i), sw_end.port.value(), m.receives});
    }
    std::vector<std::uint32_t> member_switches;
    {
        std::vector<bool> seen(g.size(), false);
        for (const auto& a : attach)
            if (!seen[a.sw]) {
                seen[a.sw] = true;
                member_switches.push_back(a.sw);
            }
    }
    if (member_switches.empty()) return tree;

    // (2) the root: fewest hops to the farthest member switch.
    std::vector<std::uint32_t> farthest(g.size(), 0), reached(g.size(), 0), dist, queue;
    std::vector<std::uint64_t> total(g.size(), 0);
    for (std::uint32_t ms : member_switches) {
        bfs(g, ms, dist, queue);
        for (std::uint32_t s : queue) {
            ++reached[s];
            farthest[s] = std::max(farthest[s], dist[s]);
            total[s] += dist[s];
        }
    }
    // Candidates: switches reaching the most member switches (all of them
    // on a connected fabric), then the smallest (farthest, total).
    auto key = [&](std::uint32_t s) { return std::tuple(-static_cast<std::int64_t>(reached[s]), farthest[s], total[s]); };
    std::vector<std::uint32_t> best;
    for (std::uint32_t s = 0; s < g.size(); ++s) {
        if (reached[s] == 0) continue;
        if (best.empty() || key(s) < key(best.front())) best.assign(1, s);
        else if (key(s) == key(best.front())) best.push_back(s);
    }
    std::sort(best.begin(), best.end(),
              [&](std::uint32_t a, std::uint32_t b) { return fabric.node(g.node[a]).guid < fabric.node(g.node[b]).guid; });
    const std::uint32_t root = best[options.spread % best.size()];
    tree.root = g.node[root];

    // (3) the shortest-path tree from the root, pruned to member switches.
    std::vector<std::uint32_t> parent_link;
    bfs(g, root, dist, queue, &parent_link);
    std::vector<bool> on_tree(g.size(), false);
    on_tree[root] = true;
    std::vector<PortMask> masks(g.size());
    for (std::uint32_t ms : member_switches) {
        if (dist[ms] == far) continue;
        tree.depth = std::max<std::uint8_t>(tree.depth, static_cast<std::uint8_t>(std::min<std::uint32_t>(dist[ms], 255)));
        std::uint32_t s = ms;
        while (!on_tree[s]) {
            on_tree[s] = true;
            const std::uint32_t l = parent_link[s];
            // Link l leaves the parent through out_port[l] and arrives here on in_port[l].
            const std::uint32_t parent = g.from[l];
            masks[s].set(g.in_port[l]);
            masks[parent].set(g.out_port[l]);
            s = parent;
        }
    }
    // (4) the receiving members' own ports.
    for (const auto& a : attach) {
        if (dist[a.sw] == far) {
            tree.unreachable.push_back(a.member);
            continue;
        }
        if (a.receives) masks[a.sw].set(a.port);
    }
    for (std::uint32_t s = 0; s < g.size(); ++s)
        if (masks[s].any()) tree.masks[g.node[s]] = masks[s];
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
