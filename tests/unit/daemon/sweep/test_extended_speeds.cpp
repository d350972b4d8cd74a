// NDR and XDR links over the fake fabric: their switches answer the
// LinkSpeedExt fields only to PortInfo requests carrying AttributeModifier
// bit 31 (SMSupportExtendedSpeeds), so the SM must set it wherever the
// capability mask says so, re-read a port whose first read went without it,
// and add no SMP where no port supports extended speeds.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "daemon/sweep/discovery.h"
#include "daemon/sweep/sweep_report.h"
#include "mad/link_speed.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using test::bringup_settings;
using test::FakeSpeed;
using test::QuietLogs;
using test::TempDir;
using test::TwoSwitches;
using topology::PortRef;

namespace {

// Discovery numbers nodes in the order it meets them: the port of the
// fake's node `n`, by GUID.
struct Found {
    const daemon::DiscoveryResult& found;
    const topology::Fabric& built;
    PortRef operator()(topology::NodeId n, unsigned port) const
    {
        return PortRef{*found.fabric.find_node(built.node(n).guid), PortNum(static_cast<std::uint8_t>(port))};
    }
};

mad::LaneSpeed active(const daemon::DiscoveryResult& found, PortRef p)
{
    const auto& pi = found.port_info.at(p);
    return mad::active_speed(pi.link_speed_active, pi.link_speed_ext_active, pi.link_speed_ext_active2);
}

const health::LinkCheck& check_of(const daemon::SubnetSnapshot& s, PortRef p)
{
    return s.link_checks.at(health::PortId{s.found.fabric.node(p.node).guid, p.port});
}

} // namespace

TEST_CASE("discovery with NDR switches: every PortInfo Get carries bit 31, none is asked twice", "[fake]")
{
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    loop.fabric.set_speed(t.s1, FakeSpeed::ndr);
    loop.fabric.set_speed(t.s2, FakeSpeed::ndr);
    loop.fabric.set_speed(t.h2, FakeSpeed::ndr);
    auto found = loop.run([&] { return daemon::discover(loop.transport); });
    REQUIRE(found.complete());
    const Found at{found, t.f};

    CHECK(active(found, at(t.s1, 4)) == mad::LaneSpeed::ndr); // switch to switch
    CHECK(active(found, at(t.s2, 4)) == mad::LaneSpeed::ndr);
    CHECK(active(found, at(t.s2, 1)) == mad::LaneSpeed::ndr); // to the NDR host
    CHECK(active(found, at(t.h2, 1)) == mad::LaneSpeed::ndr);
    CHECK(active(found, at(t.s1, 1)) == mad::LaneSpeed::qdr); // to a QDR host
    CHECK(found.fabric.port(at(t.s1, 4)).link_speed_ext_active == 8);
    const auto& pi = found.port_info.at(at(t.s1, 4));
    CHECK(pi.link_speed_ext_supported == 0xf);
    CHECK(mad::port_speeds(pi, found.port_info.at(at(t.s1, 0)).capability_mask, 0).speeds_supported &
          mad::speed_bit(mad::LaneSpeed::ndr));

    // TwoSwitches costs 4 + 2 x 5 PortInfo Gets, extended speeds or not.
    CHECK(loop.fabric.counters().count(mad::Method::get, mad::attr::port_info) == 4 + 2 * 5);
}

TEST_CASE("a device older than bit 31 is asked again without it, once per node, and configured", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    loop.fabric.set_plain_port_info(t.s2);
    loop.fabric.set_plain_port_info(t.h1);
    auto found = loop.run([&] { return daemon::discover(loop.transport); });
    REQUIRE(found.complete());
    CHECK(found.plain_port_info == std::set<Guid>{t.f.node(t.s2).guid, t.f.node(t.h1).guid});
    // The first Get of each such node is refused and asked again; its
    // other ports may have been asked with the bit at once too (all of a
    // switch's ports go out together), but never twice after that.
    const auto gets = loop.fabric.counters().count(mad::Method::get, mad::attr::port_info);
    CHECK(gets > 4 + 2 * 5);
    CHECK(gets <= 4 + 2 * 5 + 5 + 1);
    const Found at{found, t.f};
    CHECK(daemon::port_info_attr_mod(found, at(t.s2, 3)) == 3);
    CHECK(daemon::port_info_attr_mod(found, at(t.s1, 3)) == (3u | 0x80000000u));

    // The bring-up's Sets and read-backs to those nodes go without the bit
    // and are confirmed.
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    const auto outcome = loop.run([&] { return b.sweep(); });
    INFO(outcome.reason);
    CHECK(outcome.up);
}

