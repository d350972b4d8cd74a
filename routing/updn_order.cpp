// Up*/Down* roots and orientation (see updn_order.h).
#include "routing/updn_order.h"

#include "routing/minhop.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>

namespace ibsm::routing::updn {

using topology::Fabric;
using topology::NodeId;
using topology::PortRef;

const char* to_string(RootRule r)
{
    switch (r) {
    case RootRule::configured: return "configured";
    case RootRule::tree_tops: return "tree tops";
    case RootRule::central: return "central switch";
    }
    return "?";
}

namespace {

constexpr std::uint32_t far = std::numeric_limits<std::uint32_t>::max();

// Switches in node order with their usable switch links.
struct Graph {
    std::vector<NodeId> switches;
    std::vector<Guid> guid;
    std::vector<std::vector<Link>> links; // neighbour = index in `switches`
    std::vector<std::uint32_t> ca_ports;
    std::vector<std::int64_t> index; // by NodeId
};

Graph build(const Fabric& fabric)
{
    Graph g;
    g.index.assign(fabric.node_count(), -1);
    for (auto id : fabric.node_ids())
        if (fabric.node(id).is_switch()) {
            g.index[id.value] = static_cast<std::int64_t>(g.switches.size());
            g.switches.push_back(id);
            g.guid.push_back(fabric.node(id).guid);
        }
    g.links.resize(g.switches.size());
    g.ca_ports.assign(g.switches.size(), 0);
    for (std::size_t s = 0; s < g.switches.size(); ++s) {
        const auto& node = fabric.node(g.switches[s]);
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            const PortRef ref{g.switches[s], PortNum(static_cast<std::uint8_t>(p))};
            if (!link_usable(fabric, ref)) continue;
            const PortRef peer = *node.ports[p].remote;
            if (fabric.node(peer.node).is_switch())
                g.links[s].push_back(Link{static_cast<std::uint32_t>(g.index[peer.node.value]), static_cast<std::uint8_t>(p)});
            else
                ++g.ca_ports[s];
        }
    }
    return g;
}

// BFS distances from `sources` (multi-source).
std::vector<std::uint32_t> bfs(const Graph& g, const std::vector<std::uint32_t>& sources)
{
    std::vector<std::uint32_t> dist(g.switches.size(), far);
    std::vector<std::uint32_t> queue;
    queue.reserve(g.switches.size());
    for (auto s : sources)
        if (dist[s] == far) {
            dist[s] = 0;
            queue.push_back(s);
        }
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const auto u = queue[head];
        for (const Link& l : g.links[u])
            if (dist[l.neighbour] == far) {
                dist[l.neighbour] = dist[u] + 1;
                queue.push_back(l.neighbour);
            }
    }
    return dist;
}

// Rule 2: the switches farthest from any switch with CAs, if every switch
// with CAs is exactly that far from them. Empty when the rule does not apply.
std::vector<std::uint32_t> tree_tops(const Graph& g)
{
    std::vector<std::uint32_t> leaves;
    for (std::uint32_t s = 0; s < g.switches.size(); ++s)
        if (g.ca_ports[s] > 0) leaves.push_back(s);
    if (leaves.empty() || leaves.size() == g.switches.size()) return {};
    const auto from_leaves = bfs(g, leaves);
    std::uint32_t h = 0;
    for (auto d : from_leaves)
        if (d != far) h = std::max(h, d);
    if (h == 0) return {};
    std::vector<std::uint32_t> tops;
    for (std::uint32_t s = 0; s < g.switches.size(); ++s)
        if (from_leaves[s] == h) tops.push_back(s);
    const auto from_tops = bfs(g, tops);
    for (auto l : leaves)
        if (from_tops[l] != h && from_tops[l] != far) return {};
    return tops;
}

