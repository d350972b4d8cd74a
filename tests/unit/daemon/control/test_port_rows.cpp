#include "daemon/control/port_rows.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using topology::NodeType;
using topology::PortRef;

TEST_CASE("port rows: every cabled port of the snapshot, and its JSON with null where nothing was measured",
          "[control]")
{
    daemon::SubnetSnapshot snap;
    auto& f = snap.found.fabric;
    const auto sw = f.add_node(NodeType::switch_node, Guid(0x10), 4, "leaf 1");
    const auto ca = f.add_node(NodeType::ca, Guid(0x20), 2, "host 1");
    f.connect(PortRef{sw, PortNum(2)}, PortRef{ca, PortNum(1)});
    f.node(sw).port(PortNum(0)).lid = Lid(3);
    f.node(ca).port(PortNum(1)).lid = Lid(4);

    const auto rows = daemon::control::linked_port_rows(snap);
    REQUIRE(rows.size() == 2); // switch port 2 and the CA's port 1; unconnected ports are not listed
    CHECK(rows[0].id == health::PortId{Guid(0x10), PortNum(2)});
    CHECK(rows[0].lid == Lid(3));
    CHECK(rows[0].remote == health::PortId{Guid(0x20), PortNum(1)});
    CHECK(rows[1].id == health::PortId{Guid(0x20), PortNum(1)});
    CHECK(rows[1].lid == Lid(4));
    CHECK(rows[1].node_desc == "host 1");

    auto j = daemon::control::port_row_json(rows[0]);
    CHECK(j["node_guid"] == "0x0000000000000010");
    CHECK(j["node_desc"] == "leaf 1");
    CHECK(j["port"] == 2);
    CHECK(j["state"] == "ok");
    CHECK(j["remote"] == nlohmann::json{{"node_guid", "0x0000000000000020"}, {"port", 1}});
    CHECK(j["counters"].is_null());
    CHECK(j["rates"].is_null());
    CHECK(j["link"].is_null());

    health::PortHealth measured = rows[0];
    health::PortCounters c;
    c.supported[health::index(health::Counter::symbol_errors)] = true;
    c.total[health::index(health::Counter::symbol_errors)] = 12;
    c.delta[health::index(health::Counter::symbol_errors)] = 3;
    c.xmit_bytes_per_s = 2.5e9;
    measured.counters = c;
    measured.state = health::HealthState::reported;
    measured.reasons = {"symbol_errors 3 > 2 per interval"};
    auto m = daemon::control::port_row_json(measured);
    CHECK(m["counters"] == nlohmann::json{{"symbol_errors", {{"total", 12}, {"delta", 3}}}}); // supported ones only
    CHECK(m["rates"]["xmit_bytes_per_s"] == 2.5e9);
    CHECK(m["state"] == "reported");
    CHECK(m["reasons"][0] == "symbol_errors 3 > 2 per interval");
}
