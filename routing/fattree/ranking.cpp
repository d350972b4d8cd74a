// Fat-tree recognition (see ranking.h for the why and the algorithm).
#include "routing/fattree/ranking.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>

namespace ibsm::routing::fattree {

using topology::Fabric;
using topology::NodeId;
using topology::PortRef;

bool fattree_link_usable(const Fabric& fabric, PortRef end)
{
    const auto& p = fabric.port(end);
    if (!p.remote) return false;
    const auto& q = fabric.port(*p.remote);
    auto ok = [](const topology::Port& x) { return x.known && x.state != topology::PortState::down; };
    return ok(p) && ok(q);
}

namespace {

std::string name_of(const Fabric& f, NodeId n)
{
    const auto& node = f.node(n);
    std::string s = node.is_switch() ? "switch " : "CA ";
    if (!node.description.empty()) s += '"' + node.description + "\" ";
    return s + "(" + node.guid.str() + ")";
}

struct Graph {
    std::vector<NodeId> switches;
    std::vector<std::uint32_t> index_of_node;
    std::vector<std::vector<SwitchLink>> links;     // switch neighbours, by port
    std::vector<std::vector<std::uint8_t>> ca_ports;
    // CA ports left out of the ranking (OpenSM's non-compute nodes, which
    // may hang at any level): they make no switch a leaf.
    std::vector<std::vector<std::uint8_t>> floating;
};

struct Evaluation {
    bool ok = false;
    std::string reason;
    std::vector<int> rank;
    int leaf_rank = 0;
    std::size_t empty_leaves = 0;
};

std::vector<int> bfs(const Graph& g, const std::vector<std::uint32_t>& sources)
{
    std::vector<int> dist(g.switches.size(), -1);
    std::deque<std::uint32_t> queue;
    for (auto s : sources) {
        if (dist[s] == 0) continue;
        dist[s] = 0;
        queue.push_back(s);
    }
    while (!queue.empty()) {
        auto s = queue.front();
        queue.pop_front();
        for (const auto& l : g.links[s])
            if (dist[l.peer] < 0) {
                dist[l.peer] = dist[s] + 1;
                queue.push_back(l.peer);
            }
    }
    return dist;
}

// `strict`: a switch is put back above the leaves (below) only when one of
// its leaves has CAs. Used for the connecting-distance candidates: otherwise
// roots one level too low (the core leaves above a single NEM group) would
// rank the core tops as CA-less leaves and put the host-less core leaves
// back on top of them.
Evaluation evaluate(const Fabric& f, const Graph& g, const std::vector<std::uint32_t>& roots, bool strict = false)
{
    Evaluation e;
    e.rank = bfs(g, roots);
    const std::size_t S = g.switches.size();
    auto has_cas = [&](std::uint32_t s) { return !g.ca_ports[s].empty(); };

    int leaf_rank = -1;
    for (std::uint32_t s = 0; s < S; ++s)
        if (has_cas(s) && e.rank[s] >= 0 && (leaf_rank < 0 || e.rank[s] < leaf_rank)) leaf_rank = e.rank[s];
    if (leaf_rank < 0) {
        e.reason = "not a fat-tree: no switch with CAs is connected to the root switches";
        return e;
    }
    // A leaf that lost all up links but hangs off another leaf by a
    // horizontal link is still a leaf (seed 000 Fig. 1 siblings).
    for (bool changed = true; changed;) {
        changed = false;
        for (std::uint32_t s = 0; s < S; ++s) {
            if (!has_cas(s) || e.rank[s] != leaf_rank + 1) continue;
            bool only_leaves = !g.links[s].empty();
            bool touches_leaf_rank = false;
            for (const auto& l : g.links[s]) {
                if (!has_cas(l.peer) || e.rank[l.peer] < leaf_rank) only_leaves = false;
                if (e.rank[l.peer] == leaf_rank) touches_leaf_rank = true;
            }
            if (only_leaves && touches_leaf_rank) {
                e.rank[s] = leaf_rank;
                changed = true;
            }
        }
    }
    // A switch above the leaves that lost every up link is only reached
    // through its leaves: put it back above them.
    if (leaf_rank >= 1)
        for (std::uint32_t s = 0; s < S; ++s) {
            if (has_cas(s) || e.rank[s] != leaf_rank + 1 || g.links[s].empty()) continue;
            bool only_leaves = true, below_cas = false;
            for (const auto& l : g.links[s]) {
                only_leaves &= e.rank[l.peer] == leaf_rank;
                below_cas |= has_cas(l.peer);
            }
            if (only_leaves && (below_cas || !strict)) e.rank[s] = leaf_rank - 1;
        }
    for (std::uint32_t s = 0; s < S; ++s) {
        if (e.rank[s] < 0) continue;
        if (has_cas(s) && e.rank[s] != leaf_rank) {
            std::uint32_t other = 0;
            while (!(has_cas(other) && e.rank[other] == leaf_rank)) ++other;
            e.reason = "not a fat-tree: CAs at different ranks: " + name_of(f, g.switches[s]) + " has CAs at rank " +
                       std::to_string(e.rank[s]) + " but " + name_of(f, g.switches[other]) + " at rank " +
                       std::to_string(leaf_rank);
            return e;
        }
    }
    for (std::uint32_t s = 0; s < S; ++s) {
        if (e.rank[s] < 0) continue;
        if (e.rank[s] > leaf_rank) {
            e.reason = "not a fat-tree: " + name_of(f, g.switches[s]) + " at rank " + std::to_string(e.rank[s]) +
                       " is below the leaf switches (rank " + std::to_string(leaf_rank) + ")";
            return e;
        }
        if (e.rank[s] == leaf_rank && !has_cas(s)) ++e.empty_leaves;
        for (const auto& l : g.links[s])
            if (e.rank[l.peer] == e.rank[s] && e.rank[s] != leaf_rank) {
                e.reason = "not a fat-tree: " + name_of(f, g.switches[s]) + " and " + name_of(f, g.switches[l.peer]) +
                           " are linked at the same rank " + std::to_string(e.rank[s]) +
                           " (only leaf switches may be linked horizontally)";
                return e;
            }
    }
    std::size_t in_tree = 0;
    for (std::uint32_t s = 0; s < S; ++s) in_tree += e.rank[s] >= 0;
    if (leaf_rank == 0 && in_tree > 1) {
        e.reason = "not a fat-tree: every switch has CAs and none is above the leaves (a ring, mesh or torus)";
        return e;
    }
    e.leaf_rank = leaf_rank;
    e.ok = true;
    return e;
}

// The smallest D such that the switches at distance <= D from the leaves
// (`dist`, from the upward BFS) already join every source (leaf) into one
// component: the lowest level at which all leaves meet. std::nullopt when
// the sources never meet (a disconnected fabric). Union-find over the
// switches in order of distance: O(links).
std::optional<int> connecting_distance(const Graph& g, const std::vector<int>& dist,
                                       const std::vector<std::uint32_t>& sources)
{
    const std::size_t S = g.switches.size();
    std::vector<std::uint32_t> parent(S);
    for (std::uint32_t s = 0; s < S; ++s) parent[s] = s;
    auto find = [&](std::uint32_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    std::vector<std::uint32_t> order;
    for (std::uint32_t s = 0; s < S; ++s)
        if (dist[s] >= 0) order.push_back(s);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return dist[a] < dist[b]; });
    std::size_t components = 0; // among the sources
    std::vector<bool> is_source(S, false);
    for (auto s : sources)
        if (!is_source[s]) {
            is_source[s] = true;
            ++components;
        }
    for (std::size_t i = 0; i < order.size();) {
        const int d = dist[order[i]];
        for (; i < order.size() && dist[order[i]] == d; ++i) {
            const auto s = order[i];
            for (const auto& l : g.links[s]) {
                if (dist[l.peer] < 0 || dist[l.peer] > d) continue;
                auto a = find(s), b = find(l.peer);
                if (a == b) continue;
                // Two source-holding components merge: one fewer.
                if (is_source[a] && is_source[b]) --components;
                if (is_source[b]) is_source[a] = true;
                parent[b] = a;
            }
        }
        if (components <= 1) return d;
    }
    return std::nullopt;
}

// The switches at distance d; with `joined`, only those in the component of
// the leaves within distance <= d (the others are not between leaves).
std::vector<std::uint32_t> roots_at(const Graph& g, const std::vector<int>& dist, int d, bool joined)
{
    const std::size_t S = g.switches.size();
    std::vector<std::uint32_t> roots;
    if (!joined) {
        for (std::uint32_t s = 0; s < S; ++s)
            if (dist[s] == d) roots.push_back(s);
        return roots;
    }
    std::vector<bool> seen(S, false);
    std::deque<std::uint32_t> queue;
    for (std::uint32_t s = 0; s < S; ++s)
        if (dist[s] == 0) {
            seen[s] = true;
            queue.push_back(s);
        }
    while (!queue.empty()) {
        auto s = queue.front();
        queue.pop_front();
        if (dist[s] == d) roots.push_back(s);
        for (const auto& l : g.links[s])
            if (!seen[l.peer] && dist[l.peer] >= 0 && dist[l.peer] <= d) {
                seen[l.peer] = true;
                queue.push_back(l.peer);
            }
    }
    std::sort(roots.begin(), roots.end());
    return roots;
}

// One tree, not several joined at the leaves (see ranking.h): every leaf
// with CAs that climbs to some top must climb to a top from which each other
// leaf with CAs, or one of its horizontal neighbours, can be reached going
// down. Top sets are bit rows filled from the top level down; O(leaves^2 x
// tops / 64).
std::optional<std::string> several_trees(const Fabric& f, const FatTree& t)
{
    const std::size_t S = t.size();
    std::vector<std::uint32_t> top_index(S, no_switch);
    std::uint32_t tops = 0;
    for (std::uint32_t s = 0; s < S; ++s)
        if (t.level[s] == t.height) top_index[s] = tops++;
    const std::size_t words = (tops + 63) / 64;
    std::vector<std::uint64_t> above(S * words, 0); // tops reachable going up only
    for (int l = t.height; l >= 1; --l)
        for (std::uint32_t s = 0; s < S; ++s) {
            if (t.level[s] != l) continue;
            auto* row = &above[s * words];
            if (top_index[s] != no_switch) row[top_index[s] / 64] |= 1ull << (top_index[s] % 64);
            for (const auto& u : t.up[s])
                for (std::size_t w = 0; w < words; ++w) row[w] |= above[u.peer * words + w];
        }
    auto empty = [&](const std::uint64_t* r) { return std::all_of(r, r + words, [](auto w) { return w == 0; }); };
    // Reached from a top: tops above the leaf or above one of its horizontal neighbours.
    std::vector<std::uint64_t> reached(S * words, 0);
    for (auto x : t.leaves) {
        auto* row = &reached[x * words];
        for (std::size_t w = 0; w < words; ++w) row[w] = above[x * words + w];
        for (const auto& sib : t.sibling[x])
            for (std::size_t w = 0; w < words; ++w) row[w] |= above[sib.peer * words + w];
    }
    for (auto x : t.leaves) {
        const auto* up = &above[x * words];
        if (empty(up)) continue; // a leaf that lost every up link routes through its neighbour
        for (auto a : t.leaves) {
            const auto* down = &reached[a * words];
            bool common = false;
            for (std::size_t w = 0; w < words && !common; ++w) common = (up[w] & down[w]) != 0;
            if (!common)
                return "not one fat-tree: no top switch above " + name_of(f, t.switches[x]) + " reaches " +
                       name_of(f, t.switches[a]) + " going down, so no up*/down* route joins them (several "
                       "trees joined by leaf-to-leaf cables are not one fat-tree)";
        }
    }
    return std::nullopt;
}

std::variant<FatTree, std::string> rank_graph(const Fabric& f, const std::vector<Guid>& root_guids,
                                              const std::function<bool(Guid)>* floats)
{
    Graph g;
    g.index_of_node.assign(f.node_count(), no_switch);
    for (auto id : f.node_ids())
        if (f.node(id).is_switch()) {
            g.index_of_node[id.value] = static_cast<std::uint32_t>(g.switches.size());
            g.switches.push_back(id);
        }
    const std::size_t S = g.switches.size();
    if (S == 0) return std::string("not a fat-tree: the fabric has no switches");
    g.links.resize(S);
    g.ca_ports.resize(S);
    g.floating.resize(S);

    for (auto id : f.node_ids()) {
        const auto& node = f.node(id);
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            const PortRef ref{id, PortNum(static_cast<std::uint8_t>(p))};
            if (!fattree_link_usable(f, ref)) continue;
            const PortRef peer = *node.ports[p].remote;
            const auto& pn = f.node(peer.node);
            if (!node.is_switch()) {
                if (!pn.is_switch())
                    return "not a fat-tree: CA-to-CA link between " + name_of(f, id) + " port " + std::to_string(p) +
                           " and " + name_of(f, peer.node) + " port " + std::to_string(peer.port.value());
                continue;
            }
            const auto s = g.index_of_node[id.value];
            if (pn.is_switch())
                g.links[s].push_back(SwitchLink{static_cast<std::uint8_t>(p), peer.port.value(),
                                                g.index_of_node[peer.node.value]});
            else if (floats && (*floats)(f.port(peer).guid))
                g.floating[s].push_back(static_cast<std::uint8_t>(p));
            else
                g.ca_ports[s].push_back(static_cast<std::uint8_t>(p));
        }
    }
    std::vector<std::uint32_t> leaves;
    for (std::uint32_t s = 0; s < S; ++s)
        if (!g.ca_ports[s].empty()) leaves.push_back(s);
    if (leaves.empty()) return std::string("not a fat-tree: no CA is cabled to a switch");