// Rule 3: smallest (eccentricity, sum of distances, GUID) within its component.
std::uint32_t central(const Graph& g)
{
    std::tuple<std::uint32_t, std::uint64_t, Guid> best{far, 0, Guid()};
    std::uint32_t best_s = 0;
    for (std::uint32_t s = 0; s < g.switches.size(); ++s) {
        const auto dist = bfs(g, {s});
        std::uint32_t ecc = 0;
        std::uint64_t sum = 0;
        for (auto d : dist)
            if (d != far) {
                ecc = std::max(ecc, d);
                sum += d;
            }
        const std::tuple<std::uint32_t, std::uint64_t, Guid> key{ecc, sum, g.guid[s]};
        if (s == 0 || key < best) {
            best = key;
            best_s = s;
        }
    }
    return best_s;
}

} // namespace

std::variant<Orientation, std::string> orient(const Fabric& fabric, const std::vector<Guid>& root_guids)
{
    const Graph g = build(fabric);
    const std::size_t S = g.switches.size();
    Orientation o;
    o.place_of.assign(fabric.node_count(), -1);
    if (S == 0) {
        o.up_first.assign(1, 0);
        o.down_first.assign(1, 0);
        return o;
    }

    std::vector<std::uint32_t> roots;
    if (!root_guids.empty()) {
        o.rule = RootRule::configured;
        for (Guid guid : root_guids)
            if (auto id = fabric.find_node(guid); id && fabric.node(*id).is_switch())
                roots.push_back(static_cast<std::uint32_t>(g.index[id->value]));
        if (roots.empty())
            return "none of the " + std::to_string(root_guids.size()) + " configured root GUIDs is a switch of this fabric";
    } else if (roots = tree_tops(g); !roots.empty()) {
        o.rule = RootRule::tree_tops;
    } else {
        o.rule = RootRule::central;
        roots = {central(g)};
    }
    const auto rank = bfs(g, roots);

    // Best-first search by (rank, GUID); a restart per component.
    using Key = std::tuple<std::uint32_t, Guid, std::uint32_t>;
    auto key = [&](std::uint32_t s) { return Key{rank[s], g.guid[s], s}; };
    std::vector<std::uint32_t> sorted(S);
    for (std::uint32_t s = 0; s < S; ++s) sorted[s] = s;
    std::sort(sorted.begin(), sorted.end(), [&](auto a, auto b) { return key(a) < key(b); });
    std::vector<std::uint32_t> place(S, far);
    std::vector<std::uint32_t> order;
    order.reserve(S);
    std::priority_queue<Key, std::vector<Key>, std::greater<>> frontier;
    std::vector<bool> queued(S, false);
    for (std::uint32_t start : sorted) {
        if (queued[start]) continue;
        queued[start] = true;
        frontier.push(key(start));
        while (!frontier.empty()) {
            const std::uint32_t s = std::get<2>(frontier.top());
            frontier.pop();
            place[s] = static_cast<std::uint32_t>(order.size());
            order.push_back(s);
            for (const Link& l : g.links[s])
                if (!queued[l.neighbour]) {
                    queued[l.neighbour] = true;
                    frontier.push(key(l.neighbour));
                }
        }
    }

    o.switches.resize(S);
    o.rank.resize(S);
    o.ca_ports.resize(S);
    o.up_first.assign(S + 1, 0);
    o.down_first.assign(S + 1, 0);
    for (std::uint32_t i = 0; i < S; ++i) {
        const std::uint32_t s = order[i];
        o.switches[i] = g.switches[s];
        o.place_of[g.switches[s].value] = i;
        o.rank[i] = rank[s];
        o.ca_ports[i] = g.ca_ports[s];
        o.up_first[i] = static_cast<std::uint32_t>(o.up.size());
        o.down_first[i] = static_cast<std::uint32_t>(o.down.size());
        for (const Link& l : g.links[s]) { // by port already
            const Link mapped{place[l.neighbour], l.port};
            (mapped.neighbour < i ? o.up : o.down).push_back(mapped);
        }
    }
    o.up_first[S] = static_cast<std::uint32_t>(o.up.size());
    o.down_first[S] = static_cast<std::uint32_t>(o.down.size());
    // up and down were filled in place order, so each CSR row is contiguous.
    for (auto r : roots) o.roots.push_back(place[r]);
    std::sort(o.roots.begin(), o.roots.end());
    o.roots.erase(std::unique(o.roots.begin(), o.roots.end()), o.roots.end());
    return o;
}

} // namespace ibsm::routing::updn
