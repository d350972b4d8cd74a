// Analyzer on a 2-level tree: leaves L1, L2 with two hosts each, spines S1,
// S2, every leaf cabled once to every spine; forwarding tables by hand.
//
//   L1: h1 port 1, h2 port 2, S1 port 3, S2 port 4     LIDs L1=1 L2=2
//   L2: h3 port 1, h4 port 2, S1 port 3, S2 port 4          S1=3 S2=4
//   S1, S2: L1 port 1, L2 port 2                        h1..h4 = 5..8
//
// "d-mod-k": L1 sends h3 up to S1, h4 up to S2; L2 sends h1 to S1, h2 to S2.
//   Every shift (hosts h1,h2,h3,h4): no link carries two flows -> 1.0 each.
//   Edge-forwarding: 12 CA-to-CA routes; each switch link carries 2, each CA
//   cable 3 (P-1) -> max 3, switch-link max 2, means 2.5 and 2.
//
// "bad": L1 sends both h3 and h4 to S1, L2 both h1 and h2 to S1.
//   shift 1: h1->h2 local, h2->h3 (L1-S1-L2), h3->h4 local, h4->h1
//            (L2-S1-L1): every link one flow -> 1.0
//   shift 2: h1->h3 and h2->h4 share L1->S1 and S1->L2, h3->h1 and h4->h2
//            share L2->S1 and S1->L1 -> all four flows 1/2 -> 0.5
//   shift 3: h1->h4, h3->h2 cross on different links -> 1.0
//   average 5/6, minimum 0.5 at shift 2.
//   EBB (one-way pattern pi[0]->pi[1], pi[2]->pi[3] for a random
//   permutation pi): the pairing {h1h2, h3h4} (probability 1/3) is local ->
//   1.0; otherwise both pairs cross, and with probability 1/2 both senders sit
//   on the same leaf and share its uplink -> 0.5, else 1.0: expectation
//   1/3 + 2/3 * 3/4 = 5/6. Two-way pattern: crossing pairs always share ->
//   1/3 + 2/3 * 1/2 = 2/3.
//   Edge-forwarding: L1->S1 carries 4 routes (h1,h2 -> h3,h4), L1->S2 none,
//   likewise L2->S1 4, S1->L1 4, S1->L2 4, S2 links 0: switch-link max 4.
#include "routing/analysis/analyze.h"
#include "routing/analysis/congestion.h"
#include "routing/analysis/ebb.h"
#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"
#include "test_analysis_fabrics.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>

using namespace ibsm;
using namespace ibsm::routing::analysis;
using ibsm::test::HandFabric;

namespace {

struct Tree : HandFabric {
    topology::NodeId l1, l2, s1, s2, h1, h2, h3, h4;
    explicit Tree(bool dmodk)
    {
        l1 = sw("L1", 0x11, 4, 1);
        l2 = sw("L2", 0x12, 4, 2);
        s1 = sw("S1", 0x21, 2, 3);
        s2 = sw("S2", 0x22, 2, 4);
        link(l1, 3, s1, 1);
        link(l1, 4, s2, 1);
        link(l2, 3, s1, 2);
        link(l2, 4, s2, 2);
        h1 = host("h1", 0x100, 5, l1, 1);
        h2 = host("h2", 0x110, 6, l1, 2);
        h3 = host("h3", 0x120, 7, l2, 1);
        h4 = host("h4", 0x130, 8, l2, 2);
        // leaves
        route(l1, 5, 1);
        route(l1, 6, 2);
        route(l1, 7, 3);
        route(l1, 8, dmodk ? 4 : 3);
        route(l2, 7, 1);
        route(l2, 8, 2);
        route(l2, 5, 3);
        route(l2, 6, dmodk ? 4 : 3);
        route(l1, 2, 3);
        route(l1, 3, 3);
        route(l1, 4, 4);
        route(l2, 1, 3);
        route(l2, 3, 3);
        route(l2, 4, 4);
        // spines: down to the leaf; the other spine via L1
        for (auto s : {s1, s2}) {
            route(s, 1, 1);
            route(s, 2, 2);
            route(s, 5, 1);
            route(s, 6, 1);
            route(s, 7, 2);
            route(s, 8, 2);
        }
        route(s1, 4, 1);
        route(s2, 3, 1);
    }
};

Options with(unsigned bisections, std::uint32_t seed = 7)
{
    Options o;
    o.ebb.bisections = bisections;
    o.ebb.seed = seed;
    o.threads = 2;
    return o;
}

// Independent model of the "bad" tree: which leaf a host is on, and a
// crossing flow uses its sender's leaf uplink to S1 and S1's downlink.
double bad_tree_pattern_fraction(const std::vector<std::pair<int, int>>& flows)
{
    auto leaf = [](int h) { return h < 2 ? 0 : 1; };
    std::map<std::pair<int, int>, int> tau; // (leaf, up?) -> flows
    for (auto [s, d] : flows)
        if (leaf(s) != leaf(d)) {
            ++tau[{leaf(s), 1}];
            ++tau[{leaf(d), 0}];
        }
    double sum = 0;
    for (auto [s, d] : flows) {
        int worst = 1;
        if (leaf(s) != leaf(d)) worst = std::max(tau[{leaf(s), 1}], tau[{leaf(d), 0}]);
        sum += 1.0 / worst;
    }
    return sum / static_cast<double>(flows.size());
}

} // namespace

