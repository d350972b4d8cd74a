// The what-if core on generated fat-trees: what a spine, a leaf or a link
// taken away does, and which links a drain takes out.
#include "whatif/lft_diff.h"
#include "whatif/reduce.h"
#include "whatif/targets.h"
#include "whatif/whatif.h"

#include "config/config.h"
#include "lidassign/base_lids.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace ibsm;
using namespace ibsm::whatif;
using topology::NodeId;
using topology::PortRef;

namespace {

NodeId named(const topology::Fabric& f, const std::string& name)
{
    for (auto id : f.node_ids())
        if (f.node(id).description == name) return id;
    FAIL("no node " << name);
    return {};
}

struct Case {
    topology::Fabric fabric;
    lidassign::LidMap lids;
    NodeId sm;
    Setup setup;

    Input input() const { return Input{fabric, lids, sm, {}, nullptr}; }
};

// k-ary 2-tree: k leaves of k hosts under k cores; the SM on host-0000.
Case kary(unsigned k)
{
    Case c{topology::generate_pgft(topology::kary_ntree(k, 2)), {}, {}, {}};
    c.lids = lidassign::assign_base_lids(c.fabric, {}, {}).lids;
    c.sm = named(c.fabric, "host-0000");
    c.setup.chain.engines = config::RoutingConfig{}.engines; // ibsmd's default chain
    c.setup.route.sm_port_guid = c.fabric.node(c.sm).ports[1].guid;
    c.setup.analysis.ebb.bisections = 50;
    c.setup.analysis.run_shifts = false;
    return c;
}

std::vector<std::string> hosts_of(const topology::Fabric& f, NodeId leaf)
{
    std::vector<std::string> out;
    for (const auto& p : f.node(leaf).ports)
        if (p.remote && !f.node(p.remote->node).is_switch()) out.push_back(f.node(p.remote->node).description);
    std::sort(out.begin(), out.end());
    return out;
}

Reduction without(const topology::Fabric& f, const std::vector<std::string>& targets)
{
    Reduction r;
    for (const auto& t : targets) {
        auto res = resolve(f, parse_target(t));
        if (res.target.kind == TargetKind::link)
            r.links.insert(res.link_end);
        else
            r.removed.insert(res.node);
        r.labels.push_back(res.label);
    }
    return r;
}

} // namespace

TEST_CASE("a core switch taken away cuts nothing off and the routes move off it")
{
    auto c = kary(4);
    const auto r = evaluate(c.input(), without(c.fabric, {"switch:core-L2-0001"}), c.setup);
    CHECK(r.cut_off.empty());
    CHECK(r.unreachable_pairs == 0);
    CHECK(r.failure.empty());
    CHECK(r.after.gate_passed);
    CHECK(r.after.engine == "ftree");
    CHECK(r.before.gate_passed);
    // Routes that went over the core move: some blocks change, on the leaves.
    CHECK(r.lft_blocks_changed > 0);
    CHECK(r.switches_changed > 0);
    CHECK(r.after.max_load >= r.before.max_load);
    CHECK(r.after.ebb <= r.before.ebb + 1e-9);
    const auto j = to_json(r);
    for (const char* key : {"cut_off", "unreachable_pairs", "engine", "gate", "ebb_before", "ebb_after",
                            "lft_blocks_changed"})
        CHECK(j.contains(key));
}

TEST_CASE("a leaf taken away cuts off exactly its hosts")
{
    auto c = kary(4);
    const NodeId leaf = named(c.fabric, "leaf-L1-0002");
    auto expected = hosts_of(c.fabric, leaf);
    REQUIRE(expected.size() == 4);
    const auto r = evaluate(c.input(), without(c.fabric, {"switch:" + c.fabric.node(leaf).guid.str()}), c.setup);
    auto got = r.cut_off;
    std::sort(got.begin(), got.end());
    CHECK(got == expected);
    // 16 hosts, one LID each: the 4 cut off lose every pair with the 15 others.
    CHECK(r.unreachable_pairs == 4 * 15 + 12 * 4);
    CHECK(r.after.gate_passed); // the rest of the fabric routes cleanly
    CHECK(r.lft_blocks_changed > 0); // the lost hosts' LIDs are dropped everywhere
}

