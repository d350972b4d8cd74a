#include "lidassign/base_lids.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace ibsm;
using namespace ibsm::lidassign;
using topology::Fabric;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

namespace {

PortRef pr(NodeId n, unsigned p) { return PortRef{n, PortNum(static_cast<std::uint8_t>(p))}; }

// One switch per `per_switch` CAs; CA i has node GUID 0x100+i*2, port GUID +1.
struct Small {
    Fabric f;
    std::vector<NodeId> sw, ca;
};

Small small(unsigned switches, unsigned per_switch)
{
    Small s;
    for (unsigned i = 0; i < switches; ++i)
        s.sw.push_back(s.f.add_node(NodeType::switch_node, Guid(0x10 + i), static_cast<std::uint8_t>(per_switch + 1)));
    for (unsigned i = 0; i < switches; ++i)
        for (unsigned j = 0; j < per_switch; ++j) {
            const std::uint64_t g = 0x100 + 2 * (i * per_switch + j);
            auto ca = s.f.add_node(NodeType::ca, Guid(g), 2);
            s.f.set_port_guid(pr(ca, 1), Guid(g + 1));
            s.f.connect(pr(ca, 1), pr(s.sw[i], j + 1));
            s.ca.push_back(ca);
        }
    return s;
}

Lid base(const BaseLidResult& r, PortRef p)
{
    auto l = r.lids.lids_of(p);
    REQUIRE(l);
    return l->base;
}

} // namespace

TEST_CASE("Fresh LIDs go in node/port order, CA blocks aligned to LMC")
{
    auto s = small(2, 2); // nodes: sw0 sw1 ca0 ca1 ca2 ca3
    SECTION("LMC 0")
    {
        auto r = assign_base_lids(s.f, {}, BaseLidOptions{});
        CHECK(base(r, pr(s.sw[0], 0)) == Lid(1));
        CHECK(base(r, pr(s.sw[1], 0)) == Lid(2));
        CHECK(base(r, pr(s.ca[0], 1)) == Lid(3));
        CHECK(base(r, pr(s.ca[3], 1)) == Lid(6));
        CHECK(r.lids.port_count() == 6); // uncabled CA port 2 gets nothing
        CHECK_FALSE(r.lids.lids_of(pr(s.ca[0], 2)));
        CHECK(r.notes.empty());
    }
    SECTION("LMC 2: switches keep one LID, CAs get aligned blocks of 4")
    {
        auto r = assign_base_lids(s.f, {}, BaseLidOptions{2});
        CHECK(r.lids.lids_of(pr(s.sw[0], 0))->lmc == 0);
        CHECK(base(r, pr(s.sw[0], 0)) == Lid(1));
        CHECK(base(r, pr(s.sw[1], 0)) == Lid(2));
        CHECK(base(r, pr(s.ca[0], 1)) == Lid(4));
        CHECK(base(r, pr(s.ca[1], 1)) == Lid(8));
        CHECK(base(r, pr(s.ca[3], 1)) == Lid(16));
        CHECK(r.lids.lids_of(pr(s.ca[3], 1))->count() == 4);
        CHECK(r.lids.top() == Lid(19));
    }
    SECTION("enhanced switch port 0 takes the LMC only with lmc_esp0")
    {
        s.f.node(s.sw[1]).sw->enhanced_port0 = true;
        auto plain = assign_base_lids(s.f, {}, BaseLidOptions{2});
        CHECK(plain.lids.lids_of(pr(s.sw[1], 0))->lmc == 0);
        BaseLidOptions o{2};
        o.lmc_esp0 = true;
        auto r = assign_base_lids(s.f, {}, o);
        CHECK(r.lids.lids_of(pr(s.sw[0], 0))->lmc == 0); // not enhanced
        CHECK(base(r, pr(s.sw[0], 0)) == Lid(1));
        CHECK(r.lids.lids_of(pr(s.sw[1], 0))->lmc == 2);
        CHECK(base(r, pr(s.sw[1], 0)) == Lid(4));
        CHECK(base(r, pr(s.ca[0], 1)) == Lid(8));
    }
}

