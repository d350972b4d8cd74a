// The report's health overlay (report/health_overlay.h): health rows matched
// to cables by node GUID and port, utilisation from the rates over the
// capacity the link's width and speed give, errors of both ends summed, a
// downshift and an isolation carried to the cable and its bundle, rows off
// the topology counted, the worst cables first; and the utilisation scale.
#include "report/colour.h"
#include "report/health_overlay.h"

#include "tests/unit/report/fabric_model.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::report;
using health::Counter;
using health::HealthState;
using health::PortHealth;

namespace {

// 8 hosts on 4 leaves, 2 spines; every cable 4x HDR (50 Gb/s a lane: 200
// Gb/s, 25 GB/s each way).
topology::Fabric hdr_tree()
{
    topology::PgftParams p;
    p.m = {2, 4};
    p.w = {1, 2};
    p.p = {1, 1};
    topology::Fabric f = topology::generate_pgft(p);
    for (auto id : f.node_ids())
        for (auto& port : f.node(id).ports) {
            port.link_width_active = 2;
            port.link_speed_active = 4;
            port.link_speed_ext_active = 4;
        }
    return f;
}

// The switch-to-switch cables, in fabric order.
std::vector<topology::Link> uplinks(const topology::Fabric& f)
{
    std::vector<topology::Link> out;
    for (const auto& l : f.links())
        if (f.node(l.a.node).is_switch() && f.node(l.b.node).is_switch()) out.push_back(l);
    return out;
}

PortHealth row_at(const topology::Fabric& f, topology::PortRef p)
{
    PortHealth r;
    r.id = {f.node(p.node).guid, p.port};
    r.node_desc = f.node(p.node).description;
    return r;
}

health::PortCounters polled(double xmit, double rcv)
{
    health::PortCounters c;
    c.interval_s = 60;
    c.reads = 2;
    c.xmit_bytes_per_s = xmit;
    c.rcv_bytes_per_s = rcv;
    return c;
}

const CableHealth& cable_of(const Model& m, const topology::Fabric& f, const topology::Link& l)
{
    const Guid ga = f.node(l.a.node).guid, gb = f.node(l.b.node).guid;
    for (const CableHealth& c : m.health->cables)
        if ((c.guid_a == ga && c.port_a == l.a.port.value() && c.guid_b == gb) ||
            (c.guid_b == ga && c.port_b == l.a.port.value() && c.guid_a == gb))
            return c;
    FAIL("no cable health for the cable");
    throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("link capacity: lanes times the lane data rate", "[report][health]")
{
    CHECK(link_capacity_bytes_per_s(2, 4, 4, 0) == Approx(25e9));  // 4x HDR: 200 Gb/s
    CHECK(link_capacity_bytes_per_s(1, 4, 8, 0) == Approx(12.5e9)); // 1x NDR: 100 Gb/s
    CHECK(link_capacity_bytes_per_s(2, 1, 0, 0) == Approx(1.25e9)); // 4x SDR: 10 Gb/s
    CHECK(link_capacity_bytes_per_s(0, 4, 4, 0) == 0);              // width unknown
    CHECK(link_capacity_bytes_per_s(2, 0, 0, 0) == 0);              // speed unknown
}

TEST_CASE("health overlay: utilisation, errors, downshift, isolation per cable and bundle", "[report][health]")
{
    topology::Fabric f = hdr_tree();
    Model m = test::model_of_fabric(f);
    const auto up = uplinks(f);
    REQUIRE(up.size() == 8);

    std::vector<PortHealth> rows;
    // Cable 0: 50 % one way (a transmits 12.5 GB/s; b's receive says less),
    // errors at both ends.
    PortHealth a0 = row_at(f, up[0].a), b0 = row_at(f, up[0].b);
    auto ac = polled(12.5e9, 1e9);
    ac.delta[index(Counter::symbol_errors)] = 3;
    ac.total[index(Counter::symbol_errors)] = 10;
    a0.counters = ac;
    auto bc = polled(2e9, 10e9);
    bc.delta[index(Counter::link_downed)] = 1;
    bc.total[index(Counter::link_downed)] = 2;
    // Traffic is not an error.
    bc.delta[index(Counter::xmit_data)] = 1000;
    b0.counters = bc;
    rows.push_back(a0);
    rows.push_back(b0);
    // Cable 1: one end checked, downshifted; no counters.
    PortHealth b1 = row_at(f, up[1].b);
    health::LinkCheck slow;
    slow.downshifted = true;
    slow.findings = {"width 1x of 4x"};
    b1.link = slow;
    rows.push_back(b1);
    // Cable 2: isolated by the policy.
    PortHealth a2 = row_at(f, up[2].a);
    a2.state = HealthState::isolated;
    a2.reasons = {"flapping: 5 link downs in 30 s"};
    rows.push_back(a2);
    // Rows the topology does not have: an unknown node, a port beyond the switch.
    PortHealth gone;
    gone.id = {Guid(0xdead), PortNum(1)};
    rows.push_back(gone);
    PortHealth beyond = row_at(f, up[0].a);
    beyond.id.port = PortNum(40);
    rows.push_back(beyond);

    add_health(m, f, rows, "ports.json");
    REQUIRE(m.health);
    const HealthOverlay& h = *m.health;
    CHECK(h.source == "ports.json");
    CHECK(h.rows == 6);
    CHECK(h.matched == 4);
    REQUIRE(h.unmatched.size() == 2);
    CHECK(h.unmatched[0] == Guid(0xdead).str() + "[1]");
    CHECK(h.unmatched[1] == f.node(up[0].a.node).guid.str() + "[40]");
    CHECK(h.cables.size() == 3);

    const CableHealth& c0 = cable_of(m, f, up[0]);
    CHECK(c0.width == "4x");
    CHECK(c0.speed == "HDR");
    CHECK(c0.capacity_bytes_per_s == Approx(25e9));
    CHECK(c0.measured);
    REQUIRE(c0.utilisation);
    CHECK(*c0.utilisation == Approx(0.5));
    CHECK(std::max(c0.bytes_ab, c0.bytes_ba) == Approx(12.5e9));
    CHECK(std::min(c0.bytes_ab, c0.bytes_ba) == Approx(2e9)); // b's transmit beats a's receive
    CHECK(c0.errors_delta == 4);
    CHECK(c0.errors_total == 12);
    CHECK_FALSE(c0.downshifted);
    CHECK(c0.state == HealthState::ok);

    const CableHealth& c1 = cable_of(m, f, up[1]);
    CHECK(c1.downshifted);
    CHECK_FALSE(c1.measured);
    CHECK_FALSE(c1.utilisation);
    CHECK(c1.findings == std::vector<std::string>{"width 1x of 4x"});

    const CableHealth& c2 = cable_of(m, f, up[2]);
    CHECK(c2.state == HealthState::isolated);
    REQUIRE(c2.findings.size() == 1);
    CHECK(c2.findings[0].find("flapping: 5 link downs in 30 s") != std::string::npos);
    CHECK(c2.findings[0].find("[" + std::to_string(up[2].a.port.value()) + "]") != std::string::npos);

    // Each cable is on its bundle, oriented as the bundle.
    std::size_t with_health = 0;
    for (const Link& l : m.links) {
        if (!l.health) continue;
        ++with_health;
        REQUIRE(l.health->cables.size() == 1);
        const CableHealth& c = h.cables[l.health->cables[0]];
        REQUIRE(c.link);
        CHECK(&m.links[*c.link] == &l);
        CHECK(c.guid_a == m.nodes[l.a].guid);
        CHECK(c.guid_b == m.nodes[l.b].guid);
        CHECK(l.health->utilisation == c.utilisation);
        CHECK(l.health->errors_delta == c.errors_delta);
        CHECK(l.health->downshifted == c.downshifted);
        CHECK(l.health->isolated() == (c.state == HealthState::isolated));
    }
    CHECK(with_health == 3);

    // Worst first: the isolated cable, then the errors, then the downshift.
    const auto worst = h.worst();
    REQUIRE(worst.size() == 3);
    CHECK(&h.cables[worst[0]] == &c2);
    CHECK(&h.cables[worst[1]] == &c0);
    CHECK(&h.cables[worst[2]] == &c1);
    REQUIRE(h.busiest());
    CHECK(&h.cables[*h.busiest()] == &c0);
}

TEST_CASE("health overlay: no capacity without width and speed; folded hosts' cables kept", "[report][health]")
{
    topology::Fabric f = hdr_tree();
    const auto up = uplinks(f);
    for (auto end : {up[0].a, up[0].b}) f.port(end).link_width_active = 0;
    // A host cable, hosts folded: not drawn, still listed.
    topology::Link host_cable{};
    for (const auto& l : f.links())
        if (!f.node(l.a.node).is_switch() || !f.node(l.b.node).is_switch()) {
            host_cable = l;
            break;
        }
    Model m = test::model_of_fabric(f, {.rank = true, .fold_hosts = true});
    PortHealth a = row_at(f, up[0].a);
    a.counters = polled(1e9, 1e9);
    PortHealth h = row_at(f, host_cable.a);
    auto host_counters = polled(0, 0);
    host_counters.delta[index(Counter::rcv_errors)] = 7;
    h.counters = host_counters;
    add_health(m, f, {a, h}, "x");

    const CableHealth& c = cable_of(m, f, up[0]);
    CHECK(c.measured);
    CHECK(c.capacity_bytes_per_s == 0);
    CHECK_FALSE(c.utilisation);
    const CableHealth& hc = cable_of(m, f, host_cable);
    CHECK_FALSE(hc.link);
    CHECK(hc.errors_delta == 7);
    CHECK(m.health->worst().size() == 1);
}

TEST_CASE("utilisation colour: a fixed scale, blue idle to red full", "[report][health][colour]")
{
    CHECK(utilisation_colour(0) == "#4575b4");
    CHECK(utilisation_colour(1) == "#d73027");
    CHECK(utilisation_colour(2.5) == utilisation_colour(1)); // counters above capacity clamp
    CHECK(utilisation_colour(-1) == utilisation_colour(0));
    CHECK(utilisation_colour(0.5) != utilisation_colour(0.25));
    CHECK(utilisation_colour(0.5) != utilisation_colour(0.75));
}
