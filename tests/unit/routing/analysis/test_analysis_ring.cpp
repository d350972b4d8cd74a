// Analyzer on a ring of four switches A-B-C-D-A, one host each, with
// hand-written forwarding tables.
//
//   port 1 = clockwise (A[1]->B[2], B[1]->C[2], C[1]->D[2], D[1]->A[2])
//   port 2 = counter-clockwise, port 3 = host, port 4 = not cabled
//   LIDs: A=1 B=2 C=3 D=4, hA=5 hB=6 hC=7 hD=8
#include "routing/analysis/analyze.h"
#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"
#include "test_analysis_fabrics.h"

#include <catch2/catch.hpp>

#include <array>

using namespace ibsm;
using namespace ibsm::routing::analysis;
using ibsm::test::HandFabric;

namespace {

struct Ring : HandFabric {
    std::array<topology::NodeId, 4> s{};
    std::array<topology::NodeId, 4> h{};
    explicit Ring(bool with_hB = true)
    {
        const char* names[] = {"A", "B", "C", "D"};
        for (int i = 0; i < 4; ++i) s[i] = sw(names[i], 0x100 + i, 4, static_cast<std::uint16_t>(i + 1));
        for (int i = 0; i < 4; ++i) link(s[i], 1, s[(i + 1) % 4], 2);
        const char* hosts[] = {"hA", "hB", "hC", "hD"};
        for (int i = 0; i < 4; ++i) {
            if (i == 1 && !with_hB) continue;
            h[i] = host(hosts[i], 0x200 + 0x10 * i, static_cast<std::uint16_t>(5 + i), s[i], 3);
        }
    }
    // ports[i][lid-1] = output port of switch i for LIDs 1..8 (0 at its own LID).
    void table(const std::array<std::array<std::uint8_t, 8>, 4>& ports)
    {
        for (int i = 0; i < 4; ++i)
            for (std::uint16_t l = 1; l <= 8; ++l) route(s[i], l, ports[i][l - 1]);
    }
};

Options quick()
{
    Options o;
    o.ebb.bisections = 50;
    o.threads = 2;
    return o;
}

std::vector<std::string> cycle_labels(const CreditReport& c)
{
    std::vector<std::string> out;
    for (const auto& v : c.vls)
        for (const auto& l : v.cycle) out.push_back(link_label(l));
    return out;
}

} // namespace

TEST_CASE("all-clockwise ring routing has a credit loop, printed link by link")
{
    Ring r;
    //            A  B  C  D hA hB hC hD
    r.table({{{0, 1, 1, 1, 3, 1, 1, 1},
              {1, 0, 1, 1, 1, 3, 1, 1},
              {1, 1, 0, 1, 1, 1, 3, 1},
              {1, 1, 1, 0, 1, 1, 1, 3}}});
    Report rep = analyze(r.fabric, r.tables, quick());

    REQUIRE(rep.credit_ca_only.computed);
    CHECK(rep.credit_ca_only.has_loop());
    CHECK(rep.credit_all.has_loop());
    // The DFS starts from the first channel (A's port 1) and follows the
    // clockwise dependencies around.
    CHECK(cycle_labels(rep.credit_ca_only) ==
          std::vector<std::string>{"A[1] -> B[2]", "B[1] -> C[2]", "C[1] -> D[2]", "D[1] -> A[2]"});
    // Dependencies (one VL): each switch turns clockwise-in to clockwise-out.
    REQUIRE(rep.credit_ca_only.vls.size() == 1);
    CHECK(rep.credit_ca_only.vls[0].dependencies == 4);

    // Everything is delivered; clockwise distance k costs 2+k links, the
    // shortest is 3 for k = 3: hops mean 4, stretch mean (8 + 4*5/3)/12.
    const ClassReport& cc = rep.of(PairClass::ca_to_ca);
    CHECK(cc.pairs == 12);
    CHECK(cc.unreachable == 0);
    CHECK(cc.loops == 0);
    CHECK(cc.hops_mean == Approx(4.0));
    CHECK(cc.hops_max == 5);
    CHECK(cc.stretch_mean == Approx((8.0 + 4.0 * 5.0 / 3.0) / 12.0));
    CHECK(cc.stretch_max == Approx(5.0 / 3.0));
    CHECK(cc.nonminimal == 4);

    std::string text = to_text(rep);
    CHECK(text.find("CREDIT LOOP") != std::string::npos);
    CHECK(text.find("A[1] -> B[2]") != std::string::npos);
    std::string json = to_json(rep);
    CHECK(json.find("\"has_loop\": true") != std::string::npos);
}