TEST_CASE("a host's only link taken away cuts off that host; a core link cuts off nothing")
{
    auto c = kary(4);
    const NodeId host = named(c.fabric, "host-0005");
    auto r = evaluate(c.input(), without(c.fabric, {"link:" + c.fabric.node(host).ports[1].guid.str() + "/1"}), c.setup);
    CHECK(r.cut_off == std::vector<std::string>{"host-0005"});
    const NodeId leaf = named(c.fabric, "leaf-L1-0000");
    const auto up = c.fabric.node(leaf).num_ports(); // the last port goes up to a core
    r = evaluate(c.input(), without(c.fabric, {"link:leaf-L1-0000/" + std::to_string(up)}), c.setup);
    CHECK(r.cut_off.empty());
    CHECK(r.unreachable_pairs == 0);
    CHECK(r.after.gate_passed);
}

TEST_CASE("a drained core keeps one link for its own LID and nothing routes through it")
{
    auto c = kary(4);
    const NodeId core = named(c.fabric, "core-L2-0003");
    const auto d = drain_links(c.fabric, c.sm, core, {});
    REQUIRE(d.kept);
    CHECK(d.isolated.size() == 3);
    // The kept link leads to the leaf the SM's host is on.
    CHECK(c.fabric.remote(*d.kept)->node == named(c.fabric, "leaf-L1-0000"));
    Reduction drain;
    drain.links.insert(d.isolated.begin(), d.isolated.end());
    drain.labels.push_back("drain core-L2-0003");
    const auto r = evaluate(c.input(), drain, c.setup);
    CHECK(r.cut_off.empty());
    CHECK(r.unreachable_pairs == 0);
    CHECK(r.failure.empty());
}

TEST_CASE("draining a leaf would cut off its hosts")
{
    auto c = kary(4);
    const NodeId leaf = named(c.fabric, "leaf-L1-0001");
    const auto d = drain_links(c.fabric, c.sm, leaf, {});
    REQUIRE(d.kept);
    Reduction drain;
    drain.links.insert(d.isolated.begin(), d.isolated.end());
    const auto lost = cut_off(reduce(c.fabric, drain), c.sm, {});
    std::vector<std::string> names;
    for (auto id : lost) names.push_back(c.fabric.node(id).description);
    std::sort(names.begin(), names.end());
    CHECK(names == hosts_of(c.fabric, leaf));
}

TEST_CASE("the same routing changes no LFT block")
{
    auto c = kary(3);
    const auto r = evaluate(c.input(), Reduction{}, c.setup);
    CHECK(r.lft_blocks_changed == 0);
    CHECK(r.cut_off.empty());
}

TEST_CASE("targets are parsed and resolved with clear errors")
{
    auto c = kary(2);
    CHECK(parse_target("switch:core-L2-0000") == Target{TargetKind::switch_node, "core-L2-0000"});
    CHECK(parse_target("link:0x10/3") == Target{TargetKind::link, "0x10/3"});
    CHECK_THROWS_WITH(parse_target("spine"), Catch::Contains("expected switch:NAME|GUID"));
    CHECK_THROWS_WITH(parse_target("rack:1"), Catch::Contains("expected switch, link or node"));
    CHECK_THROWS_WITH(resolve(c.fabric, parse_target("switch:host-0000")), Catch::Contains("is not a switch"));
    CHECK_THROWS_WITH(resolve(c.fabric, parse_target("node:nowhere")), Catch::Contains("no node named"));
    CHECK_THROWS_WITH(resolve(c.fabric, parse_target("link:leaf-L1-0000/9")), Catch::Contains("is not a port of"));
    CHECK_THROWS_WITH(resolve(c.fabric, parse_target("link:leaf-L1-0000")), Catch::Contains("expected GUID/PORT"));
    auto r = resolve(c.fabric, parse_target("link:leaf-L1-0000/1"));
    CHECK(r.label == "leaf-L1-0000/1 - host-0000/1");
    CHECK(resolve(c.fabric, parse_target("node:host-0001")).node == named(c.fabric, "host-0001"));
}