TEST_CASE("Same input gives the same LIDs")
{
    auto s = small(3, 5);
    s.f.port(pr(s.ca[4], 1)).lid = Lid(40);
    GuidLidMap prev{{Guid(0x100 + 2 * 7 + 1), Lid(60)}, {Guid(0x11), Lid(33)}};
    auto a = assign_base_lids(s.f, prev, BaseLidOptions{1});
    auto b = assign_base_lids(s.f, prev, BaseLidOptions{1});
    auto ea = a.lids.entries(), eb = b.lids.entries();
    REQUIRE(ea.size() == eb.size());
    for (std::size_t i = 0; i < ea.size(); ++i) {
        CHECK(ea[i].first == eb[i].first);
        CHECK(ea[i].second.base == eb[i].second.base);
    }
    CHECK(base(a, pr(s.ca[4], 1)) == Lid(40));
    CHECK(base(a, pr(s.ca[7], 1)) == Lid(60));
    CHECK(base(a, pr(s.sw[1], 0)) == Lid(33));
}

TEST_CASE("The previous map is honoured, then LIDs on the ports")
{
    auto s = small(1, 3); // sw0 ca0 ca1 ca2
    const Guid ca0(0x101), ca1(0x103), ca2(0x105);

    SECTION("previous LIDs kept, the rest filled from the bottom")
    {
        auto r = assign_base_lids(s.f, {{ca2, Lid(0x20)}, {Guid(0x10), Lid(7)}}, BaseLidOptions{});
        CHECK(base(r, pr(s.ca[2], 1)) == Lid(0x20));
        CHECK(base(r, pr(s.sw[0], 0)) == Lid(7));
        CHECK(base(r, pr(s.ca[0], 1)) == Lid(1));
        CHECK(base(r, pr(s.ca[1], 1)) == Lid(2));
    }
    SECTION("the previous map wins over a present LID; the loser moves, with a note")
    {
        s.f.port(pr(s.ca[1], 1)).lid = Lid(10);
        auto r = assign_base_lids(s.f, {{ca0, Lid(10)}}, BaseLidOptions{});
        CHECK(base(r, pr(s.ca[0], 1)) == Lid(10));
        CHECK(base(r, pr(s.ca[1], 1)) != Lid(10));
        REQUIRE(r.notes.size() == 1);
        CHECK(r.notes[0].port == pr(s.ca[1], 1));
        CHECK_THAT(r.notes[0].text, Catch::Contains("present LID 0x000a not kept") &&
                                        Catch::Contains("already belongs to 0x0000000000000101"));
    }
    SECTION("two previous entries on one LID: first port in order keeps it")
    {
        auto r = assign_base_lids(s.f, {{ca2, Lid(5)}, {ca1, Lid(5)}}, BaseLidOptions{});
        CHECK(base(r, pr(s.ca[1], 1)) == Lid(5));
        CHECK(base(r, pr(s.ca[2], 1)) != Lid(5));
        CHECK(r.notes.size() == 1);
    }
    SECTION("a misaligned LID is not kept under LMC")
    {
        s.f.port(pr(s.ca[0], 1)).lid = Lid(6);
        auto r = assign_base_lids(s.f, {{ca1, Lid(9)}}, BaseLidOptions{2});
        CHECK(base(r, pr(s.ca[0], 1)).value() % 4 == 0);
        CHECK(base(r, pr(s.ca[1], 1)).value() % 4 == 0);
        REQUIRE(r.notes.size() == 2);
        CHECK_THAT(r.notes[0].text, Catch::Contains("previous LID 0x0009") && Catch::Contains("not aligned"));
        CHECK_THAT(r.notes[1].text, Catch::Contains("present LID 0x0006"));
    }
    SECTION("a LID beyond the range is not kept")
    {
        BaseLidOptions o;
        o.max_lid = 50;
        auto r = assign_base_lids(s.f, {{ca0, Lid(51)}}, o);
        CHECK(base(r, pr(s.ca[0], 1)) == Lid(2));
        REQUIRE(r.notes.size() == 1);
        CHECK_THAT(r.notes[0].text, Catch::Contains("beyond"));
    }
}