TEST_CASE("XDR switches: XDR between them, NDR to an NDR host, QDR to a plain one", "[fake]")
{
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    loop.fabric.set_speed(t.s1, FakeSpeed::xdr);
    loop.fabric.set_speed(t.s2, FakeSpeed::xdr);
    loop.fabric.set_speed(t.h2, FakeSpeed::ndr);
    auto found = loop.run([&] { return daemon::discover(loop.transport); });
    REQUIRE(found.complete());
    const Found at{found, t.f};
    CHECK(active(found, at(t.s1, 4)) == mad::LaneSpeed::xdr);
    CHECK(found.fabric.port(at(t.s2, 4)).link_speed_ext_active2 == 1);
    CHECK(active(found, at(t.s2, 1)) == mad::LaneSpeed::ndr);
    CHECK(active(found, at(t.s2, 2)) == mad::LaneSpeed::qdr);
    CHECK(mad::rate_code(found.fabric.port(at(t.s1, 4)).link_width_active,
                         active(found, at(t.s1, 4))) == std::uint8_t{23}); // 4x XDR: 800 Gb/s
}

TEST_CASE("a bring-up of an NDR fabric is confirmed, checks its links, and a second sweep sends no Set", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    loop.fabric.set_speed(t.s1, FakeSpeed::ndr);
    loop.fabric.set_speed(t.s2, FakeSpeed::ndr);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    const auto outcome = loop.run([&] { return b.sweep(); });
    INFO(outcome.reason);
    REQUIRE(outcome.up);
    const auto snap = b.snapshot();
    REQUIRE(snap);
    const Found at{snap->found, t.f};
    CHECK(snap->link_checks.size() == 2 * 5);
    const auto& isl = check_of(*snap, at(t.s1, 4));
    CHECK(health::active_speed_name(isl) == "NDR");
    CHECK(health::possible_speed_name(isl) == "NDR");
    CHECK_FALSE(isl.downshifted);
    CHECK(health::active_speed_name(check_of(*snap, at(t.s1, 1))) == "QDR");
    for (const auto& [id, c] : snap->link_checks) {
        INFO(id.node.str() << " " << int(id.port.value()));
        CHECK(c.findings.empty());
    }
    // The PortInfo Sets carried bit 31, so their answers matched what was
    // asked and nothing is left to send.
    loop.fabric.reset_counters();
    const auto again = loop.run([&] { return b.sweep(); });
    CHECK(again.up);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::port_info) == 0);
    CHECK(loop.fabric.counters().total() == 28);
}

TEST_CASE("link check log: one summary, a bounded warning per link with findings")
{
    TwoSwitches t;
    health::LinkChecks checks;
    health::LinkCheck narrow;
    narrow.downshifted = true;
    narrow.findings = {"width 1x of 4x"};
    checks[{Guid(0x1000), PortNum(4)}] = narrow;
    checks[{Guid(0x2000), PortNum(4)}] = narrow;
    health::LinkCheck mtu;
    mtu.findings = {"MTU 2048 of 4096"};
    checks[{Guid(0x1000), PortNum(1)}] = mtu;
    checks[{Guid(0x100), PortNum(1)}] = health::LinkCheck{};
    checks[{Guid(0x2000), PortNum(1)}] = health::LinkCheck{};
    auto log = daemon::link_check_log(t.f, checks);
    CHECK(log.summary.rfind("link check: 3 links, 1 downshifted, 1 with MTU/VLs below their ends': first ", 0) == 0);
    // In PortId order: H0's link (its far end S1 port 1 has the MTU
    // finding), then S1 - S2.
    REQUIRE(log.warnings.size() == 2);
    CHECK(log.warnings[0] == "0x0000000000000100 (H0) port 1 - 0x0000000000001000 (S1) port 1: MTU 2048 of 4096");
    CHECK(log.warnings[1] == "0x0000000000001000 (S1) port 4 - 0x0000000000002000 (S2) port 4: width 1x of 4x");
    log = daemon::link_check_log(t.f, checks, 1);
    REQUIRE(log.warnings.size() == 2);
    CHECK(log.warnings[1] == "... and 1 more link(s) with findings");
}