TEST_CASE("d-mod-k tree: every shift non-blocking, balanced edge loads")
{
    Tree t(true);
    Report rep = analyze(t.fabric, t.tables, with(200));
    REQUIRE(rep.shifts);
    CHECK(rep.shifts->hosts == 4);
    REQUIRE(rep.shifts->fraction.size() == 3);
    for (double f : rep.shifts->fraction) CHECK(f == Approx(1.0));
    CHECK(rep.shifts->average == Approx(1.0));
    CHECK(rep.shifts->minimum == Approx(1.0));
    REQUIRE(rep.ebb);
    CHECK(rep.ebb->ebb == Approx(1.0));
    CHECK(rep.ebb->min == Approx(1.0));

    CHECK(rep.efi_routes == 12);
    CHECK(rep.efi_all.max == 3);
    CHECK(rep.efi_all.mean == Approx(2.5));
    CHECK(rep.efi_switch_links.max == 2);
    CHECK(rep.efi_switch_links.mean == Approx(2.0));
    CHECK(rep.efi_switch_links.channels == 8);

    for (const ClassReport& c : rep.classes) {
        CHECK(c.unreachable == 0);
        CHECK(c.loops == 0);
    }
    // CA pairs: 4 local (2 links) + 8 across (4 links).
    CHECK(rep.of(PairClass::ca_to_ca).hops_mean == Approx((4 * 2 + 8 * 4) / 12.0));
    CHECK(rep.of(PairClass::ca_to_ca).stretch_max == Approx(1.0));
    CHECK_FALSE(rep.credit_all.has_loop());
    CHECK(rep.lids.lids == 8);
    CHECK(rep.lids.max_lid == 8);
}

TEST_CASE("unbalanced tree: shift and EBB values computed by hand")
{
    Tree t(false);
    Report rep = analyze(t.fabric, t.tables, with(20000));
    REQUIRE(rep.shifts);
    REQUIRE(rep.shifts->fraction.size() == 3);
    CHECK(rep.shifts->fraction[0] == Approx(1.0));
    CHECK(rep.shifts->fraction[1] == Approx(0.5));
    CHECK(rep.shifts->fraction[2] == Approx(1.0));
    CHECK(rep.shifts->average == Approx(5.0 / 6.0));
    CHECK(rep.shifts->minimum == Approx(0.5));
    CHECK(rep.shifts->worst_shift == 2);

    CHECK(rep.efi_switch_links.max == 4);
    CHECK(rep.efi_switch_links.mean == Approx(2.0));
    CHECK(rep.efi_all.max == 4);

    // Brute force over all 24 permutations gives the exact expectation.
    std::vector<int> perm{0, 1, 2, 3};
    double total_uni = 0, total_bi = 0;
    int count = 0;
    do {
        total_uni += bad_tree_pattern_fraction({{perm[0], perm[1]}, {perm[2], perm[3]}});
        total_bi += bad_tree_pattern_fraction(
            {{perm[0], perm[1]}, {perm[1], perm[0]}, {perm[2], perm[3]}, {perm[3], perm[2]}});
        ++count;
    } while (std::next_permutation(perm.begin(), perm.end()));
    CHECK(total_uni / count == Approx(5.0 / 6.0));
    CHECK(total_bi / count == Approx(2.0 / 3.0));

    // 20000 random patterns land close to it.
    REQUIRE(rep.ebb);
    CHECK(rep.ebb->ebb == Approx(5.0 / 6.0).margin(0.01));
    CHECK(rep.ebb->min == Approx(0.5));
    CHECK(rep.ebb->max == Approx(1.0));

    Options bi = with(20000);
    bi.ebb.bidirectional = true;
    Report rep2 = analyze(t.fabric, t.tables, bi);
    CHECK(rep2.ebb->ebb == Approx(2.0 / 3.0).margin(0.01));
    CHECK(rep2.ebb->flows_per_pattern == 4);
}