    Evaluation chosen;
    if (!root_guids.empty()) {
        std::vector<std::uint32_t> roots;
        for (auto guid : root_guids) {
            auto n = f.find_node(guid);
            if (!n || !f.node(*n).is_switch())
                return "configured fat-tree root " + guid.str() + " is not a switch in this fabric";
            roots.push_back(g.index_of_node[n->value]);
        }
        chosen = evaluate(f, g, roots);
        if (!chosen.ok) return chosen.reason + " (ranked from the configured roots)";
    } else {
        // A switch without CAs cabled like a leaf (its neighbours are a
        // subset of some leaf's neighbours) is an empty leaf: it starts the
        // upward BFS too, or it would look like a switch above the tops.
        // Each switch's neighbour set is sorted once and each candidate
        // leaf tried once per switch: rebuilt per (switch, neighbour,
        // candidate) this was 0.1 s at 27 648 hosts, on every re-route.
        auto sources = leaves;
        std::vector<std::vector<std::uint32_t>> neighbours(S);
        for (std::uint32_t s = 0; s < S; ++s) {
            auto& n = neighbours[s];
            for (const auto& l : g.links[s]) n.push_back(l.peer);
            std::sort(n.begin(), n.end());
            n.erase(std::unique(n.begin(), n.end()), n.end());
        }
        std::vector<std::uint32_t> tried(S, no_switch); // the switch a candidate leaf was last tried for
        for (std::uint32_t e = 0; e < S; ++e) {
            if (!g.ca_ports[e].empty() || g.links[e].empty()) continue;
            const auto& mine = neighbours[e];
            bool twin = false;
            for (auto n : mine) {
                for (auto cand : neighbours[n]) {
                    if (g.ca_ports[cand].empty() || tried[cand] == e) continue;
                    tried[cand] = e;
                    const auto& theirs = neighbours[cand];
                    if (theirs.size() >= mine.size() &&
                        std::includes(theirs.begin(), theirs.end(), mine.begin(), mine.end())) {
                        twin = true;
                        break;
                    }
                }
                if (twin) break;
            }
            if (twin) sources.push_back(e);
        }
        auto dist = bfs(g, sources);
        // Candidate root distances. When the leaves meet (connecting_distance
        // D exists): D, then each distance above it, the first that ranks
        // wins (host-less pods of a multi-core tree lie farther from every
        // host than the tops, so the farthest switches are not the roots
        // there; a middle switch that lost its down links is farther too).
        // Then, or when the leaves never meet, the old rule: the farthest
        // switches, or those one step nearer when they leave fewer CA-less
        // switches at the leaf rank, so every fabric that ranked before
        // still ranks.
        const int far = *std::max_element(dist.begin(), dist.end());
        const auto D = connecting_distance(g, dist, sources);
        std::optional<Evaluation> best, farthest;
        if (D)
            for (int d = *D; d <= far && !best; ++d) {
                auto e = evaluate(f, g, roots_at(g, dist, d, true), true);
                if (e.ok) best = std::move(e);
            }
        if (!best)
            for (int d = far; d >= std::max(0, far - 1); --d) { // exactly the old rule
                auto e = evaluate(f, g, roots_at(g, dist, d, false));
                if (e.ok && (!best || e.empty_leaves < best->empty_leaves)) best = std::move(e);
                else if (!e.ok && d == far) farthest = std::move(e);
            }
        // Refused by every candidate: the reason given for the farthest
        // switches, as before.
        if (!best) best = std::move(farthest);
        chosen = std::move(*best);
        if (!chosen.ok) return chosen.reason;
    }