TEST_CASE("ring routed with a turn restriction has no credit loop")
{
    Ring r;
    // Opposite pairs: A->C and B->D clockwise, C->A and D->B the other way
    // round; the clockwise chain D->A->B->C->D is never closed.
    //            A  B  C  D hA hB hC hD
    r.table({{{0, 1, 1, 2, 3, 1, 1, 2},
              {2, 0, 1, 1, 2, 3, 1, 1},
              {2, 2, 0, 1, 2, 2, 3, 1},
              {1, 1, 2, 0, 1, 1, 2, 3}}});
    Report rep = analyze(r.fabric, r.tables, quick());
    CHECK_FALSE(rep.credit_ca_only.has_loop());
    CHECK_FALSE(rep.credit_all.has_loop());
    // CW: A-B-C, B-C-D, D-A-B; CCW: C-B-A, with switch traffic the same turns.
    CHECK(rep.credit_ca_only.vls.at(0).dependencies == 4);

    for (const ClassReport& c : rep.classes) {
        CHECK(c.unreachable == 0);
        CHECK(c.loops == 0);
        CHECK(c.nonminimal == 0);
        CHECK(c.stretch_max == Approx(1.0));
    }
    CHECK(rep.of(PairClass::ca_to_ca).pairs == 12);
    CHECK(rep.of(PairClass::ca_to_switch).pairs == 16);
    CHECK(rep.of(PairClass::switch_to_ca).pairs == 16);
    CHECK(rep.of(PairClass::switch_to_switch).pairs == 12);
    // 8 neighbour pairs of 3 links, 4 opposite pairs of 4 links.
    CHECK(rep.of(PairClass::ca_to_ca).hops_mean == Approx(40.0 / 12.0));
    CHECK(rep.of(PairClass::ca_to_ca).hops_max == 4);
    CHECK(to_text(rep).find("CREDIT LOOP") == std::string::npos);
}

TEST_CASE("a credit loop closed only by switch-originated traffic")
{
    Ring r(false); // no host on B
    // A->C via B (hA: A-B-C), B->D via C (only B itself sends that way),
    // C->A via D (hC: C-D-A), D->B via A (hD to B's LID: D-A-B).
    //            A  B  C  D hA hB hC hD
    r.table({{{0, 1, 1, 2, 3, 1, 1, 2},
              {2, 0, 1, 1, 2, 255, 1, 1},
              {1, 2, 0, 1, 1, 255, 3, 1},
              {1, 1, 2, 0, 1, 255, 2, 3}}});
    Report rep = analyze(r.fabric, r.tables, quick());
    CHECK_FALSE(rep.credit_ca_only.has_loop());
    REQUIRE(rep.credit_all.has_loop());
    CHECK(cycle_labels(rep.credit_all) ==
          std::vector<std::string>{"A[1] -> B[2]", "B[1] -> C[2]", "C[1] -> D[2]", "D[1] -> A[2]"});

    Options no_sw = quick();
    no_sw.switch_traffic = false;
    Report rep2 = analyze(r.fabric, r.tables, no_sw);
    CHECK_FALSE(rep2.credit_ca_only.has_loop());
    CHECK_FALSE(rep2.credit_all.computed);
    CHECK_FALSE(rep2.of(PairClass::switch_to_switch).counted);
    CHECK(rep2.of(PairClass::switch_to_switch).pairs == 0);
}

