// The report's model (report/model.h) from generated fabrics routed by the
// engines and scored by the analyzer: one link per node pair with a cable per
// fabric cable, loads and names as the analysis reports them, hosts folded,
// fat-tree levels, and the credit-loop cycle marked.
#include "report/model.h"

#include "routing/analysis/analyze.h"
#include "tests/unit/report/routed_fabric.h"
#include "topology/gen_degrade.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <stdexcept>

using namespace ibsm;
using namespace ibsm::report;
using routing::analysis::Report;
using topology::Fabric;

namespace {

struct Scored {
    Fabric fabric;
    routing::RoutingTables tables;
    Report report;
};

Scored score(const std::string& engine, Fabric f, bool keep = true)
{
    auto routed = test::route_fabric(engine, std::move(f));
    Scored s{std::move(routed.fabric), std::move(routed.tables), {}};
    routing::analysis::Options o;
    o.run_ebb = false;
    o.run_shifts = false;
    o.threads = 1;
    o.keep_link_loads = keep;
    s.report = routing::analysis::analyze(s.fabric, s.tables, o);
    return s;
}

// 16 hosts on 4 leaves, 2 spines, every leaf cabled twice to each spine.
Fabric parallel_tree()
{
    topology::PgftParams p;
    p.m = {4, 4};
    p.w = {1, 2};
    p.p = {1, 2};
    return topology::generate_pgft(p);
}

std::size_t cables(const Model& m)
{
    std::size_t n = 0;
    for (const Link& l : m.links) n += l.cables.size();
    return n;
}

// Links are ordered, a < b, and no pair of nodes has two.
void check_bundled(const Model& m)
{
    std::set<std::pair<std::size_t, std::size_t>> pairs;
    for (const Link& l : m.links) {
        CHECK(l.a < l.b);
        CHECK(l.b < m.nodes.size());
        CHECK_FALSE(l.cables.empty());
        CHECK(pairs.insert({l.a, l.b}).second);
        CHECK(l.switch_link == (m.nodes[l.a].kind == NodeKind::switch_node && m.nodes[l.b].kind == NodeKind::switch_node));
    }
}

// Every cable's loads are those of the analysis' channels, with the names the
// analysis prints (what the HTML joins on).
void check_loads(const Model& m, const Report& rep)
{
    std::map<std::pair<std::string, unsigned>, const routing::analysis::LinkLoad*> by_tail;
    for (const auto& l : rep.link_loads) {
        const auto at = m.find(l.link.from.guid);
        if (at >= 0) CHECK(m.nodes[static_cast<std::size_t>(at)].name == l.link.from.name);
        by_tail[{l.link.from.name, l.link.from.port}] = &l;
    }
    std::uint64_t max = 0;
    for (const Link& l : m.links) {
        for (const Cable& c : l.cables) {
            const auto* ab = by_tail.at({m.nodes[l.a].name, c.port_a});
            const auto* ba = by_tail.at({m.nodes[l.b].name, c.port_b});
            CHECK(ab->link.to.name == m.nodes[l.b].name);
            CHECK(ab->link.to.port == c.port_b);
            CHECK(c.load_ab == ab->load);
            CHECK(c.load_ba == ba->load);
            max = std::max({max, c.load_ab, c.load_ba});
        }
        CHECK(l.examples.size() <= 3);
        CHECK(l.examples.empty() == (l.max_load() == 0));
    }
    CHECK(m.max_load == max);
}

} // namespace

TEST_CASE("fat-tree with parallel cables: levels, one link per node pair, a cable per cable")
{
    const Scored s = score("ftree", parallel_tree());
    const Model m = build_model(s.fabric, s.report);
    CHECK_FALSE(m.hosts_folded);
    CHECK(m.height == 2);
    REQUIRE(m.nodes.size() == s.fabric.node_count());
    std::size_t switches = 0;
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        const Node& n = m.nodes[i];
        CHECK(n.folded_hosts == 0);
        CHECK(m.find(n.guid) == static_cast<std::int64_t>(i));
        if (n.kind == NodeKind::switch_node) {
            CHECK(i == switches++); // switches first
            CHECK((n.level == 1 || n.level == 2));
        } else {
            CHECK(n.level == 0);
        }
    }
    CHECK(switches == 6);
    CHECK(m.find(Guid(0xdeadbeef)) == -1);

    check_bundled(m);
    CHECK(cables(m) == s.fabric.link_count());
    // 16 host cables, 8 leaf-spine bundles of 2.
    std::size_t host_links = 0, bundles = 0;
    for (const Link& l : m.links) {
        if (l.switch_link) {
            ++bundles;
            CHECK(l.cables.size() == 2);
            CHECK(m.nodes[l.a].level != m.nodes[l.b].level);
        } else {
            ++host_links;
            CHECK(l.cables.size() == 1);
        }
        CHECK_FALSE(l.on_credit_loop);
    }
    CHECK(host_links == 16);
    CHECK(bundles == 8);
    check_loads(m, s.report);
    CHECK(m.max_load == s.report.efi_all.max);
    CHECK(m.max_load > 0);
}

