#include "health/port_health_json.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::health;

namespace {

PortHealth sample()
{
    PortHealth r;
    r.id = PortId{Guid(0x0002c90300001234), PortNum(7)};
    r.node_desc = "leaf 3";
    r.node_name = "rack1-leaf-3";
    r.remote = PortId{Guid(0x0002c903000abcde), PortNum(1)};
    r.lid = Lid(12);
    PortCounters c;
    c.supported.fill(true);
    c.supported[index(Counter::xmit_wait)] = false;
    c.total[index(Counter::symbol_errors)] = 1234;
    c.delta[index(Counter::symbol_errors)] = 34;
    c.total[index(Counter::xmit_data)] = 0xffffffffffffull;
    c.extended = true;
    c.interval_s = 60;
    c.xmit_bytes_per_s = 1.5e9;
    c.rcv_bytes_per_s = 2.5e8;
    c.xmit_pkts_per_s = 1000;
    c.rcv_pkts_per_s = 500;
    c.xmit_wait_share = 0.25;
    c.reads = 4;
    c.resets_seen = 1;
    c.failures = 2;
    c.failure_history = 0b101;
    c.last_read = 1700000000.5;
    r.counters = c;
    LinkCheck l;
    l.downshifted = true;
    l.width_active = 1;   // 1x
    l.width_possible = 2; // 4x
    l.speed_active = mad::LaneSpeed::ndr;
    l.speed_possible = mad::LaneSpeed::ndr;
    l.mtu_active = 2048;
    l.mtu_possible = 4096;
    l.vls_active = 4;
    l.vls_possible = 8;
    l.findings = {"width 1x of 4x", "MTU 2048 of 4096"};
    r.link = l;
    r.state = HealthState::isolation_refused;
    r.reasons = {"symbol_errors 34 > 10 in 60 s"};
    r.link_downs_recent = 3;
    r.since = 1700000001;
    return r;
}

bool same(const PortHealth& a, const PortHealth& b)
{
    const auto& x = *a.counters;
    const auto& y = *b.counters;
    return a.id == b.id && a.node_desc == b.node_desc && a.node_name == b.node_name && a.remote == b.remote && a.lid == b.lid &&
           a.state == b.state && a.reasons == b.reasons && a.link_downs_recent == b.link_downs_recent &&
           a.since == b.since && x.total == y.total && x.delta == y.delta && x.supported == y.supported &&
           x.extended == y.extended && x.interval_s == y.interval_s && x.xmit_bytes_per_s == y.xmit_bytes_per_s &&
           x.rcv_bytes_per_s == y.rcv_bytes_per_s && x.xmit_pkts_per_s == y.xmit_pkts_per_s &&
           x.rcv_pkts_per_s == y.rcv_pkts_per_s && x.xmit_wait_share == y.xmit_wait_share && x.reads == y.reads &&
           x.resets_seen == y.resets_seen && x.failures == y.failures && x.failure_history == y.failure_history &&
           x.last_read == y.last_read &&
           a.link->downshifted == b.link->downshifted && a.link->findings == b.link->findings &&
           a.link->width_active == b.link->width_active && a.link->width_possible == b.link->width_possible &&
           a.link->speed_active == b.link->speed_active && a.link->speed_possible == b.link->speed_possible &&
           a.link->mtu_active == b.link->mtu_active && a.link->mtu_possible == b.link->mtu_possible &&
           a.link->vls_active == b.link->vls_active && a.link->vls_possible == b.link->vls_possible;
}

std::string error_of(const std::string& text)
{
    try {
        parse_ports_json(text);
    } catch (const HealthJsonError& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("port health JSON: the documented keys, snake_case counters, unsupported ones left out")
{
    const auto j = to_json(sample());
    CHECK(j["node_guid"] == "0x0002c90300001234");
    CHECK(j["port"] == 7);
    CHECK(j["state"] == "isolation-refused");
    CHECK(j["counters"]["symbol_errors"]["total"] == 1234);
    CHECK(j["counters"]["symbol_errors"]["delta"] == 34);
    CHECK_FALSE(j["counters"].contains("xmit_wait"));
    CHECK(j["rates"]["xmit_wait_share"] == 0.25);
    CHECK(j["link"]["width_active"] == "1x");
    CHECK(j["remote"]["port"] == 1);

    PortHealth bare;
    bare.id = PortId{Guid(1), PortNum(1)};
    const auto b = to_json(bare);
    CHECK_FALSE(b.contains("counters"));
    CHECK_FALSE(b.contains("link"));
    CHECK_FALSE(b.contains("remote"));
}

TEST_CASE("port health JSON: a document round-trips through its text")
{
    PortHealth bare;
    bare.id = PortId{Guid(0xffffffffffffffff), PortNum(254)};
    const auto text = ports_to_json({sample(), bare}).dump();
    const auto back = parse_ports_json(text);
    REQUIRE(back.size() == 2);
    CHECK(same(back[0], sample()));
    CHECK(back[1].id == bare.id);
    CHECK_FALSE(back[1].counters);
    CHECK_FALSE(back[1].link);
    CHECK_FALSE(back[1].remote);
}

TEST_CASE("port health JSON: errors name the path of the bad value")
{
    CHECK(error_of("{\"ports\": [").rfind("not JSON", 0) == 0);
    CHECK(error_of("[]") == "document: expected an object");
    CHECK(error_of("{}") == "document.ports: missing");
    CHECK(error_of(R"({"ports": {}})") == "ports: expected a list");
    CHECK(error_of(R"({"ports": [{"port": 1}]})") == "ports[0].node_guid: missing");
    CHECK(error_of(R"({"ports": [{"node_guid": "12g", "port": 1}]})") ==
          "ports[0].node_guid: expected a GUID as \"0x\" and up to 16 hex digits, got \"12g\"");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 300}]})") == "ports[0].port: above 254");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1}, {"node_guid": "0x1", "port": -1}]})") ==
          "ports[1].port: expected an unsigned integer");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "state": "sick"}]})") ==
          "ports[0].state: unknown state \"sick\" (ok, reported, isolated, isolation-refused)");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "counters": {"SymbolErrorCounter": {"total": 1}}}]})") ==
          "ports[0].counters.SymbolErrorCounter: unknown counter");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "counters": {"symbol_errors": {"total": "7"}}}]})") ==
          "ports[0].counters.symbol_errors.total: expected an unsigned integer");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "rates": {"xmit_bytes_per_s": true}}]})") ==
          "ports[0].rates.xmit_bytes_per_s: expected a number");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "link": {"findings": "slow"}}]})") ==
          "ports[0].link.findings: expected a list of strings");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "link": {"width_active": "3x"}}]})") ==
          "ports[0].link.width_active: expected a link width (1x, 2x, 4x, 8x, 12x), got \"3x\"");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "link": {"speed_possible": "fast"}}]})") ==
          "ports[0].link.speed_possible: expected a lane speed (SDR .. XDR), got \"fast\"");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "link": {"vls_active": 16}}]})") ==
          "ports[0].link.vls_active: above 15");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "remote": {"node_guid": "0x2"}}]})") ==
          "ports[0].remote.port: missing");
    CHECK(error_of(R"({"ports": [{"node_guid": "0x1", "port": 1, "future_key": 1}]})") == "no error");
}
