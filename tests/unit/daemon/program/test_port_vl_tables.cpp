// Which of the SL/VL plan's tables a port gets, and those tables cut to
// what the port operates (port_vl_tables.h): the one decision the VL and
// port programmers share.
#include "daemon/program/port_vl_tables.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using config::QosVlArbEntry;

namespace {

// Each class of tables marked by its SL 0 entry, so the test can tell
// which one a port got.
qos::PortVlTables marked(std::uint8_t vl)
{
    qos::PortVlTables t;
    t.sl2vl[0] = vl;
    t.high_limit = vl;
    return t;
}

// Groups: "storage" (ports 0xA, 0xB), "compute" (0xB, 0xC), "login" (0xD).
// Only storage and compute have CA tables, listed compute first to show
// the plan's order (the configuration's) decides, not the group index.
struct Plan {
    qos::SlVlPlan plan;
    qos::QosPolicy policy;

    Plan()
    {
        plan.from_policy = true;
        plan.ca = marked(1);
        plan.switch_external = marked(2);
        plan.switch_port0 = marked(3);
        plan.ca_groups = {{1, marked(4)}, {0, marked(5)}};
        config::QosConfig q;
        q.enabled = true;
        q.port_groups = {config::QosPortGroup{"storage", {Guid(0xA), Guid(0xB)}, {}, {}, {}},
                         config::QosPortGroup{"compute", {Guid(0xB), Guid(0xC)}, {}, {}, {}},
                         config::QosPortGroup{"login", {Guid(0xD)}, {}, {}, {}}};
        std::vector<qos::PortFacts> ports;
        for (std::uint64_t g : {0xA, 0xB, 0xC, 0xD, 0xE}) ports.push_back({Guid(g), Guid(g + 0x100), "", false, {}});
        policy = qos::QosPolicy(q, ports);
    }

    std::uint8_t of_ca(std::uint64_t guid, bool with_policy = true) const
    {
        return daemon::port_vl_tables(plan, with_policy ? &policy : nullptr, false, PortNum(1), Guid(guid)).sl2vl[0];
    }
};

} // namespace

TEST_CASE("port_vl_tables: switches by port, CA ports by their first group with tables, else the CA tables",
          "[vl][qos]")
{
    Plan p;
    REQUIRE(p.policy.groups_of(Guid(0xB)) == 0b011);
    CHECK(daemon::port_vl_tables(p.plan, &p.policy, true, PortNum(0), Guid(0x1000)).sl2vl[0] == 3);
    CHECK(daemon::port_vl_tables(p.plan, &p.policy, true, PortNum(7), Guid(0x1000)).sl2vl[0] == 2);
    // The switch GUID never selects a group, even if a group lists it.
    CHECK(daemon::port_vl_tables(p.plan, &p.policy, true, PortNum(7), Guid(0xA)).sl2vl[0] == 2);
    CHECK(p.of_ca(0xA) == 5); // storage only
    CHECK(p.of_ca(0xC) == 4); // compute only
    CHECK(p.of_ca(0xB) == 4); // both: compute comes first in the plan
    CHECK(p.of_ca(0xD) == 1); // login has no tables of its own
    CHECK(p.of_ca(0xE) == 1); // in no group
    CHECK(p.of_ca(0x999) == 1); // unknown to the policy
    CHECK(p.of_ca(0xA, false) == 1); // no policy: no groups
    // One function for both programmers: the same object, so the same VLHighLimit.
    CHECK(&daemon::port_vl_tables(p.plan, &p.policy, false, PortNum(2), Guid(0xA)) == &p.plan.ca_groups[1].second);
}

TEST_CASE("sl2vl_for_port folds VLs the port does not operate onto VL mod n", "[vl][qos]")
{
    std::array<std::uint8_t, 16> table{};
    for (std::size_t sl = 0; sl < 16; ++sl) table[sl] = static_cast<std::uint8_t>(sl % 15);
    const auto eight = daemon::sl2vl_for_port(table, 8);
    for (std::size_t sl = 0; sl < 16; ++sl) CHECK(eight.vl[sl] == (sl % 15) % 8);
    const auto one = daemon::sl2vl_for_port(table, 1);
    for (auto vl : one.vl) CHECK(vl == 0);
    // 0 operational VLs reads as 1 (a port always has VL 0), above 15 as 15.
    CHECK(daemon::sl2vl_for_port(table, 0) == one);
    const auto all = daemon::sl2vl_for_port(table, 99);
    for (std::size_t sl = 0; sl < 16; ++sl) CHECK(all.vl[sl] == table[sl]);
}

TEST_CASE("vlarb_block leaves out VLs the port does not operate and stops at its capacity", "[vl][qos]")
{
    const std::vector<QosVlArbEntry> entries{{0, 10}, {5, 20}, {1, 30}, {2, 40}};
    const auto t = daemon::vlarb_block(entries, 0, 4, 2);
    CHECK(t.entries[0] == mad::VlArbEntry{0, 10});
    CHECK(t.entries[1] == mad::VlArbEntry{1, 30}); // VL 5 is not operated; VL 2 is past the capacity
    for (std::size_t i = 2; i < t.entries.size(); ++i) CHECK(t.entries[i] == mad::VlArbEntry{});
    const auto wide = daemon::vlarb_block(entries, 0, 8, 64);
    CHECK(wide.entries[1] == mad::VlArbEntry{5, 20});
    CHECK(wide.entries[3] == mad::VlArbEntry{2, 40});

    // The second half holds entries 32..63 of what is kept.
    std::vector<QosVlArbEntry> many;
    for (unsigned i = 0; i < 40; ++i)
        many.push_back({static_cast<std::uint8_t>(i % 4), static_cast<std::uint8_t>(i + 1)});
    const auto first = daemon::vlarb_block(many, 0, 4, 64);
    const auto second = daemon::vlarb_block(many, 1, 4, 64);
    CHECK(first.entries[31] == mad::VlArbEntry{3, 32});
    CHECK(second.entries[0] == mad::VlArbEntry{0, 33});
    CHECK(second.entries[7] == mad::VlArbEntry{3, 40});
    CHECK(second.entries[8] == mad::VlArbEntry{});
    // A capacity of 32 leaves the second half empty.
    CHECK(daemon::vlarb_block(many, 1, 4, 32) == mad::VlArbitrationTable{});
}
