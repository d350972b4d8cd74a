#include "health/link_check.h"
#include "mad/link_speed.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::health;
using topology::NodeId;
using topology::PortRef;

namespace {

// An up port of a QDR 4x device with a 4096-byte MTU and 8 VLs, programmed
// to all of it.
mad::PortInfo qdr_4x()
{
    mad::PortInfo pi;
    pi.port_state = mad::PortState::active;
    pi.link_width_supported = 1 | 2;
    pi.link_width_enabled = 1 | 2;
    pi.link_width_active = 2;
    pi.link_speed_supported = 7;
    pi.link_speed_enabled = 7;
    pi.link_speed_active = 4;
    pi.mtu_cap = 5;
    pi.neighbor_mtu = 5;
    pi.vl_cap = 4;
    pi.operational_vls = 4;
    return pi;
}

struct Fixture {
    topology::Fabric f;
    std::map<PortRef, mad::PortInfo> pis;
    NodeId sw1, sw2, ca;

    Fixture()
    {
        sw1 = f.add_node(topology::NodeType::switch_node, Guid(0x100), 4);
        sw2 = f.add_node(topology::NodeType::switch_node, Guid(0x200), 4);
        ca = f.add_node(topology::NodeType::ca, Guid(0x300), 1);
        f.connect({sw1, PortNum(1)}, {sw2, PortNum(1)}); // healthy
        f.connect({sw1, PortNum(2)}, {sw2, PortNum(2)}); // 1x of 4x
        f.connect({sw1, PortNum(3)}, {sw2, PortNum(3)}); // SDR of QDR
        f.connect({sw1, PortNum(4)}, {ca, PortNum(1)});  // MTU 2048 of 4096
        for (auto sw : {sw1, sw2}) {
            pis[{sw, PortNum(0)}] = qdr_4x();
            for (std::uint8_t p = 1; p <= 4; ++p) pis[{sw, PortNum(p)}] = qdr_4x();
        }
        pis[{ca, PortNum(1)}] = qdr_4x();
        for (auto sw : {sw1, sw2}) pis[{sw, PortNum(2)}].link_width_active = 1;
        for (auto sw : {sw1, sw2}) pis[{sw, PortNum(3)}].link_speed_active = 1;
        pis[{ca, PortNum(1)}].neighbor_mtu = 4;
    }
    const LinkCheck& at(NodeId n, std::uint8_t p, const LinkChecks& c) const
    {
        return c.at(PortId{f.node(n).guid, PortNum(p)});
    }
};

} // namespace

TEST_CASE("link check: a 1x link of 4x ends, an SDR link of QDR ends, an MTU mismatch")
{
    Fixture x;
    const auto c = check_links(x.f, x.pis);
    CHECK(c.size() == 8); // both ends of 4 links; no entry for port 0

    const auto& ok = x.at(x.sw1, 1, c);
    CHECK_FALSE(ok.downshifted);
    CHECK(ok.findings.empty());
    CHECK(active_width_name(ok) == "4x");
    CHECK(active_speed_name(ok) == "QDR");
    CHECK(ok.mtu_active == 4096);
    CHECK(ok.vls_active == 8);

    for (auto n : {x.sw1, x.sw2}) {
        const auto& narrow = x.at(n, 2, c);
        CHECK(narrow.downshifted);
        CHECK(narrow.findings == std::vector<std::string>{"width 1x of 4x"});
        const auto& slow = x.at(n, 3, c);
        CHECK(slow.downshifted);
        CHECK(slow.findings == std::vector<std::string>{"speed SDR of QDR"});
        CHECK(possible_speed_name(slow) == "QDR");
    }
    const auto& host = x.at(x.ca, 1, c);
    CHECK_FALSE(host.downshifted);
    CHECK(host.findings == std::vector<std::string>{"MTU 2048 of 4096"});
    CHECK(x.at(x.sw1, 4, c).findings.empty());
}

TEST_CASE("link check: what one end does not enable is not possible")
{
    Fixture x;
    x.pis[{x.sw2, PortNum(2)}].link_width_enabled = 1; // this end allows only 1x
    x.pis[{x.sw2, PortNum(3)}].link_speed_enabled = 1; // and only SDR
    const auto c = check_links(x.f, x.pis);
    CHECK_FALSE(x.at(x.sw1, 2, c).downshifted);
    CHECK(possible_width_name(x.at(x.sw1, 2, c)) == "1x");
    CHECK_FALSE(x.at(x.sw1, 3, c).downshifted);
    CHECK(possible_speed_name(x.at(x.sw1, 3, c)) == "SDR");
}

