// VLHighLimit a port does not hold: an SMA that answers a PortInfo Set
// without storing it (ibsim's) is recorded after the first Set, warned
// about once per port, asked for what it keeps from then on (no PortInfo
// Set on the next heavy sweep), and the confirmed fabric shows what it
// holds; ports that store the limit get the policy's.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"
#include "../support/log_capture.h"
#include "../support/qos_policies.h"

#include "daemon/sweep/bringup.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using topology::PortRef;

namespace {

// Two bands with VLHighLimit 4 on CA ports and 2 on switch ports.
config::QosConfig high_limit_policy()
{
    config::QosConfig q = test::two_band_policy();
    q.vlarb_switch = config::QosVlArb{{{1, 16}}, {{0, 64}}, 2};
    return q;
}

} // namespace

TEST_CASE("a port that does not hold VLHighLimit is warned about once and not sent the Set again", "[qos][port]")
{
    test::LogCapture log;
    test::TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop{t.f};
    // H2 and S2 drop the field, as ibsim does; H1 and S1 store it.
    loop.fabric.set_drops_vl_high_limit(t.h2);
    loop.fabric.set_drops_vl_high_limit(t.s2);
    auto settings = test::bringup_settings(dir.path, {"minhop"});
    settings.qos = high_limit_policy();
    daemon::Bringup b(loop.transport, settings);

    const auto first = loop.run([&] { return b.sweep(); });
    INFO(first.reason);
    REQUIRE(first.up);
    INFO(log.text());
    CHECK(log.count("port 0x0000000000000300 (H2) port 1 keeps VLHighLimit 0, the policy's 4 is not applied") == 1);
    // S2's external ports (1, 2, 4) keep 0 of the switch table's 2.
    CHECK(log.count("keeps VLHighLimit 0, the policy's 2 is not applied") == 3);
    CHECK(log.count("keeps VLHighLimit") == 4);
    CHECK(loop.fabric.port_info(PortRef{t.h1, PortNum(1)}).vl_high_limit == 4);
    CHECK(loop.fabric.port_info(PortRef{t.s1, PortNum(4)}).vl_high_limit == 2);
    CHECK(loop.fabric.port_info(PortRef{t.h2, PortNum(1)}).vl_high_limit == 0);
    // The confirmed fabric says what the ports hold, never the policy's
    // limit where it was not taken.
    const auto snap = b.snapshot();
    REQUIRE(snap);
    const auto held = [&](Guid node, unsigned port) {
        const auto id = snap->found.fabric.find_node(node);
        REQUIRE(id);
        return snap->found.port_info.at(PortRef{*id, PortNum(static_cast<std::uint8_t>(port))}).vl_high_limit;
    };
    CHECK(held(Guid(0x300), 1) == 0); // H2
    CHECK(held(Guid(0x2000), 4) == 0); // S2
    CHECK(held(Guid(0x200), 1) == 4); // H1
    CHECK(held(Guid(0x1000), 4) == 2); // S1

    // The next heavy sweep sends no PortInfo Set and warns no more.
    loop.fabric.reset_counters();
    const auto second = loop.run([&] { return b.sweep(); });
    REQUIRE(second.up);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::port_info) == 0);
    CHECK(log.count("keeps VLHighLimit") == 4);

    // A reloaded policy with another limit is tried once more (the port
    // may take it now), then settled the same way.
    auto more = high_limit_policy();
    more.vlarb_ca->high_limit = 6;
    settings.qos = more;
    b.reconfigure(settings);
    loop.fabric.reset_counters();
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    CHECK(loop.fabric.port_info(PortRef{t.h1, PortNum(1)}).vl_high_limit == 6);
    CHECK(log.count("port 0x0000000000000300 (H2) port 1 keeps VLHighLimit 0, the policy's 6 is not applied") == 1);
    loop.fabric.reset_counters();
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::port_info) == 0);
}
