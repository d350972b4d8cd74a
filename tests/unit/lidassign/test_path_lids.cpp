// LID blocks for per-pair path routing (lidassign/path_lids.h): the LMC
// rounding of seed 002 §2, both orders, persistence and exhaustion.
#include "lidassign/path_lids.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::lidassign;
using topology::Fabric;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

namespace {

PortRef pr(NodeId n, unsigned p) { return PortRef{n, PortNum(static_cast<std::uint8_t>(p))}; }

// One switch with `hosts` CAs on ports 1..hosts.
struct Star {
    Fabric fabric;
    NodeId sw;
    std::vector<PortRef> hosts;
};

Star star(unsigned hosts)
{
    Star s;
    s.sw = s.fabric.add_node(NodeType::switch_node, Guid(0x100), static_cast<std::uint8_t>(hosts), "sw");
    for (unsigned h = 0; h < hosts; ++h) {
        auto ca = s.fabric.add_node(NodeType::ca, Guid(0x200 + h), 1, "h" + std::to_string(h));
        s.fabric.set_port_guid(pr(ca, 1), Guid(0x300 + h));
        s.fabric.connect(pr(ca, 1), pr(s.sw, 1 + h));
        s.hosts.push_back(pr(ca, 1));
    }
    return s;
}

} // namespace

TEST_CASE("LMC rounding: k configurations take 2^ceil(lg k) LIDs, at most 128")
{
    CHECK(*lmc_for(0) == 0);
    CHECK(*lmc_for(1) == 0);
    CHECK(*lmc_for(2) == 1);
    CHECK(*lmc_for(3) == 2);
    CHECK(*lmc_for(4) == 2);
    CHECK(*lmc_for(5) == 3); // seed 002: k = 5 -> 8 LIDs
    CHECK(*lmc_for(8) == 3);
    CHECK(*lmc_for(9) == 4);
    CHECK(*lmc_for(128) == 7);
    CHECK_FALSE(lmc_for(129));
}

TEST_CASE("colour-first: each destination gets its own aligned block, switches one LID")
{
    auto s = star(3);
    std::vector<DestinationNeed> needs{{s.hosts[0], 5}, {s.hosts[1], 1}, {s.hosts[2], 2}};
    auto r = assign_path_lids(s.fabric, {}, needs, {});
    REQUIRE(std::holds_alternative<PathLids>(r));
    const auto& p = std::get<PathLids>(r);
    auto a = *p.lids.lids_of(s.hosts[0]);
    CHECK(a.lmc == 3);
    CHECK(a.count() == 8);
    CHECK(a.base.value() % 8 == 0);
    CHECK(p.lids.lids_of(s.hosts[1])->lmc == 0);
    CHECK(p.lids.lids_of(s.hosts[2])->lmc == 1);
    CHECK(p.lids.lids_of(s.hosts[2])->base.value() % 2 == 0);
    CHECK(p.lids.lids_of(pr(s.sw, 0))->lmc == 0);
    CHECK(p.ca_lids == 8 + 1 + 2);
    CHECK(p.total_lids == 8 + 1 + 2 + 1);
    CHECK(p.notes.empty());
}

TEST_CASE("colour-first keeps a persisted block that still fits, moves one that does not and says so")
{
    auto s = star(2);
    const Guid g0 = s.fabric.port(s.hosts[0]).guid, g1 = s.fabric.port(s.hosts[1]).guid;
    // h0 stays at 0x20 with 4 LIDs (aligned); h1 was at 0x31, which cannot hold 2 LIDs.
    GuidLidMap previous{{g0, Lid(0x20)}, {g1, Lid(0x31)}};
    std::vector<DestinationNeed> needs{{s.hosts[0], 3}, {s.hosts[1], 2}};
    auto r = assign_path_lids(s.fabric, previous, needs, {});
    REQUIRE(std::holds_alternative<PathLids>(r));
    const auto& p = std::get<PathLids>(r);
    CHECK(p.lids.lids_of(s.hosts[0])->base == Lid(0x20));
    CHECK(p.lids.lids_of(s.hosts[0])->lmc == 2);
    const auto moved = *p.lids.lids_of(s.hosts[1]);
    CHECK(moved.base != Lid(0x31));
    CHECK(moved.base.value() % 2 == 0);
    REQUIRE(p.notes.size() == 1);
    CHECK(p.notes[0].port == s.hosts[1]);
    CHECK_THAT(p.notes[0].text, Catch::Contains("0x0031") && Catch::Contains("moved to " + hex16(moved.base.value())) &&
                                    Catch::Contains("2 LIDs for 2 configurations"));
}

TEST_CASE("colour-first refuses when the unicast LID space runs out, and above 128 configurations")
{
    auto s = star(4);
    std::vector<DestinationNeed> needs;
    for (auto h : s.hosts) needs.push_back({h, 16});
    BaseLidOptions o;
    o.max_lid = 63; // 4 blocks of 16 need LIDs 16..79 with the switch's below
    auto r = assign_path_lids(s.fabric, {}, needs, o);
    REQUIRE(std::holds_alternative<PathLidRefusal>(r));
    CHECK_THAT(std::get<PathLidRefusal>(r).reason,
               Catch::Contains("out of unicast LIDs") && Catch::Contains("needs at least 65 LIDs"));
    o.max_lid = 80;
    CHECK(std::holds_alternative<PathLids>(assign_path_lids(s.fabric, {}, needs, o)));

    needs[2].configs = 129;
    auto big = assign_path_lids(s.fabric, {}, needs, {});
    REQUIRE(std::holds_alternative<PathLidRefusal>(big));
    CHECK_THAT(std::get<PathLidRefusal>(big).reason, Catch::Contains("'h2'") && Catch::Contains("129"));
}

TEST_CASE("fixed-lmc: LIDs come first, a destination needing more than 2^LMC is named")
{
    auto s = star(3);
    BaseLidOptions o;
    o.lmc = 2;
    auto base = assign_base_lids(s.fabric, {}, o);
    std::vector<DestinationNeed> ok{{s.hosts[0], 4}, {s.hosts[1], 1}, {s.hosts[2], 3}};
    CHECK_FALSE(check_fixed_lmc(s.fabric, base.lids, ok));
    std::vector<DestinationNeed> bad{{s.hosts[0], 4}, {s.hosts[1], 5}, {s.hosts[2], 3}};
    auto why = check_fixed_lmc(s.fabric, base.lids, bad);
    REQUIRE(why);
    CHECK_THAT(why->reason, Catch::Contains("'h1'") && Catch::Contains("needs 5 configurations") &&
                                Catch::Contains("LMC 2 gives 4 LIDs") && !Catch::Contains("'h0'"));
}

TEST_CASE("lid order names")
{
    CHECK(lid_order_from("fixed-lmc") == LidOrder::fixed_lmc);
    CHECK(lid_order_from("colour-first") == LidOrder::colour_first);
    CHECK(lid_order_from("color-first") == LidOrder::colour_first);
    CHECK_FALSE(lid_order_from("first"));
    CHECK(std::string(to_string(LidOrder::colour_first)) == "colour-first");
}
