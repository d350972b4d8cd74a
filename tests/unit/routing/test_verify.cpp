// The verification gate (routing/verify.h) on hand-written tables for a ring
// of four switches A-B-C-D-A, one host each:
//
//   port 1 = clockwise (A[1]->B[2], B[1]->C[2], C[1]->D[2], D[1]->A[2])
//   port 2 = counter-clockwise, port 3 = host
//   LIDs: A=1 B=2 C=3 D=4, hA=5 hB=6 hC=7 hD=8
//
// "Line" tables never use the D-A cable (a chain A-B-C-D, acyclic); the
// "clockwise" tables send everything clockwise (the classic credit loop).
#include "routing/verify.h"

#include "test_analysis_fabrics.h"

#include <catch2/catch.hpp>

#include <array>
#include <optional>

using namespace ibsm;
using namespace ibsm::routing;
using ibsm::test::HandFabric;

namespace {

using Table = std::array<std::array<std::uint8_t, 8>, 4>;

//              A  B  C  D hA hB hC hD
const Table line{{{0, 1, 1, 1, 3, 1, 1, 1},
                  {2, 0, 1, 1, 2, 3, 1, 1},
                  {2, 2, 0, 1, 2, 2, 3, 1},
                  {2, 2, 2, 0, 2, 2, 2, 3}}};
const Table clockwise{{{0, 1, 1, 1, 3, 1, 1, 1},
                       {1, 0, 1, 1, 1, 3, 1, 1},
                       {1, 1, 0, 1, 1, 1, 3, 1},
                       {1, 1, 1, 0, 1, 1, 1, 3}}};

struct Ring : HandFabric {
    std::array<topology::NodeId, 4> s{};
    std::array<topology::NodeId, 4> h{};
    lidassign::LidMap lids;

    explicit Ring(const Table& t)
    {
        const char* names[] = {"A", "B", "C", "D"};
        for (int i = 0; i < 4; ++i) s[i] = sw(names[i], 0x100 + i, 3, static_cast<std::uint16_t>(i + 1));
        for (int i = 0; i < 4; ++i) link(s[i], 1, s[(i + 1) % 4], 2);
        const char* hosts[] = {"hA", "hB", "hC", "hD"};
        for (int i = 0; i < 4; ++i) h[i] = host(hosts[i], 0x200 + 0x10 * i, static_cast<std::uint16_t>(5 + i), s[i], 3);
        for (int i = 0; i < 4; ++i)
            for (std::uint16_t l = 1; l <= 8; ++l) route(s[i], l, t[i][l - 1]);
        // The gate reads the LID assignment, not the ports: give it the same.
        for (int i = 0; i < 4; ++i) {
            lids.assign({s[i], PortNum(0)}, Lid(static_cast<std::uint16_t>(i + 1)), 0);
            lids.assign({h[i], PortNum(1)}, Lid(static_cast<std::uint16_t>(5 + i)), 0);
        }
        tables.engine = "hand";
    }
    std::uint8_t& entry(int sw, std::uint16_t lid) { return tables.lfts[s[sw]].port[lid]; }
    Verdict check(std::uint8_t max_vls = 8, std::optional<std::array<std::uint16_t, 16>> masks = {}) const
    {
        VerifyOptions o;
        o.max_vls = max_vls;
        o.vl_mask_of_sl = masks;
        o.threads = 2;
        return verify(fabric, lids, tables, o);
    }
};

// hA and hB send on SL 1, hC and hD on SL 0: on the clockwise ring each
// layer's dependencies form a path (see the header), not a cycle.
void split_into_two_layers(Ring& r)
{
    std::vector<topology::PortRef> sources;
    for (int i = 0; i < 4; ++i) sources.push_back({r.h[i], PortNum(1)});
    r.tables.sl = SlTable(sources, 9);
    for (int i : {0, 1}) {
        auto row = r.tables.sl.row_of({r.h[i], PortNum(1)});
        REQUIRE(row);
        for (std::uint32_t lid = 1; lid <= 8; ++lid) r.tables.sl.set(*row, lid, 1);
    }
    r.tables.vls_used = 2;
}

} // namespace