TEST_CASE("SLs put routes on separate VLs and break the loop")
{
    Ring r;
    r.table({{{0, 1, 1, 1, 3, 1, 1, 1},
              {1, 0, 1, 1, 1, 3, 1, 1},
              {1, 1, 0, 1, 1, 1, 3, 1},
              {1, 1, 1, 0, 1, 1, 1, 3}}});
    // The clockwise cycle needs the turn at A (D->A then A->B); routes that
    // make that turn (D->B, D->C, C->B: source and destination both not A and
    // the destination "behind" the source) go on SL 1. VL 0 then lacks the
    // turn at A, and VL 1 only has turns at A, B and D (never at C).
    auto sl_of = [](int src, int dst) { return (src != 0 && dst != 0 && dst < src) ? 1 : 0; };
    std::vector<topology::PortRef> sources;
    for (int src = 0; src < 4; ++src) {
        sources.push_back({r.h[src], PortNum(1)});
        sources.push_back({r.s[src], PortNum(0)});
    }
    r.tables.sl = routing::SlTable(sources, 9);
    auto set_sl = [&](topology::PortRef p, std::uint16_t lid, std::uint8_t sl) {
        r.tables.sl.set(*r.tables.sl.row_of(p), lid, sl);
    };
    for (int src = 0; src < 4; ++src) {
        for (int dst = 0; dst < 4; ++dst) {
            if (src == dst) continue;
            auto sl = static_cast<std::uint8_t>(sl_of(src, dst));
            for (std::uint16_t lid : {static_cast<std::uint16_t>(dst + 1), static_cast<std::uint16_t>(dst + 5)}) {
                set_sl({r.h[src], PortNum(1)}, lid, sl);
                set_sl({r.s[src], PortNum(0)}, lid, sl);
            }
        }
    }
    r.tables.vls_used = 2;
    Report rep = analyze(r.fabric, r.tables, quick());
    REQUIRE(rep.credit_all.vls.size() == 2);
    CHECK_FALSE(rep.credit_all.has_loop());
    CHECK_FALSE(rep.credit_ca_only.has_loop());

    // QoS masks (Options::vl_mask_of_sl): two bands, layer l on VLs l and
    // 2 + l, as qos::SlVlPlan gives them. Each band repeats the layers'
    // dependencies, so four VLs carry traffic and none has a loop.
    Options banded = quick();
    banded.vl_mask_of_sl = std::array<std::uint16_t, 16>{0b0101, 0b1010};
    Report rep_q = analyze(r.fabric, r.tables, banded);
    REQUIRE(rep_q.credit_all.vls.size() == 4);
    CHECK_FALSE(rep_q.credit_all.has_loop());
    CHECK(rep_q.credit_all.vls[2].dependencies == rep.credit_all.vls[0].dependencies);
    CHECK(rep_q.credit_all.vls[3].dependencies == rep.credit_all.vls[1].dependencies);
    // A table that puts layer 1 onto band 0's VL too merges the layers on
    // VL 0 and closes the loop there, as the tables on the wire would.
    Options merged = quick();
    merged.vl_mask_of_sl = std::array<std::uint16_t, 16>{0b0101, 0b0011};
    Report rep_m = analyze(r.fabric, r.tables, merged);
    REQUIRE(rep_m.credit_all.has_loop());
    CHECK_FALSE(rep_m.credit_all.vls[0].cycle.empty());

    // The same SLs with everything on SL 0 but one pair still loop.
    r.tables.sl = routing::SlTable(sources, 9);
    set_sl({r.h[0], PortNum(1)}, 8, 1); // hA -> hD on VL 1
    Report rep2 = analyze(r.fabric, r.tables, quick());
    CHECK(rep2.credit_all.has_loop());
    REQUIRE(rep2.credit_all.vls.size() == 2);
    CHECK_FALSE(rep2.credit_all.vls[0].cycle.empty());
    CHECK(rep2.credit_all.vls[1].cycle.empty());
    // VL 1 carries hA's route A-B-C-D: dependencies at B and C only.
    CHECK(rep2.credit_all.vls[1].dependencies == 2);
}

TEST_CASE("broken tables: unreachable pairs and forwarding loops per class")
{
    Ring r;
    // Start from the loop-free table and break it.
    //            A  B  C  D hA hB hC hD
    r.table({{{0, 1, 1, 2, 3, 1, 1, 2},
              {2, 0, 1, 1, 2, 3, 1, 1},
              {2, 2, 0, 1, 2, 2, 3, 1},
              {1, 1, 2, 0, 1, 1, 2, 3}}});
    // Forwarding loop toward hC (LID 7): A sends it to D, D back to A.
    r.route(r.s[0], 7, 2);
    r.route(r.s[3], 7, 1);
    // B drops hA (LID 5); C's route to hA goes through B, so it is lost too.
    r.route(r.s[1], 5, routing::no_route);
    // D sends B's LID out of uncabled port 4; C sends D's LID to port 9
    // (a 4-port switch); A delivers C's LID to its own port 0.
    r.route(r.s[3], 2, 4);
    r.route(r.s[2], 4, 9);
    r.route(r.s[0], 3, 0);

    Options o = quick();
    o.max_examples = 10;
    Report rep = analyze(r.fabric, r.tables, o);
    const ClassReport& cc = rep.of(PairClass::ca_to_ca);
    // loops: hA->hC, hD->hC; unreachable: hB->hA, hC->hA.
    CHECK(cc.pairs == 12);
    CHECK(cc.loops == 2);
    CHECK(cc.unreachable == 2);
    CHECK(cc.delivered == 8);
    REQUIRE(cc.loop_examples.size() == 2);
    CHECK(cc.loop_examples[0].dlid == 7);
    const ClassReport& sc = rep.of(PairClass::switch_to_ca);
    // loops: A->hC, D->hC; unreachable: B->hA, C->hA.
    CHECK(sc.loops == 2);
    CHECK(sc.unreachable == 2);
    const ClassReport& cs = rep.of(PairClass::ca_to_switch);
    // unreachable: hD->B (port 4), hC->D and hB->D (B goes via C, port 9),
    // hA->C (A's port 0).
    CHECK(cs.unreachable == 4);
    CHECK(cs.loops == 0);
    const ClassReport& ss = rep.of(PairClass::switch_to_switch);
    CHECK(ss.unreachable == 4);
    CHECK(ss.loops == 0);

    // Shifts in name order hA,hB,hC,hD: shift 2 is hA->hC (loop), hB->hD,
    // hC->hA (lost), hD->hB: 2 of 4 flows get no bandwidth.
    REQUIRE(rep.shifts);
    CHECK(rep.shifts->fraction.at(1) == Approx(0.5));
    CHECK(rep.shifts->unroutable_flows == 4); // shift 1: hD->hA ok; shift 2: 2; shift 3: hB->hA, hD->hC
    std::string text = to_text(rep);
    CHECK(text.find("loop:        hA -> LID 7 (hC)") != std::string::npos);
}