TEST_CASE("LIDs of absent ports stay reserved until space runs out")
{
    auto s = small(1, 2); // sw0 ca0 ca1
    const GuidLidMap prev{{Guid(0xdead), Lid(1)}, {Guid(0xbeef), Lid(3)}};
    auto r = assign_base_lids(s.f, prev, BaseLidOptions{});
    CHECK(base(r, pr(s.sw[0], 0)) == Lid(2));
    CHECK(base(r, pr(s.ca[0], 1)) == Lid(4));
    CHECK(base(r, pr(s.ca[1], 1)) == Lid(5));
    CHECK(r.notes.empty());

    BaseLidOptions tight;
    tight.max_lid = 3;
    auto t = assign_base_lids(s.f, prev, tight);
    CHECK(t.lids.port_count() == 3);
    REQUIRE(t.notes.size() == 2);
    CHECK_THAT(t.notes[0].text, Catch::Contains("reserved for a port of the previous map"));
}

TEST_CASE("Running out of LIDs is a clear error")
{
    SECTION("small limit")
    {
        auto s = small(1, 4);
        BaseLidOptions o;
        o.max_lid = 4;
        CHECK_THROWS_AS(assign_base_lids(s.f, {}, o), LidSpaceExhausted);
        CHECK_THROWS_WITH(assign_base_lids(s.f, {}, o),
                          Catch::StartsWith("out of unicast LIDs: no free block of 1 LIDs for 0x0000000000000107 port 1") &&
                              Catch::Contains("1 of 5 addressable ports still without LIDs"));
        o.max_lid = 5;
        CHECK_NOTHROW(assign_base_lids(s.f, {}, o));
    }
    SECTION("the real unicast range with LMC 7")
    {
        // 0xBFFF / 128 = 383 aligned blocks of 128 (128..0xBF80), minus the
        // one the two switch LIDs (1, 2) sit in: 383 CA ports fit, 384 do not.
        auto s = small(2, 192);
        CHECK_THROWS_AS(assign_base_lids(s.f, {}, BaseLidOptions{7}), LidSpaceExhausted);
        s.f.disconnect(pr(s.ca[100], 1));
        auto r = assign_base_lids(s.f, {}, BaseLidOptions{7});
        CHECK(r.lids.top() == Lid(0xBFFF));
    }
    CHECK_THROWS_AS(assign_base_lids(small(1, 1).f, {}, BaseLidOptions{8}), std::invalid_argument);
}

TEST_CASE("apply_lids writes LIDs into the fabric and lids_from_ports reads them back")
{
    auto s = small(2, 2);
    auto r = assign_base_lids(s.f, {}, BaseLidOptions{1});
    apply_lids(r.lids, s.f);
    CHECK(s.f.port(pr(s.sw[1], 0)).lid == Lid(2));
    CHECK(s.f.port(pr(s.sw[1], 3)).lid == Lid(2)); // every switch port shows the switch LID
    CHECK(s.f.port(pr(s.ca[0], 1)).lid == Lid(4));
    CHECK(s.f.port(pr(s.ca[0], 1)).lmc == 1);
    CHECK(s.f.port(pr(s.ca[0], 2)).lid == Lid(0));

    auto back = lids_from_ports(s.f);
    auto a = r.lids.entries(), b = back.entries();
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].first == b[i].first);
        CHECK(a[i].second.base == b[i].second.base);
        CHECK(a[i].second.lmc == b[i].second.lmc);
    }
    // Present LIDs are kept as they are on a second run.
    auto again = assign_base_lids(s.f, {}, BaseLidOptions{1});
    CHECK(again.notes.empty());
    CHECK(again.lids.entries().size() == a.size());
    CHECK(base(again, pr(s.ca[3], 1)) == r.lids.lids_of(pr(s.ca[3], 1))->base);

    s.f.port(pr(s.ca[1], 1)).lid = Lid(4);
    CHECK_THROWS_WITH(lids_from_ports(s.f), Catch::Contains("0x0000000000000103 port 1 LID 0x0004"));
}