TEST_CASE("gate: deadlock-free tables that deliver every pair pass")
{
    Ring r(line);
    auto v = r.check();
    CHECK(v.passed());
    CHECK(v.reason.empty());
    CHECK(v.checked);
    CHECK(v.ca_to_ca.pairs == 12);
    CHECK(v.ca_to_switch.pairs == 16);
    CHECK(v.switch_to_ca.pairs == 16);
    CHECK(v.switch_to_switch.pairs == 12);
    CHECK(v.ca_to_ca.undelivered() + v.other_undelivered() == 0);
    CHECK_FALSE(v.ca_credit_loop);

    // Promising switch pairs changes nothing here: the line has no cycle.
    r.tables.switch_to_switch = true;
    auto w = r.check();
    CHECK(w.passed());
    CHECK(w.switch_pairs_checked);
    CHECK_FALSE(w.switch_credit_loop);
}

TEST_CASE("gate: a dropped CA LID is refused with counts and a named example")
{
    Ring r(line);
    r.entry(2, 5) = no_route; // C drops hA: hC and hD (through C) lose it, so do C and D
    auto v = r.check();
    CHECK_FALSE(v.passed());
    CHECK(v.ca_to_ca.unreachable == 2);
    CHECK(v.switch_to_ca.unreachable == 2);
    CHECK(v.reason == "2 CA pairs unreachable, e.g. hC → hA (LID 5); "
                      "2 switch→CA pairs unreachable, e.g. C → hA (LID 5)");
}

TEST_CASE("gate: switch pairs count only when the engine promises them")
{
    Ring r(line);
    r.entry(0, 3) = no_route; // A drops switch C: hA -> C and A -> C
    auto v = r.check();
    CHECK(v.ca_to_switch.unreachable == 1);
    CHECK(v.switch_to_switch.unreachable == 1);
    CHECK(v.reason == "1 CA→switch pairs unreachable, e.g. hA → C (LID 3)");

    r.tables.switch_to_switch = true;
    auto w = r.check();
    CHECK(w.reason == "1 CA→switch pairs unreachable, e.g. hA → C (LID 3); "
                      "1 switch pairs unreachable, e.g. A → C (LID 3)");

    // A switch pair alone: refused only under the promise.
    Ring q(line);
    q.entry(3, 2) = 1; // D sends B's LID clockwise: D -> A -> B, fine for delivery
    q.entry(0, 2) = 2; // ...but A sends it back to D: a forwarding loop for D and A only
    auto x = q.check();
    CHECK(x.switch_to_switch.looping == 2);
    CHECK(x.ca_to_switch.looping == 2); // hA and hD
    CHECK_THAT(x.reason, Catch::Contains("2 CA→switch pairs in forwarding loops, e.g. "));
}

TEST_CASE("gate: a forwarding loop is refused")
{
    // A detour is no loop: A sends hC's LID over the D-A cable, D on to C.
    Ring r(line);
    r.entry(0, 7) = 2;
    CHECK(r.check().passed());
    Ring q(line);
    q.entry(1, 7) = 2; // B sends hC's LID back to A, A sends it to B
    auto v = q.check();
    CHECK(v.ca_to_ca.looping == 2); // hA, hB
    CHECK(v.switch_to_ca.looping == 2);
    CHECK_THAT(v.reason, Catch::StartsWith("2 CA pairs in forwarding loops, e.g. hA → hC (LID 7)"));
}

TEST_CASE("gate: a credit loop in CA traffic is refused, the cycle named link by link")
{
    Ring r(clockwise);
    auto v = r.check();
    CHECK_FALSE(v.passed());
    CHECK(v.ca_credit_loop);
    CHECK(v.ca_to_ca.undelivered() == 0);
    CHECK(v.reason == "credit loop on VL 0 in CA traffic: A[1] → B[1] → C[1] → D[1] → A[1]");
}