TEST_CASE("a block of LIDs traced from its first hops equals tracing LID by LID, in either switch order")
{
    Ring r;
    r.table({{{0, 1, 1, 2, 3, 1, 1, 2},
              {2, 0, 1, 1, 2, 3, 1, 1},
              {2, 2, 0, 1, 2, 2, 3, 1},
              {1, 1, 2, 0, 1, 1, 2, 3}}});
    // The breakages of the test above: a loop, a drop, an uncabled port, a
    // port out of range, port 0 at a switch that does not own the LID.
    r.route(r.s[0], 7, 2);
    r.route(r.s[3], 7, 1);
    r.route(r.s[1], 5, routing::no_route);
    r.route(r.s[3], 2, 4);
    r.route(r.s[2], 4, 9);
    r.route(r.s[0], 3, 0);
    Network net(r.fabric, r.tables);
    LftBlock block;
    DestinationTree by_block, by_lid;
    // Loaded twice: every other load walks the switches backwards.
    for (int pass = 0; pass < 2; ++pass) {
        block.load(net, 1, 8);
        for (std::uint32_t k = 0; k < 8; ++k) {
            block.trace(k, by_block);
            trace_destination(net, 1 + k, by_lid);
            CHECK(by_block.owner == by_lid.owner);
            CHECK(by_block.status == by_lid.status);
            CHECK(by_block.next == by_lid.next);
            CHECK(by_block.hops == by_lid.hops);
            CHECK(by_block.order == by_lid.order);
        }
    }
    block.load(net, 1, 8);
    block.trace(6, by_block); // LID 7: A and D send it back and forth
    CHECK(by_block.status[0] == Reach::loop);
    CHECK(by_block.status[3] == Reach::loop);
    CHECK(by_block.status[2] == Reach::delivered);
    block.trace(4, by_block); // LID 5: B drops it, C's route goes through B
    CHECK(by_block.status[0] == Reach::delivered);
    CHECK(by_block.status[1] == Reach::unreachable);
    CHECK(by_block.status[2] == Reach::unreachable);
    CHECK(by_block.hops[3] == 2);
}

TEST_CASE("a CA without a cable reaches nothing and is reached by nothing")
{
    Ring r;
    r.table({{{0, 1, 1, 2, 3, 1, 1, 2},
              {2, 0, 1, 1, 2, 3, 1, 1},
              {2, 2, 0, 1, 2, 2, 3, 1},
              {1, 1, 2, 0, 1, 1, 2, 3}}});
    auto lone = r.fabric.add_node(topology::NodeType::ca, Guid(0x900), 1, "lone");
    r.fabric.port({lone, PortNum(1)}).lid = Lid(9);
    Report rep = analyze(r.fabric, r.tables, quick());
    const ClassReport& cc = rep.of(PairClass::ca_to_ca);
    CHECK(cc.pairs == 20);          // 5 CA ports
    CHECK(cc.unreachable == 8);     // lone -> 4 hosts, 4 hosts -> lone
    CHECK(rep.of(PairClass::ca_to_switch).unreachable == 4);
    CHECK(rep.of(PairClass::switch_to_ca).unreachable == 4);
}

TEST_CASE("duplicate LIDs are rejected with both ports named")
{
    Ring r;
    r.fabric.port({r.h[2], PortNum(1)}).lid = Lid(5); // same as hA
    try {
        analyze(r.fabric, r.tables, quick());
        FAIL("expected an exception");
    } catch (const std::invalid_argument& e) {
        std::string what = e.what();
        CHECK(what.find("LID 5") != std::string::npos);
        CHECK(what.find("hA[1]") != std::string::npos);
        CHECK(what.find("hC[1]") != std::string::npos);
    }
}