    FatTree t;
    t.switches = g.switches;
    t.index_of_node = g.index_of_node;
    t.height = static_cast<std::uint8_t>(chosen.leaf_rank + 1);
    t.level.assign(S, 0);
    t.up.resize(S);
    t.down.resize(S);
    t.sibling.resize(S);
    t.ca_ports.resize(S);
    t.off_leaf_ca_ports.resize(S);
    for (std::uint32_t s = 0; s < S; ++s)
        if (chosen.rank[s] >= 0) t.level[s] = static_cast<std::uint8_t>(chosen.leaf_rank - chosen.rank[s] + 1);
    for (std::uint32_t s = 0; s < S; ++s) {
        if (!t.level[s]) continue;
        t.ca_ports[s] = g.ca_ports[s];
        // A floating CA port at the leaf level is an ordinary leaf CA.
        if (t.level[s] == 1) {
            t.ca_ports[s].insert(t.ca_ports[s].end(), g.floating[s].begin(), g.floating[s].end());
            std::sort(t.ca_ports[s].begin(), t.ca_ports[s].end());
        } else {
            t.off_leaf_ca_ports[s] = g.floating[s];
        }
        for (const auto& l : g.links[s]) {
            if (!t.level[l.peer]) continue;
            if (t.level[l.peer] == t.level[s] + 1) t.up[s].push_back(l);
            else if (t.level[l.peer] + 1 == t.level[s]) t.down[s].push_back(l);
            else t.sibling[s].push_back(l);
        }
        if (!t.ca_ports[s].empty()) t.leaves.push_back(s);
    }
    if (auto reason = several_trees(f, t)) return *reason + (root_guids.empty() ? "" : " (ranked from the configured roots)");
    return t;
}

} // namespace

std::variant<FatTree, std::string> rank_fat_tree(const Fabric& f, const std::vector<Guid>& root_guids,
                                                 const std::function<bool(Guid)>& floats)
{
    auto ranked = rank_graph(f, root_guids, nullptr);
    if (std::holds_alternative<FatTree>(ranked) || !floats) return ranked;
    // Refused with every CA port ranked: again with the floating ones set
    // aside, if there are any. A fabric that ranks as it is keeps its tree.
    bool any = false;
    for (auto id : f.node_ids()) {
        const auto& node = f.node(id);
        if (node.is_switch()) continue;
        for (std::size_t p = 1; p < node.ports.size() && !any; ++p)
            any = node.ports[p].remote && floats(node.ports[p].guid);
    }
    if (!any) return ranked;
    auto again = rank_graph(f, root_guids, &floats);
    if (std::holds_alternative<FatTree>(again)) return again;
    return ranked;
}

} // namespace ibsm::routing::fattree
