// The PortInfo the port programmer wants for each port.
#include "../support/one_switch.h"

#include "daemon/program/port_programmer.h"
#include "mad/port_info.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using ibsm::test::OneSwitch;

TEST_CASE("desired PortInfo: LID and subnet fields on CA ports, link fields from both ends, commands cleared", "[port]")
{
    OneSwitch s(0);
    const topology::PortRef ca{topology::NodeId{0}, PortNum(1)};
    const topology::PortRef swp{s.sw, PortNum(1)};
    mad::PortInfo ca_pi;
    ca_pi.port_state = mad::PortState::init;
    ca_pi.port_phys_state = 5;
    ca_pi.mtu_cap = 4;
    ca_pi.vl_cap = 4;
    mad::PortInfo sw_pi = ca_pi;
    sw_pi.mtu_cap = 3;
    sw_pi.vl_cap = 3;
    s.found.port_info[ca] = ca_pi;
    s.found.port_info[swp] = sw_pi;
    lidassign::LidMap lids;
    lids.assign(ca, Lid(4), 2);
    daemon::PortSettings settings;
    settings.max_operational_vls = 4;

    auto d = daemon::desired_port_info(s.found, lids, Lid(4), settings, ca, ca_pi);
    CHECK(d.lid == Lid(4));
    CHECK(d.lmc == 2);
    CHECK(d.master_sm_lid == Lid(4));
    CHECK(d.gid_prefix == settings.subnet_prefix);
    CHECK(d.subnet_timeout == settings.subnet_timeout);
    CHECK(d.neighbor_mtu == 3);
    CHECK(d.operational_vls == 3);
    CHECK(d.port_state == mad::PortState::no_change);
    CHECK(d.port_phys_state == 0);

    auto e = daemon::desired_port_info(s.found, lids, Lid(4), settings, swp, sw_pi);
    CHECK(e.lid == Lid()); // switch external port: no LID
    CHECK(e.operational_vls == 3);

    settings.max_operational_vls = 1;
    auto capped = daemon::desired_port_info(s.found, lids, Lid(4), settings, ca, ca_pi);
    CHECK(capped.operational_vls == 1);
}