TEST_CASE("EBB with a fixed seed equals the mean over exactly those patterns")
{
    Tree t(false);
    const unsigned n = 37;
    const std::uint32_t seed = 12345;
    Report rep = analyze(t.fabric, t.tables, with(n, seed));

    // Replay the same generator and score each pattern with the independent
    // model above.
    Network net(t.fabric, t.tables);
    std::map<std::int32_t, int> index; // endpoint -> h1..h4 = 0..3
    for (std::size_t i = 0; i < net.hosts_by_name().size(); ++i) index[net.hosts_by_name()[i]] = static_cast<int>(i);
    std::mt19937 rng(seed);
    double sum = 0;
    for (unsigned b = 0; b < n; ++b) {
        std::vector<std::pair<int, int>> flows;
        for (const Flow& f : random_bisection(rng, net.hosts_by_name(), false)) flows.emplace_back(index[f.src], index[f.dst]);
        REQUIRE(flows.size() == 2);
        sum += bad_tree_pattern_fraction(flows);
    }
    CHECK(rep.ebb->ebb == Approx(sum / n).epsilon(1e-12));
    CHECK(rep.ebb->seed == seed);

    // Same seed, same result; another seed generally differs in its patterns.
    Report again = analyze(t.fabric, t.tables, with(n, seed));
    CHECK(again.ebb->ebb == rep.ebb->ebb);
}

TEST_CASE("random bisections are uniform perfect matchings")
{
    std::mt19937 rng(99);
    std::vector<std::int32_t> hosts{10, 11, 12, 13};
    std::map<std::vector<std::int32_t>, int> seen;
    const int draws = 24000;
    for (int i = 0; i < draws; ++i) {
        auto flows = random_bisection(rng, hosts, false);
        REQUIRE(flows.size() == 2);
        std::vector<std::int32_t> key{flows[0].src, flows[0].dst, flows[1].src, flows[1].dst};
        std::vector<std::int32_t> sorted = key;
        std::sort(sorted.begin(), sorted.end());
        REQUIRE(sorted == hosts); // every host exactly once
        ++seen[key];
    }
    CHECK(seen.size() == 24); // all 4! orders appear ...
    for (const auto& [k, c] : seen) CHECK(c == Approx(draws / 24.0).epsilon(0.15)); // ... about equally often
    // Odd host counts leave one host idle.
    std::vector<std::int32_t> five{1, 2, 3, 4, 5};
    CHECK(random_bisection(rng, five, false).size() == 2);
    CHECK(random_bisection(rng, five, true).size() == 4);
}

TEST_CASE("host order file selects the shift numbering")
{
    Tree t(false);
    Options o = with(10);
    // h1, h3, h2, h4: shift 1 = h1->h3, h3->h2, h2->h4, h4->h1: L1->S1 carries
    // h1->h3 and h2->h4, L2->S1 carries h3->h2 and h4->h1 -> 0.5.
    o.order_lines = {"h1", "# comment", "", "0x120", "\"h2\"", "8"};
    Report rep = analyze(t.fabric, t.tables, o);
    REQUIRE(rep.shifts);
    CHECK(rep.host_order == "given");
    CHECK(rep.shifts->fraction[0] == Approx(0.5));
    // shift 2: h1->h2, h3->h4 local; h2->h1, h4->h3 local -> 1.0
    CHECK(rep.shifts->fraction[1] == Approx(1.0));

    o.order_lines = {"h1", "nosuch"};
    CHECK_THROWS_WITH(analyze(t.fabric, t.tables, o), Catch::Contains("line 2") && Catch::Contains("nosuch"));
    o.order_lines = {"h1", "h1"};
    CHECK_THROWS_WITH(analyze(t.fabric, t.tables, o), Catch::Contains("already listed on line 1"));
    o.order_lines = {"S1"};
    CHECK_THROWS_WITH(analyze(t.fabric, t.tables, o), Catch::Contains("is a switch"));
    o.order_lines = {"3"};
    CHECK_THROWS_WITH(analyze(t.fabric, t.tables, o), Catch::Contains("belongs to switch"));
}

