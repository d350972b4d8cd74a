// What a configure() hands the next snapshot (confirmed_state.h): the
// PortInfo and SwitchInfo the Sets confirmed, and the reason a subnet whose
// Sets were not all confirmed is not up.
#include "../support/one_switch.h"

#include "daemon/sweep/confirmed_state.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using ibsm::test::OneSwitch;
using topology::NodeId;
using topology::PortRef;

namespace {

// OneSwitch plus a second switch the routing has no table for, both with
// PortStateChange set as a link event leaves it; and a plan for the CA port
// whose SetResp echoed SubnetTimeOut 31 (as ibsim's does) where 18 was sent.
struct Programmed {
    OneSwitch s{0};
    NodeId other;
    PortRef ca{NodeId{0}, PortNum(1)};
    std::vector<daemon::PortPlanEntry> plan;
    lidassign::LidMap lids;

    Programmed()
    {
        auto& f = s.found.fabric;
        other = f.add_node(topology::NodeType::switch_node, Guid(0x300), 4);
        f.connect({s.sw, PortNum(2)}, {other, PortNum(1)});
        s.found.paths.push_back(DrPath{}.extended(PortNum(1)).extended(PortNum(2)));
        s.found.switch_info[s.sw].port_state_change = true;
        mad::SwitchInfo si;
        si.linear_fdb_top = 7;
        si.life_time_value = 3;
        si.port_state_change = true;
        s.found.switch_info[other] = si;

        daemon::PortPlanEntry e;
        e.port = ca;
        e.current.port_state = mad::PortState::active;
        e.current.port_phys_state = 5;
        e.current.link_down_default_state = 2;
        e.current.lid = Lid(9);
        e.current.lmc = 0;
        e.current.subnet_timeout = 31;
        e.desired = e.current;
        e.desired.port_state = mad::PortState::no_change;
        e.desired.port_phys_state = 0;
        e.desired.link_down_default_state = 0;
        e.desired.lid = Lid(4);
        e.desired.lmc = 1;
        e.desired.subnet_timeout = 18;
        plan.push_back(e);
        s.found.port_info[ca] = e.current;
        s.found.port_info[{s.sw, PortNum(1)}].subnet_timeout = 5; // not in the plan
        lids.assign({s.sw, PortNum(0)}, Lid(2), 0);
    }

    daemon::DiscoveryResult held(bool all_confirmed, const daemon::LftReport& lfts = {}) const
    {
        return daemon::confirmed_fabric(s.found, plan, all_confirmed, lfts, s.tables, 21, lids);
    }
};

daemon::LftReport lfts_unconfirmed()
{
    daemon::LftReport r;
    r.blocks_dirty = 1;
    return r;
}

} // namespace

TEST_CASE("every Set confirmed: the ports hold the desired PortInfo, link states as last read", "[confirmed]")
{
    Programmed p;
    const auto held = p.held(true);
    const auto& pi = held.port_info.at(p.ca);
    CHECK(pi.subnet_timeout == 18); // what was sent, not the echo
    CHECK(pi.lid == Lid(4));
    CHECK(pi.lmc == 1);
    CHECK(pi.port_state == mad::PortState::active);
    CHECK(pi.port_phys_state == 5);
    CHECK(pi.link_down_default_state == 2);
    // A port outside the plan keeps what discovery read.
    CHECK(held.port_info.at({p.s.sw, PortNum(1)}).subnet_timeout == 5);
    // The fabric's port: state and LID/LMC as last read, except where the
    // assignment puts a LID (a switch's on every port).
    const auto& port = held.fabric.port(p.ca);
    CHECK(port.state == topology::PortState::active);
    CHECK(port.lid == Lid(9));
    CHECK(held.fabric.port({p.s.sw, PortNum(3)}).lid == Lid(2));
    CHECK(held.fabric.port({p.other, PortNum(1)}).lid == Lid());
}

