// The fat-tree levels layout: rows by level, hosts under their leaf, order
// from the barycentre sweeps, every node somewhere of its own.
#include "report/layout.h"
#include "report/levels_layout.h"
#include "tests/unit/report/fabric_model.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

using namespace ibsm;
using namespace ibsm::report;

namespace {

Model kary(unsigned k, unsigned n, bool fold = false)
{
    return test::model_of_fabric(topology::generate_pgft(topology::kary_ntree(k, n)), {.rank = true, .fold_hosts = fold});
}

Point at(const Layout& l, const Model& m, std::size_t i)
{
    return l.at.at(m.nodes[i].guid);
}

void require_inside_and_apart(const Layout& l, const Model& m)
{
    REQUIRE(l.at.size() == m.nodes.size());
    for (const Node& n : m.nodes) {
        REQUIRE(l.at.count(n.guid) == 1);
        const Point p = l.at.at(n.guid);
        REQUIRE(std::isfinite(p.x));
        REQUIRE(std::isfinite(p.y));
        REQUIRE(p.x > 0);
        REQUIRE(p.y > 0);
        REQUIRE(p.x < l.width);
        REQUIRE(p.y < l.height);
    }
    REQUIRE(l.node_spacing > 0);
    double closest = 1e300;
    for (std::size_t i = 0; i < m.nodes.size(); ++i)
        for (std::size_t j = i + 1; j < m.nodes.size(); ++j) {
            const Point a = at(l, m, i), b = at(l, m, j);
            closest = std::min(closest, std::hypot(a.x - b.x, a.y - b.y));
        }
    REQUIRE(closest >= l.node_spacing - 1e-9);
}

std::vector<std::size_t> neighbours(const Model& m, std::size_t n)
{
    std::vector<std::size_t> out;
    for (const Link& l : m.links) {
        if (l.a == n)
            out.push_back(l.b);
        if (l.b == n)
            out.push_back(l.a);
    }
    return out;
}

// `m` with its nodes reordered: new index i holds old node order[i].
Model permuted(const Model& m, const std::vector<std::size_t>& order)
{
    Model p = m;
    std::vector<std::size_t> new_index(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        p.nodes[i] = m.nodes[order[i]];
        new_index[order[i]] = i;
    }
    for (Link& l : p.links) {
        std::size_t a = new_index[l.a], b = new_index[l.b];
        if (a > b) {
            std::swap(a, b);
            for (Cable& c : l.cables)
                std::swap(c.port_a, c.port_b);
        }
        l.a = a;
        l.b = b;
    }
    return p;
}

} // namespace

TEST_CASE("levels: a 4-ary 3-tree is drawn tops above spines above leaves above hosts")
{
    const Model m = kary(4, 3);
    REQUIRE(m.height == 3);
    const Layout l = compute_layout(m);
    REQUIRE(l.method == "levels");
    require_inside_and_apart(l, m);

    // Every node of a level strictly above every node of the level below.
    auto rank = [&](const Node& n) { return n.kind == NodeKind::host ? 0u : n.level; };
    for (std::size_t i = 0; i < m.nodes.size(); ++i)
        for (std::size_t j = 0; j < m.nodes.size(); ++j)
            if (rank(m.nodes[i]) > rank(m.nodes[j]))
                REQUIRE(at(l, m, i).y < at(l, m, j).y);

    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        const auto nb = neighbours(m, i);
        if (m.nodes[i].kind == NodeKind::host) {
            // Under its own leaf: nearer to it in x than to any other leaf.
            REQUIRE(nb.size() == 1);
            const double own = std::abs(at(l, m, i).x - at(l, m, nb[0]).x);
            for (std::size_t s = 0; s < m.nodes.size(); ++s)
                if (s != nb[0] && m.nodes[s].level == 1)
                    REQUIRE(own < std::abs(at(l, m, i).x - at(l, m, s).x));
        } else if (m.nodes[i].level == 2) {
            // A spine sits over the span of the leaves it serves (its pod).
            double lo = 1e300, hi = -1e300;
            for (std::size_t d : nb)
                if (m.nodes[d].level == 1) {
                    lo = std::min(lo, at(l, m, d).x);
                    hi = std::max(hi, at(l, m, d).x);
                }
            REQUIRE(at(l, m, i).x >= lo - 1e-9);
            REQUIRE(at(l, m, i).x <= hi + 1e-9);
        }
    }
}

