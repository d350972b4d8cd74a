// The fabric as a sweep found it: the DR path a port's PortInfo takes, whose
// CapabilityMask speaks for a port, and the AttributeModifier of a PortInfo
// SMP (SMSupportExtendedSpeeds unless the node is older than the bit).
#include "daemon/core/fabric_state.h"

#include "mad/link_speed.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using topology::PortRef;

namespace {

//   H0 (SM) -[1] S1 [3]- H1 [1]
//                   [4]- H2 [1], H2 [2] -[1] H3 (two CAs back to back)
struct Found {
    daemon::DiscoveryResult r;
    topology::NodeId h0, h1, h2, h3, s1;

    Found()
    {
        using topology::NodeType;
        auto& f = r.fabric;
        h0 = f.add_node(NodeType::ca, Guid(0x100), 1);
        s1 = f.add_node(NodeType::switch_node, Guid(0x1000), 4);
        h1 = f.add_node(NodeType::ca, Guid(0x200), 1);
        h2 = f.add_node(NodeType::ca, Guid(0x300), 2);
        h3 = f.add_node(NodeType::ca, Guid(0x400), 1);
        f.connect({h0, PortNum(1)}, {s1, PortNum(1)});
        f.connect({h1, PortNum(1)}, {s1, PortNum(3)});
        f.connect({h2, PortNum(1)}, {s1, PortNum(4)});
        f.connect({h2, PortNum(2)}, {h3, PortNum(1)});
        const DrPath to_s1 = DrPath{}.extended(PortNum(1));
        r.paths = {DrPath{}, to_s1, to_s1.extended(PortNum(3)), to_s1.extended(PortNum(4)),
                   to_s1.extended(PortNum(4)).extended(PortNum(2))};
        r.sm_port = {h0, PortNum(1)};
    }
};

} // namespace

TEST_CASE("path_to_port: the SM's port locally, a CA port through the switch it is cabled to, else the node's path",
          "[core]")
{
    Found t;
    const auto& r = t.r;
    CHECK(daemon::path_to_port(r, {t.h0, PortNum(1)}) == DrPath{});
    CHECK(daemon::path_to_port(r, {t.s1, PortNum(0)}).str() == "0,1");
    CHECK(daemon::path_to_port(r, {t.s1, PortNum(3)}).str() == "0,1");
    // H1 answers PortInfo for the port an SMP enters by: via S1's port 3,
    // whatever path discovery first reached H1 by.
    CHECK(daemon::path_to_port(r, {t.h1, PortNum(1)}).str() == "0,1,3");
    CHECK(daemon::path_to_port(r, {t.h2, PortNum(1)}).str() == "0,1,4");
    // H2's port 2 is cabled to a CA, not a switch: H2's own path.
    CHECK(daemon::path_to_port(r, {t.h2, PortNum(2)}).str() == "0,1,4");
    CHECK(daemon::path_to_port(r, {t.h3, PortNum(1)}).str() == "0,1,4,2");

    // A switch at the longest path cannot extend it: the CA's own path.
    Found deep;
    DrPath full;
    while (!full.full()) full = full.extended(PortNum(1));
    deep.r.paths[deep.s1.value] = full;
    deep.r.paths[deep.h1.value] = DrPath{}.extended(PortNum(9));
    CHECK(daemon::path_to_port(deep.r, {deep.h1, PortNum(1)}).str() == "0,9");
}

TEST_CASE("capability_source: a CA port its own PortInfo, a switch port the switch's port 0", "[core]")
{
    Found t;
    auto& r = t.r;
    CHECK(daemon::capability_source(r, {t.h1, PortNum(1)}) == nullptr);
    CHECK(daemon::capability_source(r, {t.s1, PortNum(3)}) == nullptr);
    r.port_info[{t.s1, PortNum(0)}].capability_mask = 0x10;
    r.port_info[{t.s1, PortNum(3)}].capability_mask = 0x20;
    r.port_info[{t.h1, PortNum(1)}].capability_mask = 0x40;
    CHECK(daemon::capability_source(r, {t.s1, PortNum(3)}) == &r.port_info.at({t.s1, PortNum(0)}));
    CHECK(daemon::capability_source(r, {t.s1, PortNum(0)})->capability_mask == 0x10);
    CHECK(daemon::capability_source(r, {t.h1, PortNum(1)})->capability_mask == 0x40);
}

TEST_CASE("port_info_attr_mod: the port number with SMSupportExtendedSpeeds, without it for older nodes", "[core]")
{
    Found t;
    auto& r = t.r;
    CHECK(daemon::port_info_attr_mod(r, {t.s1, PortNum(3)}) == (3u | mad::attr_mod_sm_supports_extended_speeds));
    CHECK(daemon::port_info_attr_mod(r, {t.h1, PortNum(1)}) == (1u | 0x80000000u));
    r.plain_port_info.insert(Guid(0x1000));
    CHECK(daemon::port_info_attr_mod(r, {t.s1, PortNum(3)}) == 3u);
    CHECK(daemon::port_info_attr_mod(r, {t.h1, PortNum(1)}) == (1u | 0x80000000u));
}

TEST_CASE("a sweep is complete without missing items and duplicate GUIDs; a refresh with no target is empty",
          "[core]")
{
    Found t;
    CHECK(t.r.complete());
    t.r.missing.push_back({DrPath{}.extended(PortNum(1)), "PortInfo port 2", "timeout"});
    CHECK_FALSE(t.r.complete());
    Found d;
    d.r.duplicates.push_back({Guid(0x300), DrPath{}, DrPath{}, "two nodes"});
    CHECK_FALSE(d.r.complete());
    CHECK(t.r.path_to(t.h3).str() == "0,1,4,2");

    daemon::RefreshRequest none;
    CHECK(none.empty());
    daemon::RefreshRequest describe;
    describe.describe.push_back(t.h1);
    CHECK_FALSE(describe.empty());
    daemon::FabricChanges changes;
    CHECK_FALSE(changes.any());
    changes.ports_changed = 1;
    CHECK(changes.any());
}