TEST_CASE("hosts fold into their leaf switch from fold_hosts_from on")
{
    const Scored s = score("ftree", parallel_tree());
    ModelOptions o;
    o.fold_hosts_from = 16;
    o.examples_per_link = 2;
    const Model m = build_model(s.fabric, s.report, o);
    CHECK(m.hosts_folded);
    REQUIRE(m.nodes.size() == 6);
    std::size_t folded = 0;
    for (const Node& n : m.nodes) {
        CHECK(n.kind == NodeKind::switch_node);
        CHECK(n.folded_hosts == (n.level == 1 ? 4u : 0u));
        folded += n.folded_hosts;
    }
    CHECK(folded == 16);
    REQUIRE(m.links.size() == 8);
    for (const Link& l : m.links) {
        CHECK(l.switch_link);
        CHECK(l.examples.size() <= 2);
    }
    CHECK(cables(m) == 16);
    check_bundled(m);
    check_loads(m, s.report);
    CHECK(m.max_load == s.report.efi_switch_links.max);

    o.fold_hosts_from = 17;
    CHECK_FALSE(build_model(s.fabric, s.report, o).hosts_folded);
}

TEST_CASE("torus routed by minhop: not levelled, the credit-loop cycle marked on its links")
{
    const Scored s = score("minhop", topology::generate_torus({4, 4, 2, true}));
    REQUIRE(s.report.credit_all.has_loop());
    const Model m = build_model(s.fabric, s.report);
    CHECK(m.height == 0);
    for (const Node& n : m.nodes) CHECK(n.level == 0);
    check_bundled(m);
    check_loads(m, s.report);
    CHECK(cables(m) == s.fabric.link_count());

    // The links the printed cycles run over, by their end nodes.
    std::set<std::pair<std::int64_t, std::int64_t>> cycle;
    for (const auto* credit : {&s.report.credit_all, &s.report.credit_ca_only})
        for (const auto& vl : credit->vls)
            for (const auto& c : vl.cycle) {
                auto a = m.find(c.from.guid), b = m.find(c.to.guid);
                REQUIRE(a >= 0);
                REQUIRE(b >= 0);
                cycle.insert({std::min(a, b), std::max(a, b)});
            }
    REQUIRE(cycle.size() >= 3);
    std::size_t marked = 0;
    for (const Link& l : m.links) {
        const bool on = cycle.count({static_cast<std::int64_t>(l.a), static_cast<std::int64_t>(l.b)}) > 0;
        CHECK(l.on_credit_loop == on);
        if (l.on_credit_loop) {
            ++marked;
            CHECK(l.switch_link);
        }
    }
    CHECK(marked == cycle.size());
}

TEST_CASE("a degraded tree still levels and bundles what is left")
{
    topology::DegradeSpec spec;
    spec.links = 3;
    spec.seed = 2;
    const Fabric degraded = topology::degrade(parallel_tree(), spec).fabric;
    const Scored s = score("minhop", degraded);
    const Model m = build_model(s.fabric, s.report);
    CHECK(m.height == 2);
    check_bundled(m);
    check_loads(m, s.report);
    CHECK(cables(m) == s.fabric.link_count());
    CHECK(cables(m) == 32 - 3);
}

TEST_CASE("a report without link loads, or of another fabric, is refused")
{
    const Scored plain = score("minhop", parallel_tree(), false);
    CHECK(plain.report.link_loads.empty());
    CHECK_THROWS_AS(build_model(plain.fabric, plain.report), std::invalid_argument);

    const Scored torus = score("minhop", topology::generate_torus({3, 3, 1, true}));
    CHECK_THROWS_AS(build_model(plain.fabric, torus.report), std::invalid_argument);

    Report partial = score("minhop", parallel_tree()).report;
    partial.link_loads.pop_back();
    CHECK_THROWS_AS(build_model(plain.fabric, partial), std::invalid_argument);

    // No links at all: nothing to measure, nothing to refuse.
    Fabric lonely;
    lonely.add_node(topology::NodeType::switch_node, Guid(0x10), 4, "lonely");
    const Model m = build_model(lonely, Report{});
    REQUIRE(m.nodes.size() == 1);
    CHECK(m.nodes[0].name == "lonely");
    CHECK(m.links.empty());
    CHECK(m.max_load == 0);
}