TEST_CASE("a Set unanswered: the ports hold what they last answered", "[confirmed]")
{
    Programmed p;
    const auto held = p.held(false);
    CHECK(held.port_info.at(p.ca) == p.plan.front().current);
    CHECK(held.fabric.port(p.ca).state == topology::PortState::active);
    // The LFTs did confirm: their SwitchInfo is taken as set.
    CHECK(held.switch_info.at(p.s.sw).linear_fdb_top == 130);
}

TEST_CASE("a Set's answer replaces what discovery read, a port no Set reached keeps it", "[confirmed]")
{
    Programmed p;
    auto& e = p.plan.front();
    const auto discovered = e.current;
    e.current.port_state = mad::PortState::armed; // what the Set's answer said
    e.answered = true;
    auto held = p.held(false);
    CHECK(held.port_info.at(p.ca).port_state == mad::PortState::armed);
    CHECK(held.fabric.port(p.ca).state == topology::PortState::armed);
    // Unanswered: `current` is what discovery read, and the map keeps it.
    e.current = discovered;
    e.answered = false;
    held = p.held(false);
    CHECK(held.port_info.at(p.ca) == discovered);
}

TEST_CASE("SwitchInfo: LinearFDBTop and LifeTimeValue only when every LFT block and SwitchInfo Set confirmed",
          "[confirmed]")
{
    Programmed p;
    SECTION("complete")
    {
        const auto held = p.held(true);
        const auto& routed = held.switch_info.at(p.s.sw);
        CHECK(routed.linear_fdb_top == 130);
        CHECK(routed.life_time_value == 21);
        CHECK_FALSE(routed.port_state_change);
        // A switch without a table: PortStateChange cleared, the rest as read.
        const auto& unrouted = held.switch_info.at(p.other);
        CHECK_FALSE(unrouted.port_state_change);
        CHECK(unrouted.linear_fdb_top == 7);
        CHECK(unrouted.life_time_value == 3);
    }
    SECTION("a block dirty")
    {
        const auto held = p.held(false, lfts_unconfirmed());
        CHECK(held.switch_info.at(p.s.sw) == p.s.found.switch_info.at(p.s.sw));
        CHECK(held.switch_info.at(p.other) == p.s.found.switch_info.at(p.other));
    }
    SECTION("a SwitchInfo Set failed")
    {
        daemon::LftReport lfts;
        lfts.switch_info_failed = 1;
        const auto held = p.held(true, lfts);
        CHECK(held.switch_info.at(p.s.sw).linear_fdb_top == 0);
        CHECK(held.switch_info.at(p.s.sw).port_state_change);
    }
}

TEST_CASE("the reason a subnet is not up names the first stage that left a Set unconfirmed", "[confirmed]")
{
    daemon::ProgramReport prog;
    daemon::PortReport act;
    CHECK_FALSE(daemon::unconfirmed_reason(prog, act));

    act.failed = 2;
    CHECK(daemon::unconfirmed_reason(prog, act) == "2 port activation Set(s) failed");
    prog.pkeys.blocks_dirty = 3;
    CHECK(daemon::unconfirmed_reason(prog, act) == "3 P_Key table block(s) not confirmed");
    prog.ports.failed = 4;
    CHECK(daemon::unconfirmed_reason(prog, act) == "4 PortInfo Set(s) failed");
    prog.vls.failed = 5;
    CHECK(daemon::unconfirmed_reason(prog, act) == "5 SL2VL/VLArb table(s) not confirmed");
    prog.lfts.switch_info_failed = 1;
    CHECK(daemon::unconfirmed_reason(prog, act) == "0 LFT block(s) and 1 SwitchInfo Set(s) not confirmed");
    prog.lfts.blocks_dirty = 6;
    CHECK(daemon::unconfirmed_reason(prog, act) == "6 LFT block(s) and 1 SwitchInfo Set(s) not confirmed");
}