TEST_CASE("results do not depend on the thread count")
{
    Tree t(false);
    Options one = with(300, 5);
    one.threads = 1;
    Options four = with(300, 5);
    four.threads = 4;
    Report a = analyze(t.fabric, t.tables, one);
    Report b = analyze(t.fabric, t.tables, four);
    CHECK(a.ebb->ebb == b.ebb->ebb);
    CHECK(a.shifts->fraction == b.shifts->fraction);
    CHECK(a.efi_switch_links.max == b.efi_switch_links.max);
    CHECK(a.of(PairClass::ca_to_ca).hops_mean == b.of(PairClass::ca_to_ca).hops_mean);
}

TEST_CASE("natural name order compares digit runs by value")
{
    CHECK(natural_less("h2", "h10"));
    CHECK_FALSE(natural_less("h10", "h2"));
    CHECK(natural_less("h-1-2", "h-1-10"));
    CHECK(natural_less("a", "b"));
    CHECK(natural_less("h1", "h01"));
    CHECK_FALSE(natural_less("h1", "h1"));
    CHECK(natural_less("h", "h1"));
}

TEST_CASE("JSON output carries the headline numbers")
{
    Tree t(false);
    Report rep = analyze(t.fabric, t.tables, with(100));
    std::string j = to_json(rep);
    CHECK(j.find("\"switch_to_switch\": {") != std::string::npos);
    CHECK(j.find("\"min\": 0.5") != std::string::npos);
    CHECK(j.find("\"worst_shift\": 2") != std::string::npos);
    CHECK(j.find("\"bisections\": 100") != std::string::npos);
    CHECK(j.front() == '{');
}

TEST_CASE("LMC: every LID of a block is a destination; patterns use base LIDs")
{
    // One switch, two hosts with LMC 1: h1 owns LIDs 2-3, h2 owns 4-5.
    HandFabric f;
    auto s = f.sw("S", 0x10, 2, 1);
    f.host("h1", 0x100, 2, s, 1, 1);
    f.host("h2", 0x110, 4, s, 2, 1);
    f.route(s, 2, 1);
    f.route(s, 3, 1);
    f.route(s, 4, 2);
    f.route(s, 5, routing::no_route); // h2's second LID is not routed
    Options o = with(10);
    o.max_examples = 3;
    Report rep = analyze(f.fabric, f.tables, o);
    const ClassReport& cc = rep.of(PairClass::ca_to_ca);
    CHECK(cc.pairs == 4); // h1 -> 4, 5; h2 -> 2, 3
    CHECK(cc.unreachable == 1);
    REQUIRE(cc.unreachable_examples.size() == 1);
    CHECK(cc.unreachable_examples[0].source == "h1");
    CHECK(cc.unreachable_examples[0].dlid == 5);
    CHECK(cc.unreachable_examples[0].destination == "h2");
    CHECK(rep.lids.lids == 5);
    CHECK(rep.lids.lmcs == std::vector<unsigned>{0, 1});
    CHECK(rep.efi_routes == 2); // base LIDs only
    CHECK(rep.shifts->minimum == Approx(1.0));
    CHECK(rep.ebb->unroutable_flows == 0);

    // A misaligned LMC block is an input error.
    HandFabric g;
    auto s2 = g.sw("S", 0x10, 2, 1);
    g.host("h1", 0x100, 3, s2, 1, 1);
    CHECK_THROWS_WITH(analyze(g.fabric, g.tables, o), Catch::Contains("not an aligned unicast LID block"));
}