TEST_CASE("link check: VLs against the smaller VLCap and the SM's own limit; down links skipped")
{
    Fixture x;
    x.pis[{x.sw1, PortNum(1)}].operational_vls = 3; // 4 VLs of 8
    auto c = check_links(x.f, x.pis);
    CHECK(x.at(x.sw1, 1, c).findings == std::vector<std::string>{"VLs 4 of 8"});
    c = check_links(x.f, x.pis, LinkCheckOptions{3}); // the SM programs at most VL0-3
    CHECK(x.at(x.sw1, 1, c).findings.empty());
    CHECK(x.at(x.sw1, 1, c).vls_possible == 4);

    x.pis[{x.sw2, PortNum(2)}].port_state = mad::PortState::down;
    c = check_links(x.f, x.pis);
    CHECK(c.count(PortId{Guid(0x100), PortNum(2)}) == 0);
}

TEST_CASE("link check: a reserved VLCap or MTUCap code on either end claims nothing")
{
    // IBA 14.2.5.6: VLCap and MTUCap 0 and 6..15 are reserved. A reserved
    // code is not "more than 5": 7 against 4 does not make 8 VLs possible.
    for (std::uint8_t code : {std::uint8_t{0}, std::uint8_t{7}}) {
        INFO("code " << unsigned{code});
        Fixture x;
        x.pis[{x.sw1, PortNum(1)}].operational_vls = 3; // 4 VLs of 8: a finding while the caps are known
        x.pis[{x.sw1, PortNum(1)}].neighbor_mtu = 4;    // 2048 of 4096: the same
        x.pis[{x.sw2, PortNum(1)}].vl_cap = code;
        x.pis[{x.sw2, PortNum(1)}].mtu_cap = code;
        auto c = check_links(x.f, x.pis);
        CHECK(x.at(x.sw1, 1, c).vls_possible == 0);
        CHECK(x.at(x.sw1, 1, c).mtu_possible == 0);
        CHECK(x.at(x.sw1, 1, c).findings.empty());
        CHECK(x.at(x.sw2, 1, c).vls_possible == 0);
        x.pis[{x.sw2, PortNum(1)}].vl_cap = 4;
        x.pis[{x.sw2, PortNum(1)}].mtu_cap = 5;
        c = check_links(x.f, x.pis);
        CHECK(x.at(x.sw1, 1, c).findings == std::vector<std::string>{"MTU 2048 of 4096", "VLs 4 of 8"});
    }
}

TEST_CASE("link check: extended speeds count under the switch's port 0 capability mask")
{
    Fixture x;
    for (auto sw : {x.sw1, x.sw2}) {
        auto& p0 = x.pis[{sw, PortNum(0)}];
        p0.capability_mask = mad::cap_is_extended_speeds_supported;
        auto& p = x.pis[{sw, PortNum(1)}];
        p.capability_mask = 0; // external ports: port 0 speaks for them
        p.link_speed_ext_supported = 0xf;
        p.link_speed_ext_enabled = 0xf;
        p.link_speed_ext_active = 4; // HDR where both could do NDR
    }
    auto c = check_links(x.f, x.pis);
    CHECK(x.at(x.sw1, 1, c).downshifted);
    CHECK(x.at(x.sw1, 1, c).findings == std::vector<std::string>{"speed HDR of NDR"});
    for (auto sw : {x.sw1, x.sw2}) x.pis[{sw, PortNum(1)}].link_speed_ext_active = 8;
    c = check_links(x.f, x.pis);
    CHECK_FALSE(x.at(x.sw1, 1, c).downshifted);
    CHECK(active_speed_name(x.at(x.sw1, 1, c)) == "NDR");
}

TEST_CASE("link checks: a table sorted by port, the last of two entries for a port kept")
{
    using health::PortId;
    auto pid = [](std::uint64_t g, std::uint8_t p) { return PortId{Guid(g), PortNum(p)}; };
    std::vector<LinkChecks::value_type> in;
    LinkCheck a, b, c;
    a.vls_active = 1;
    b.vls_active = 2;
    c.vls_active = 3;
    in.emplace_back(pid(0x20, 1), a);
    in.emplace_back(pid(0x10, 2), b);
    in.emplace_back(pid(0x20, 1), c);
    const LinkChecks checks(std::move(in));
    REQUIRE(checks.size() == 2);
    CHECK(checks.begin()->first == pid(0x10, 2));
    CHECK(checks.at(pid(0x20, 1)).vls_active == 3);
    CHECK(checks.count(pid(0x10, 2)) == 1);
    CHECK(checks.find(pid(0x10, 1)) == checks.end());
    CHECK_THROWS_AS(checks.at(pid(0x30, 1)), std::out_of_range);

    LinkChecks made;
    made[pid(0x30, 1)].vls_active = 4;
    made[pid(0x10, 1)].vls_active = 5;
    made[pid(0x30, 1)].vls_active = 6;
    REQUIRE(made.size() == 2);
    CHECK(made.begin()->first == pid(0x10, 1));
    CHECK(made.at(pid(0x30, 1)).vls_active == 6);
}