TEST_CASE("levels: the sweeps put the leaves of one pod side by side whatever the node order")
{
    const Model tree = kary(4, 3);
    // Deal the leaves out of pod order (0, 5, 10, 15, 4, 9, ...), as a
    // discovery walking the tree from the tops may number them.
    std::vector<std::size_t> leaves, order;
    for (std::size_t i = 0; i < tree.nodes.size(); ++i)
        if (tree.nodes[i].level == 1)
            leaves.push_back(i);
    REQUIRE(leaves.size() == 16);
    for (std::size_t i = 0; i < tree.nodes.size(); ++i)
        order.push_back(i);
    for (std::size_t k = 0; k < leaves.size(); ++k)
        order[leaves[k]] = leaves[(k * 5) % leaves.size()];
    const Model m = permuted(tree, order);

    const Layout l = compute_layout(m);
    require_inside_and_apart(l, m);
    // A pod: the leaves below the same spines.
    std::vector<std::pair<double, std::set<std::size_t>>> row;
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        if (m.nodes[i].level != 1)
            continue;
        std::set<std::size_t> spines;
        for (std::size_t s : neighbours(m, i))
            if (m.nodes[s].level == 2)
                spines.insert(s);
        row.emplace_back(at(l, m, i).x, spines);
    }
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t changes = 0;
    for (std::size_t i = 1; i < row.size(); ++i)
        changes += row[i].second != row[i - 1].second;
    REQUIRE(changes == 3); // 4 pods of 4 leaves, each pod contiguous
}

TEST_CASE("levels: folded hosts leave only switches, spaced by the switch pitch")
{
    const Model m = kary(4, 3, true);
    REQUIRE(m.hosts_folded);
    REQUIRE(m.nodes.size() == 48);
    const Layout l = compute_layout(m);
    REQUIRE(l.method == "levels");
    require_inside_and_apart(l, m);
    REQUIRE(l.node_spacing >= level_min_switch_pitch);
}

TEST_CASE("levels: switches outside the tree and unattached hosts get a row of their own")
{
    Model m = kary(2, 2);
    Node lost;
    lost.name = "lost-switch";
    lost.guid = Guid{0xdead0001};
    lost.kind = NodeKind::switch_node;
    lost.level = 0;
    Node lonely;
    lonely.name = "lonely-host";
    lonely.guid = Guid{0xdead0002};
    lonely.kind = NodeKind::host;
    m.nodes.push_back(lost);
    m.nodes.push_back(lonely);
    Link cable;
    cable.a = 0;
    cable.b = m.nodes.size() - 2;
    cable.cables.push_back({9, 1, 0, 0});
    m.links.push_back(cable);

    const Layout l = compute_layout(m);
    require_inside_and_apart(l, m);
    const double lost_y = l.at.at(lost.guid).y;
    REQUIRE(l.at.at(lonely.guid).y == lost_y);
    for (std::size_t i = 0; i + 2 < m.nodes.size(); ++i)
        REQUIRE(at(l, m, i).y < lost_y);
}

TEST_CASE("levels: two models share one layout over the union of their nodes")
{
    const Model a = kary(4, 2);
    // The second routing's fabric lost a spine and gained an unranked switch.
    Model b = a;
    std::size_t spine = 0;
    while (b.nodes[spine].level != 2)
        ++spine;
    const Guid gone = b.nodes[spine].guid;
    b.nodes[spine].guid = Guid{0xbeef};
    b.nodes[spine].level = 0;

    const Layout l = compute_layout(a, b);
    REQUIRE(l.method == "levels");
    REQUIRE(l.at.size() == a.nodes.size() + 1);
    REQUIRE(l.at.count(gone) == 1);
    REQUIRE(l.at.count(Guid{0xbeef}) == 1);
    // The newcomer is not in the tree of the first model: the extra row.
    for (const auto& [guid, p] : l.at)
        if (guid != Guid{0xbeef})
            REQUIRE(p.y < l.at.at(Guid{0xbeef}).y);

    // Compared with an unranked copy of itself, a tree keeps its levels.
    Model flat = a;
    flat.height = 0;
    for (Node& n : flat.nodes)
        n.level = 0;
    const Layout both = compute_layout(flat, a);
    REQUIRE(both.method == "levels");
    REQUIRE(both.at.size() == a.nodes.size());
}

TEST_CASE("levels: refuses a model without levels")
{
    Model m = kary(2, 2);
    m.height = 0;
    REQUIRE_THROWS_AS(levels_layout(m), std::invalid_argument);
}
