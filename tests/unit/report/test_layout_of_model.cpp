// compute_layout on models from report::build_model (routed, analysed
// fabrics), not hand-made ones: the layout takes the builder's levels, host
// nodes and folding as they come.
#include "report/layout.h"
#include "report/model.h"

#include "routing/analysis/analyze.h"
#include "tests/unit/report/routed_fabric.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ibsm;
using namespace ibsm::report;

namespace {

Model routed_model(const std::string& engine, topology::Fabric f, ModelOptions options = {})
{
    const auto routed = test::route_fabric(engine, std::move(f));
    routing::analysis::Options o;
    o.run_ebb = false;
    o.run_shifts = false;
    o.threads = 1;
    o.keep_link_loads = true;
    const auto report = routing::analysis::analyze(routed.fabric, routed.tables, o);
    return build_model(routed.fabric, report, options);
}

void require_every_node_placed(const Layout& l, const Model& m)
{
    REQUIRE(l.at.size() == m.nodes.size());
    for (const Node& n : m.nodes) {
        const Point p = l.at.at(n.guid);
        REQUIRE(std::isfinite(p.x));
        REQUIRE(std::isfinite(p.y));
        REQUIRE(p.x > 0);
        REQUIRE(p.y > 0);
        REQUIRE(p.x < l.width);
        REQUIRE(p.y < l.height);
    }
}

} // namespace

TEST_CASE("layout of built models: a routed fat-tree by level, with and without its hosts")
{
    const auto fabric = topology::generate_pgft(topology::kary_ntree(4, 2));
    const Model m = routed_model("sftree", fabric);
    REQUIRE(m.height == 2);
    const Layout l = compute_layout(m);
    REQUIRE(l.method == "levels");
    require_every_node_placed(l, m);

    const Model folded = routed_model("sftree", fabric, {.fold_hosts_from = 1});
    REQUIRE(folded.hosts_folded);
    const Layout lf = compute_layout(folded);
    REQUIRE(lf.method == "levels");
    require_every_node_placed(lf, folded);
    REQUIRE(lf.at.size() == 8);
}

TEST_CASE("layout of built models: a routed torus by neato, and the compare union of two routings")
{
    const auto fabric = topology::generate_torus({.x = 4, .y = 4, .hosts_per_switch = 1});
    const Model a = routed_model("minhop", fabric);
    const Model b = routed_model("updn", fabric);
    REQUIRE(a.height == 0);
    const Layout l = compute_layout(a);
    REQUIRE(l.method == "neato");
    require_every_node_placed(l, a);
    const Layout both = compute_layout(a, b);
    REQUIRE(both.at.size() == a.nodes.size());
    require_every_node_placed(both, b);
}