TEST_CASE("a dual-port CA is two hosts named by port")
{
    HandFabric f;
    auto s = f.sw("S", 0x10, 3, 1);
    auto ca = f.fabric.add_node(topology::NodeType::ca, Guid(0x100), 2, "dual");
    for (std::uint8_t p : {1, 2}) {
        f.fabric.set_port_guid({ca, PortNum(p)}, Guid(0x100u + p));
        f.fabric.port({ca, PortNum(p)}).lid = Lid(static_cast<std::uint16_t>(1 + p));
        f.fabric.connect({ca, PortNum(p)}, {s, PortNum(p)});
        f.route(s, static_cast<std::uint16_t>(1 + p), p);
    }
    f.host("single", 0x200, 4, s, 3);
    f.route(s, 4, 3);
    Network net(f.fabric, f.tables);
    REQUIRE(net.hosts_by_name().size() == 3);
    CHECK(net.endpoint(net.hosts_by_name()[0]).name == "dual/1");
    CHECK(net.endpoint(net.hosts_by_name()[1]).name == "dual/2");
    CHECK(net.endpoint(net.hosts_by_name()[2]).name == "single");
    Options o = with(10);
    o.order_lines = {"single", "dual"}; // a node name stands for all its ports
    Report rep = analyze(f.fabric, f.tables, o);
    CHECK(rep.shifts->hosts == 3);
    CHECK(rep.of(PairClass::ca_to_ca).pairs == 6);
    CHECK(rep.of(PairClass::ca_to_ca).unreachable == 0);
}

TEST_CASE("link loads of the unbalanced tree, by hand, with examples on their channels")
{
    Tree t(false);
    Options o = with(10);
    o.run_ebb = false;
    o.run_shifts = false;
    CHECK(analyze(t.fabric, t.tables, o).link_loads.empty());
    o.keep_link_loads = true;
    o.link_examples = 3;
    Report rep = analyze(t.fabric, t.tables, o);
    // Every cable each way: 4 host cables and 4 leaf-spine cables.
    REQUIRE(rep.link_loads.size() == 16);
    std::map<std::string, const LinkLoad*> by;
    for (const LinkLoad& l : rep.link_loads) by[link_label(l.link)] = &l;
    REQUIRE(by.size() == 16);
    // See the header: S1 carries every crossing route, S2 none; each CA
    // cable carries P-1 = 3 routes each way.
    for (const char* hot : {"L1[3] -> S1[1]", "L2[3] -> S1[2]", "S1[1] -> L1[3]", "S1[2] -> L2[3]"}) {
        INFO(hot);
        REQUIRE(by.count(hot));
        CHECK(by[hot]->load == 4);
        CHECK(by[hot]->switch_link);
        CHECK(by[hot]->examples.size() == 3);
    }
    for (const char* cold : {"L1[4] -> S2[1]", "L2[4] -> S2[2]", "S2[1] -> L1[4]", "S2[2] -> L2[4]"}) {
        INFO(cold);
        REQUIRE(by.count(cold));
        CHECK(by[cold]->load == 0);
        CHECK(by[cold]->examples.empty());
    }
    for (const char* h : {"h1", "h2", "h3", "h4"}) {
        const bool on_l1 = h[1] <= '2';
        const std::string leaf = on_l1 ? "L1" : "L2";
        const std::string port = (h[1] == '1' || h[1] == '3') ? "1" : "2";
        const LinkLoad* up = by.at(std::string(h) + "[1] -> " + leaf + "[" + port + "]");
        const LinkLoad* down = by.at(leaf + "[" + port + "] -> " + h + "[1]");
        CHECK(up->load == 3);
        CHECK(down->load == 3);
        CHECK_FALSE(up->switch_link);
        REQUIRE(up->examples.size() == 3);
        REQUIRE(down->examples.size() == 3);
        for (const NamedPair& e : up->examples) {
            CHECK(e.source == h);
            CHECK(e.destination != h);
        }
        for (const NamedPair& e : down->examples) {
            CHECK(e.destination == h);
            CHECK(e.source != h);
        }
    }
    // Routes on L1 -> S1 come from L1's hosts and go to L2's.
    for (const NamedPair& e : by["L1[3] -> S1[1]"]->examples) {
        CHECK((e.source == "h1" || e.source == "h2"));
        CHECK((e.destination == "h3" || e.destination == "h4"));
        CHECK(e.dlid == (e.destination == "h3" ? 7u : 8u));
    }
    for (const NamedPair& e : by["S1[1] -> L1[3]"]->examples) {
        CHECK((e.source == "h3" || e.source == "h4"));
        CHECK((e.destination == "h1" || e.destination == "h2"));
    }
    // The JSON form does not carry them.
    Options plain = o;
    plain.keep_link_loads = false;
    Report without = analyze(t.fabric, t.tables, plain);
    rep.seconds.clear();
    without.seconds.clear();
    CHECK(to_json(rep) == to_json(without));
    CHECK(to_text(rep) == to_text(without));
}