TEST_CASE("gate: SLs split the clockwise ring into two acyclic layers")
{
    Ring r(clockwise);
    split_into_two_layers(r);
    auto v = r.check();
    CHECK(v.passed());
    CHECK(v.reason.empty());

    SECTION("more VLs than the ports offer")
    {
        CHECK(r.check(1).reason == "needs 2 VLs, the ports offer 1");
    }
    SECTION("an SL with no VL mapped")
    {
        r.tables.vls_used = 1;
        CHECK_THAT(r.check().reason, Catch::StartsWith("uses SL 1 but maps only 1 VL(s)"));
    }
    SECTION("switch traffic on SL 0 closes the loop when switch pairs are promised")
    {
        r.tables.switch_to_switch = true;
        auto w = r.check();
        CHECK_FALSE(w.ca_credit_loop);
        CHECK(w.switch_credit_loop);
        CHECK_THAT(w.reason, Catch::StartsWith("credit loop on VL 0 in CA and switch traffic: "));
    }
}

TEST_CASE("gate: a QoS SL2VL is checked on the VLs the pairs really take")
{
    // The two layers of the clockwise ring (above), with a second QoS band:
    // routing SL l may travel on VL l (class 0) or on a QoS VL (class 1).
    Ring r(clockwise);
    split_into_two_layers(r);

    // Widened as qos/sl_vl_plan.h combines them: band b layer l on VL b*2+l.
    // Each VL carries one layer's acyclic dependencies.
    const std::array<std::uint16_t, 16> widened{0b0101, 0b1010};
    auto fine = r.check(8, widened);
    CHECK(fine.passed());
    CHECK(fine.reason.empty());

    // A hand-made policy putting class 1 of both layers on VL 2: hA, hB and
    // hC, hD all share VL 2, the whole clockwise ring on one VL.
    const std::array<std::uint16_t, 16> merged{0b0101, 0b0110};
    auto v = r.check(8, merged);
    CHECK_FALSE(v.passed());
    CHECK(v.ca_credit_loop);
    CHECK(v.reason == "credit loop on VL 2 in CA traffic: A[1] → B[1] → C[1] → D[1] → A[1]");

    // Both layers on VL 0 alone is the single-VL clockwise ring again.
    const std::array<std::uint16_t, 16> folded{0b1, 0b1};
    CHECK(r.check(8, folded).reason == "credit loop on VL 0 in CA traffic: A[1] → B[1] → C[1] → D[1] → A[1]");
}

TEST_CASE("gate: LIDs above LinearFDBTop are refused")
{
    Ring r(line);
    r.tables.linear_fdb_top = Lid(7);
    CHECK(r.check().reason == "LinearFDBTop 7 is below the top LID 8");
}

TEST_CASE("gate: the least-bad order")
{
    auto verdict = [](std::uint64_t ca, bool loop, std::uint64_t other) {
        Verdict v;
        v.checked = true;
        v.ca_to_ca.unreachable = ca;
        v.ca_credit_loop = loop;
        v.switch_to_ca.unreachable = other;
        v.reason = "x";
        return v;
    };
    CHECK(less_bad(verdict(0, true, 100), verdict(1, false, 0)));   // CA pairs first
    CHECK(less_bad(verdict(5, false, 100), verdict(5, true, 0)));   // then the CA credit loop
    CHECK(less_bad(verdict(5, true, 10), verdict(5, true, 11)));    // then the other pairs
    CHECK_FALSE(less_bad(verdict(5, true, 10), verdict(5, true, 10))); // a tie keeps the first
    Verdict unchecked;
    CHECK(less_bad(verdict(1000, true, 1000), unchecked));
    CHECK(group_digits(133128) == "133 128");
    CHECK(group_digits(0) == "0");
    CHECK(group_digits(1000000) == "1 000 000");
}
