// The fake fabric against the daemon's own code: discovery finds the graph
// it was built from, a bring-up ends with every cabled port ACTIVE and
// tables the analyzer finds complete, the SMPs of a bring-up match a count
// done by hand, and the fabric events (unlink, link, traps, repress), the
// IBA rules (DR return paths, LID routing by the programmed tables, port
// state transitions) and fault injection behave as a real fabric's would.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"
#include "../support/log_capture.h"

#include "daemon/sweep/bringup.h"
#include "daemon/sweep/discovery.h"
#include "daemon/sm/sm_info_responder.h"
#include "daemon/core/smp_ops.h"
#include "mad/linear_forwarding_table.h"
#include "mad/node_info.h"
#include "mad/notice.h"
#include "mad/sm_info.h"
#include "routing/analysis/analyze.h"
#include "topology/compare.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <string>
#include <unistd.h>

using namespace ibsm;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using test::TwoSwitches;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

namespace {

using boost::asio::awaitable;

// A k-ary 2-tree with k = 4: 16 hosts on 4 leaves, 4 spines.
topology::Fabric small_tree() { return topology::generate_pgft(topology::kary_ntree(4, 2)); }

DrPath path(std::initializer_list<unsigned> hops)
{
    DrPath p;
    for (unsigned h : hops) p = p.extended(PortNum(static_cast<std::uint8_t>(h)));
    return p;
}

mad::SmpResponse dr_get(test::FabricLoop& loop, const DrPath& p, std::uint16_t attr, std::uint32_t mod = 0)
{
    return loop.run([&] { return daemon::dr_get(loop.transport, p, attr, mod); });
}

mad::SmpResponse dr_set(test::FabricLoop& loop, const DrPath& p, std::uint16_t attr, std::uint32_t mod,
                        const daemon::SmpData& data)
{
    return loop.run([&] { return daemon::dr_set(loop.transport, p, attr, mod, data); });
}

mad::SmpResponse lid_get(test::FabricLoop& loop, Lid dlid, std::uint16_t attr, std::uint32_t mod = 0)
{
    return loop.run([&]() -> awaitable<mad::SmpResponse> {
        mad::SmpRequest req{mad::make_lid_request(mad::Method::get, dlid, attr, mod, 0), dlid};
        co_return co_await loop.transport.async_request(std::move(req), boost::asio::use_awaitable);
    });
}

// Read-modify-write of one port's PortState, as the port programmer does.
mad::SmpResponse set_port_state(test::FabricLoop& loop, const DrPath& p, std::uint8_t port, mad::PortState state);

template <class T>
daemon::SmpData encoded(const T& v)
{
    daemon::SmpData d{};
    mad::encode(v, std::span<std::uint8_t, 64>(d));
    return d;
}

mad::SmpResponse set_port_state(test::FabricLoop& loop, const DrPath& p, std::uint8_t port, mad::PortState state)
{
    auto cur = dr_get(loop, p, mad::attr::port_info, port);
    if (!cur.ok()) return cur;
    auto pi = *mad::decode_port_info(cur.smp.data());
    pi.port_state = state;
    pi.port_phys_state = 0;
    pi.link_down_default_state = 0;
    return dr_set(loop, p, mad::attr::port_info, port, encoded(pi));
}

daemon::SweepOutcome bring_up(test::FabricLoop& loop, daemon::Bringup& b)
{
    return loop.run([&] { return b.sweep(); });
}

} // namespace

TEST_CASE("discovery of a fake 4-ary 2-tree finds the graph it was built from, every cabled port INIT", "[fake]")
{
    const auto tree = small_tree();
    test::FabricLoop loop(tree);
    auto found = loop.run([&] { return daemon::discover(loop.transport); });

    CHECK(found.complete());
    const auto diff = topology::compare(found.fabric, tree);
    INFO((diff.differences.empty() ? std::string() : diff.differences.front()));
    CHECK(diff.equal());
    CHECK(found.fabric.node(found.sm_port.node).guid == tree.node(NodeId{0}).guid);
    for (const auto& [ref, pi] : found.port_info) {
        const bool port0 = found.fabric.node(ref.node).is_switch() && ref.port.value() == 0;
        CHECK(pi.port_state == (port0 ? mad::PortState::active : mad::PortState::init));
        CHECK(pi.lid == Lid{});
    }
    for (const auto& [id, si] : found.switch_info) {
        CHECK(si.linear_fdb_top == 0);
        CHECK(si.linear_fdb_cap == 49152);
        CHECK(si.port_state_change);
    }
    // Every SMP the discovery completed reached the fake as a DR request.
    CHECK(found.smps == loop.fabric.counters().directed_route);
    CHECK(loop.fabric.counters().lid_routed == 0);
    CHECK(loop.fabric.counters().dropped_route == 0);
}

TEST_CASE("a bring-up of the fake tree ends SUBNET UP, every cabled port ACTIVE, read-back tables complete", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    const auto tree = small_tree();
    test::FabricLoop loop(tree);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path, {"ftree"}));
    const auto outcome = bring_up(loop, b);
    INFO(outcome.reason);
    REQUIRE(outcome.up);
    CHECK(outcome.engine == "ftree");

    const auto rb = loop.fabric.read_back();
    std::size_t active = 0;
    for (const auto& link : rb.fabric.links()) {
        CHECK(rb.fabric.port(link.a).state == topology::PortState::active);
        CHECK(rb.fabric.port(link.b).state == topology::PortState::active);
        active += 2;
    }
    CHECK(active == 2 * tree.link_count());
    CHECK(rb.tables.lfts.size() == tree.switch_count());
    CHECK(rb.tables.linear_fdb_top.value() == tree.ca_count() + tree.switch_count());

    const auto report = test::analyze_read_back(rb);
    const auto& ca = report.of(routing::analysis::PairClass::ca_to_ca);
    CHECK(ca.pairs == tree.ca_count() * (tree.ca_count() - 1));
    CHECK(ca.unreachable == 0);
    CHECK(ca.loops == 0);
    CHECK(report.of(routing::analysis::PairClass::ca_to_switch).unreachable == 0);
}

// The arithmetic, for TwoSwitches (4 CAs, 2 switches of 4 ports, 5 cables):
//
// discovery (28, all DR Gets):
//   each CA:     NodeInfo + NodeDescription + PortInfo of its port       4 x 3 = 12
//   each switch: NodeInfo + NodeDescription + SwitchInfo + PortInfo 0..4 2 x 8 = 16
//   (the port a node was reached by is not followed again: no NodeInfo twice)
// LIDs 1..6 (4 CA ports, 2 switches): top LID 6, one LFT block per switch.
// programming (26 Sets):
//   LFT block 0 per switch                                                    2
//   SwitchInfo (LinearFDBTop 0 -> 6)                                          2
//   no VL tables: minhop needs one VL and there is no QoS policy (with
//   routing.vl_tables: always, 24 more: VLArb low block 1 and high block 1
//   on every cabled port (4 CA + 6 switch ports, INIT, so written without
//   reading), 10 x 2 = 20, and SL2VL on the 4 CA ports; the switches' pairs
//   are left either way: not optimized, one VL)                               0
//   PortInfo of switch port 0 (LID, MasterSMLID: configure)                   2
//   PortInfo ARMED then ACTIVE on the 10 cabled ports                  10 x 2 = 20
// total 54; a second sweep of the unchanged fabric sends only discovery's 28.
TEST_CASE("the SMPs of a bring-up of a hand-sized fabric are the hand-counted 54 (78 with every VL table)", "[fake]")
{
    QuietLogs quiet;
    const bool all_tables = GENERATE(false, true);
    INFO("routing.vl_tables: " << (all_tables ? "always" : "auto"));
    const unsigned vl_sets = all_tables ? 24 : 0;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    auto settings = bringup_settings(dir.path);
    settings.vls.all_port_tables = all_tables;
    daemon::Bringup b(loop.transport, settings);
    const auto outcome = bring_up(loop, b);
    INFO(outcome.reason);
    REQUIRE(outcome.up);

    const auto& c = loop.fabric.counters();
    using mad::Method;
    namespace attr = mad::attr;
    CHECK(c.count(Method::get, attr::node_info) == 6);
    CHECK(c.count(Method::get, attr::node_description) == 6);
    CHECK(c.count(Method::get, attr::switch_info) == 2);
    CHECK(c.count(Method::get, attr::port_info) == 4 + 2 * 5);
    CHECK(c.count(Method::set, attr::linear_forwarding_table) == 2);
    CHECK(c.count(Method::set, attr::switch_info) == 2);
    CHECK(c.count(Method::set, attr::vl_arbitration) == (all_tables ? 20 : 0));
    CHECK(c.count(Method::set, attr::sl2vl_table) == (all_tables ? 4 : 0));
    CHECK(c.count(Method::set, attr::port_info) == 2 + 20);
    CHECK(c.requests.size() == (all_tables ? 9u : 7u)); // nothing else was asked
    CHECK(c.total() == 54 + vl_sets);
    CHECK(c.directed_route == 54 + vl_sets);
    CHECK(c.answered == 54 + vl_sets);
    CHECK(c.bad_status == 0);
    CHECK(outcome.smps == 54 + vl_sets);

    // What the SM wrote is what the switches hold.
    for (NodeId sw : {t.s1, t.s2}) {
        const auto si = loop.fabric.switch_info(sw);
        CHECK(si.linear_fdb_top == 6);
        CHECK(si.life_time_value == 18);
        // Discovery read PortStateChange = 1 and the SwitchInfo Set wrote
        // it back, which clears it (IBA 14.2.5.4).
        CHECK_FALSE(si.port_state_change);
    }
    const Lid h2 = loop.fabric.port_info({t.h2, PortNum(1)}).lid;
    CHECK(loop.fabric.lft_entry(t.s1, h2) == 4);
    CHECK(loop.fabric.lft_entry(t.s2, h2) == 1);
    const auto sm_lid = loop.fabric.port_info({t.h0, PortNum(1)}).lid;
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).master_sm_lid == sm_lid);
    CHECK(loop.fabric.port_info({t.s2, PortNum(0)}).master_sm_lid == sm_lid);
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).operational_vls == 4);
    if (all_tables)
        CHECK(loop.fabric.vl_arbitration({t.s2, PortNum(4)}, mad::VlArbBlock::low_0_31).entries[3] ==
              mad::VlArbEntry{3, 64});

    loop.fabric.reset_counters();
    const auto again = bring_up(loop, b);
    CHECK(again.up);
    CHECK(loop.fabric.counters().total() == 28);
}

TEST_CASE("unlink: trap 128 reaches the SM, PortStateChange stays set until cleared, repeats stop on repress", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(bring_up(loop, b).up);

    std::vector<mad::RawReceive> seen;
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive& r) { seen.push_back(r); });

    loop.fabric.unlink({t.h3, PortNum(1)}); // H3's cable, at S2 port 2
    loop.poll();
    REQUIRE(seen.size() == 1);
    const mad::Smp trap = seen.front().smp;
    CHECK(trap.mgmt_class() == mad::mgmt_class_lid_routed);
    CHECK(trap.method() == static_cast<std::uint8_t>(mad::Method::trap));
    CHECK(trap.attr_id() == mad::attr::notice);
    const auto notice = mad::decode_notice(trap.data());
    REQUIRE(notice);
    const Lid s2 = loop.fabric.port_info({t.s2, PortNum(0)}).lid;
    CHECK(notice->trap_number_or_device_id == mad::trap::link_state_change);
    CHECK(notice->issuer_lid == s2);
    CHECK(std::get<mad::LinkStateChangeDetails>(notice->details).lid == s2);
    CHECK(loop.fabric.port_info({t.s2, PortNum(2)}).port_state == mad::PortState::down);
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).port_state == mad::PortState::down);

    // The light sweep's view: PortStateChange on S2 only, until written with 1.
    auto get_si = [&](const DrPath& p) {
        auto r = dr_get(loop, p, mad::attr::switch_info);
        REQUIRE(r.ok());
        return *mad::decode_switch_info(r.smp.data());
    };
    CHECK_FALSE(get_si(path({1})).port_state_change);
    auto si = get_si(path({1, 4}));
    CHECK(si.port_state_change);
    CHECK(get_si(path({1, 4})).port_state_change); // reading does not clear it
    si.port_state_change = false;                 // writing 0 leaves it
    REQUIRE(dr_set(loop, path({1, 4}), mad::attr::switch_info, 0, encoded(si)).ok());
    CHECK(get_si(path({1, 4})).port_state_change);
    si.port_state_change = true; // writing 1 clears it
    auto cleared = dr_set(loop, path({1, 4}), mad::attr::switch_info, 0, encoded(si));
    REQUIRE(cleared.ok());
    CHECK_FALSE(mad::decode_switch_info(cleared.smp.data())->port_state_change);
    CHECK(si.linear_fdb_top == loop.fabric.switch_info(t.s2).linear_fdb_top);

    // Unanswered, the switch repeats the trap with the same TID.
    CHECK(loop.fabric.pending_traps() == 1);
    CHECK(loop.fabric.tick() == 1);
    loop.poll();
    REQUIRE(seen.size() == 2);
    CHECK(seen[1].smp.tid() == trap.tid());
    // A TrapRepress with the trap's TID stops it.
    auto repress = mad::make_get_resp(trap, trap.data());
    repress.set_method(static_cast<std::uint8_t>(mad::Method::trap_repress));
    REQUIRE(loop.transport.respond(repress, seen[1]));
    CHECK(loop.fabric.counters().represses == 1);
    CHECK(loop.fabric.pending_traps() == 0);
    CHECK(loop.fabric.tick() == 0);

    // ReLink: both ends back to INIT, and another trap 128.
    loop.fabric.relink({t.s2, PortNum(2)});
    loop.poll();
    CHECK(seen.size() == 3);
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).port_state == mad::PortState::init);
    CHECK(loop.fabric.switch_info(t.s2).port_state_change);
    CHECK(loop.fabric.counters().traps_raised == 2);
}

TEST_CASE("traps repeat every N SMPs when asked, and a trap with no route to the SM is held, not lost", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FakeFabricOptions o;
    o.trap_repeat_every = 3;
    test::FabricLoop loop(t.f, o);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(bring_up(loop, b).up);
    unsigned traps = 0;
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive&) { ++traps; });

    // The inter-switch cable: S2's trap has no way to the SM now, S1's has.
    loop.fabric.unlink({t.s1, PortNum(4)});
    loop.poll();
    CHECK(traps == 1);
    CHECK(loop.fabric.pending_traps() == 2);
    CHECK(loop.fabric.counters().traps_undeliverable == 1);
    // Six SMPs later the switches have tried twice more.
    for (int i = 0; i < 6; ++i) REQUIRE(dr_get(loop, path({1}), mad::attr::node_info).ok());
    loop.poll();
    CHECK(traps == 3);
    CHECK(loop.fabric.counters().traps_undeliverable == 3);
    // Cabled again, the link is INIT: LID-routed packets, traps included,
    // still cannot cross it until the SM activates both ends (by DR, which
    // crosses INIT links).
    loop.fabric.relink({t.s1, PortNum(4)});
    CHECK(loop.fabric.port_info({t.s2, PortNum(4)}).port_state == mad::PortState::init);
    CHECK(loop.fabric.pending_traps() == 4); // S1 and S2, for the unlink and the relink
    loop.poll();
    for (auto state : {mad::PortState::armed, mad::PortState::active})
        for (const auto& p : {path({1}), path({1, 4})}) REQUIRE(set_port_state(loop, p, 4, state).ok());
    loop.poll();
    traps = 0;
    CHECK(loop.fabric.tick() == 4);
    loop.poll();
    CHECK(traps == 4);
}

TEST_CASE("LID-routed SMPs follow the programmed tables and are dropped where they do not lead", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    const Lid unassigned(5);
    CHECK(lid_get(loop, unassigned, mad::attr::node_info).failure == mad::SmpFailure::timeout);
    CHECK(loop.fabric.counters().dropped_route == 1);

    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(bring_up(loop, b).up);
    const Lid h2 = loop.fabric.port_info({t.h2, PortNum(1)}).lid;
    const Lid s2 = loop.fabric.port_info({t.s2, PortNum(0)}).lid;
    const Lid sm = loop.fabric.port_info({t.h0, PortNum(1)}).lid;

    auto node_guid = [](const mad::SmpResponse& r) { return mad::decode_node_info(r.smp.data())->node_guid; };
    auto r = lid_get(loop, h2, mad::attr::node_info);
    REQUIRE(r.ok());
    CHECK(node_guid(r) == Guid(0x300));
    CHECK(mad::decode_node_info(r.smp.data())->local_port_num == PortNum(1));
    r = lid_get(loop, s2, mad::attr::node_info);
    REQUIRE(r.ok());
    CHECK(node_guid(r) == Guid(0x2000));
    CHECK(mad::decode_node_info(r.smp.data())->local_port_num == PortNum(4)); // came in from S1
    r = lid_get(loop, sm, mad::attr::node_info); // the SM's own port
    REQUIRE(r.ok());
    CHECK(node_guid(r) == Guid(0x100));
    CHECK(loop.fabric.counters().lid_routed == 4);

    // S1 forgets H2: the request dies at S1, while DR still reaches H2.
    mad::LinearForwardingTable block;
    for (unsigned lid = 0; lid < mad::lft_block_size; ++lid) block.ports[lid] = loop.fabric.lft_entry(t.s1, Lid(static_cast<std::uint16_t>(lid)));
    block.ports[mad::lft_index_of(h2)] = mad::lft_no_route;
    REQUIRE(dr_set(loop, path({1}), mad::attr::linear_forwarding_table, 0, encoded(block)).ok());
    CHECK(lid_get(loop, h2, mad::attr::node_info).failure == mad::SmpFailure::timeout);
    CHECK(dr_get(loop, path({1, 4, 1}), mad::attr::node_info).ok());
    // ... and H2's answers could not come back if S2 forgot the SM.
    block.ports[mad::lft_index_of(h2)] = 4;
    REQUIRE(dr_set(loop, path({1}), mad::attr::linear_forwarding_table, 0, encoded(block)).ok());
    REQUIRE(lid_get(loop, h2, mad::attr::node_info).ok());
    mad::LinearForwardingTable s2_block;
    for (unsigned lid = 0; lid < mad::lft_block_size; ++lid) s2_block.ports[lid] = loop.fabric.lft_entry(t.s2, Lid(static_cast<std::uint16_t>(lid)));
    s2_block.ports[mad::lft_index_of(sm)] = 3; // the uncabled port
    REQUIRE(dr_set(loop, path({1, 4}), mad::attr::linear_forwarding_table, 0, encoded(s2_block)).ok());
    CHECK(lid_get(loop, h2, mad::attr::node_info).failure == mad::SmpFailure::timeout);
    s2_block.ports[mad::lft_index_of(sm)] = 4;
    REQUIRE(dr_set(loop, path({1, 4}), mad::attr::linear_forwarding_table, 0, encoded(s2_block)).ok());
    REQUIRE(lid_get(loop, h2, mad::attr::node_info).ok());

    // A LID above LinearFDBTop is not forwarded, whatever the entry says.
    auto si = loop.fabric.switch_info(t.s1);
    si.linear_fdb_top = static_cast<std::uint16_t>(h2.value() - 1);
    REQUIRE(dr_set(loop, path({1}), mad::attr::switch_info, 0, encoded(si)).ok());
    CHECK(lid_get(loop, h2, mad::attr::node_info).failure == mad::SmpFailure::timeout);
    si.linear_fdb_top = 6;
    REQUIRE(dr_set(loop, path({1}), mad::attr::switch_info, 0, encoded(si)).ok());

    // A link that is up but not ACTIVE does not carry LID-routed packets.
    REQUIRE(set_port_state(loop, path({1, 4}), 1, mad::PortState::down).ok()); // retrains to INIT
    CHECK(loop.fabric.port_info({t.h2, PortNum(1)}).port_state == mad::PortState::init);
    CHECK(lid_get(loop, h2, mad::attr::node_info).failure == mad::SmpFailure::timeout);
    CHECK(dr_get(loop, path({1, 4, 1}), mad::attr::node_info).ok());
    CHECK(loop.fabric.counters().dropped_route == 5);
}

TEST_CASE("directed route: return path and hop pointer as IBA 14.2.2 leaves them; dead ends drop", "[fake]")
{
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    const auto p = path({1, 4, 2});
    auto r = dr_get(loop, p, mad::attr::node_info);
    REQUIRE(r.ok());
    CHECK(mad::decode_node_info(r.smp.data())->node_guid == Guid(0x400));
    CHECK(mad::decode_node_info(r.smp.data())->port_guid == Guid(0x401));
    CHECK(r.smp.direction_inbound());
    CHECK(r.smp.hop_pointer() == 0);
    CHECK(r.smp.hop_count() == 3);
    CHECK(r.smp.initial_path(1) == 1);
    CHECK(r.smp.initial_path(3) == 2);
    CHECK(r.smp.return_path(1) == 1); // entered S1 by port 1
    CHECK(r.smp.return_path(2) == 4); // S2 by port 4
    CHECK(r.smp.return_path(3) == 1); // H3 by port 1

    CHECK(dr_get(loop, path({1, 3}), mad::attr::node_info).failure == mad::SmpFailure::timeout);    // uncabled
    CHECK(dr_get(loop, path({1, 2, 1}), mad::attr::node_info).failure == mad::SmpFailure::timeout); // through a CA
    CHECK(dr_get(loop, path({2}), mad::attr::node_info).failure == mad::SmpFailure::timeout);       // not the SM's port
    CHECK(dr_get(loop, path({1, 9}), mad::attr::node_info).failure == mad::SmpFailure::timeout);    // no such port
    CHECK(loop.fabric.counters().dropped_route == 4);

    // Unsupported attributes answer 0x000c, as hardware does; so do CAs asked for switch attributes.
    auto bad = dr_get(loop, path({1}), 0x0014); // GUIDInfo
    CHECK(bad.failure == mad::SmpFailure::bad_status);
    CHECK(bad.status == test::fake_status::attribute_unsupported);
    CHECK(dr_get(loop, DrPath{}, mad::attr::linear_forwarding_table).status == test::fake_status::attribute_unsupported);
    CHECK(dr_get(loop, path({1}), mad::attr::linear_forwarding_table, 768).status == test::fake_status::invalid_value);
}

TEST_CASE("PortInfo Set: ARMED from INIT, ACTIVE only with the neighbour ARMED or ACTIVE, all or nothing", "[fake]")
{
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    const DrPath sm{};
    auto state_of = [](const mad::SmpResponse& r) { return mad::decode_port_info(r.smp.data())->port_state; };

    CHECK(set_port_state(loop, sm, 1, mad::PortState::active).status == test::fake_status::invalid_value);
    CHECK(set_port_state(loop, sm, 1, mad::PortState::init).status == test::fake_status::invalid_value);
    auto r = set_port_state(loop, sm, 1, mad::PortState::armed);
    REQUIRE(r.ok());
    CHECK(state_of(r) == mad::PortState::armed);
    CHECK(set_port_state(loop, sm, 1, mad::PortState::armed).status == test::fake_status::invalid_value);
    CHECK(set_port_state(loop, sm, 1, mad::PortState::active).status == test::fake_status::invalid_value);
    REQUIRE(set_port_state(loop, path({1}), 1, mad::PortState::armed).ok());
    r = set_port_state(loop, sm, 1, mad::PortState::active);
    REQUIRE(r.ok());
    CHECK(state_of(r) == mad::PortState::active);

    // A rejected Set changes nothing, LID included.
    auto cur = dr_get(loop, path({1, 2}), mad::attr::port_info, 1);
    auto pi = *mad::decode_port_info(cur.smp.data());
    pi.lid = Lid(9);
    pi.port_state = mad::PortState::active;
    CHECK(dr_set(loop, path({1, 2}), mad::attr::port_info, 1, encoded(pi)).status == test::fake_status::invalid_value);
    CHECK(loop.fabric.port_info({t.h1, PortNum(1)}).lid == Lid{});
    pi.port_state = mad::PortState::no_change;
    pi.operational_vls = 5; // VL0-14 over VLCap VL0-7
    CHECK(dr_set(loop, path({1, 2}), mad::attr::port_info, 1, encoded(pi)).status == test::fake_status::invalid_value);
    pi.operational_vls = 3;
    pi.lmc = 2;
    pi.master_sm_lid = Lid(1);
    r = dr_set(loop, path({1, 2}), mad::attr::port_info, 1, encoded(pi));
    REQUIRE(r.ok());
    const auto h1 = loop.fabric.port_info({t.h1, PortNum(1)});
    CHECK(h1.lid == Lid(9));
    CHECK(h1.lmc == 2);
    CHECK(h1.master_sm_lid == Lid(1));
    CHECK(h1.operational_vls == 3);
    CHECK(h1.port_state == mad::PortState::init);
    // A switch's external ports carry no LID; port 0 does.
    auto sw = *mad::decode_port_info(dr_get(loop, path({1}), mad::attr::port_info, 2).smp.data());
    sw.lid = Lid(7);
    sw.port_state = mad::PortState::no_change;
    REQUIRE(dr_set(loop, path({1}), mad::attr::port_info, 2, encoded(sw)).ok());
    CHECK(loop.fabric.port_info({t.s1, PortNum(2)}).lid == Lid{});
    REQUIRE(dr_set(loop, path({1}), mad::attr::port_info, 0, encoded(sw)).ok());
    CHECK(loop.fabric.port_info({t.s1, PortNum(0)}).lid == Lid(7));
    // The response names the port the SMP came in by.
    CHECK(mad::decode_port_info(dr_get(loop, path({1}), mad::attr::port_info, 2).smp.data())->local_port_num ==
          PortNum(1));
}

TEST_CASE("injected drops make discovery retry; an injected status is reported as such", "[fake]")
{
    TwoSwitches t;
    test::FabricLoop loop(t.f, {}, test::fast_transport(1));
    loop.fabric.drop_next(Guid(0x2000), 1, mad::attr::node_info);
    loop.fabric.drop_next(Guid(0x300), 1);
    auto found = loop.run([&] { return daemon::discover(loop.transport); });
    CHECK(found.complete());
    CHECK(topology::compare(found.fabric, t.f).equal());
    CHECK(loop.fabric.counters().dropped_injected == 2);
    CHECK(loop.transport.counters().timeouts == 2);
    CHECK(found.smps == 28);
    CHECK(loop.transport.counters().sent == 30);

    loop.fabric.reject_next(Guid(0x1000), 2, 0x0014, mad::attr::switch_info);
    CHECK(dr_get(loop, path({1}), mad::attr::node_info).ok());
    CHECK(dr_get(loop, path({1}), mad::attr::switch_info).status == 0x0014);
    CHECK(dr_get(loop, path({1}), mad::attr::switch_info).status == 0x0014);
    CHECK(dr_get(loop, path({1}), mad::attr::switch_info).ok());
}

TEST_CASE("SMInfo: dropped at nodes without an SM, handed to the SM at its own node", "[fake]")
{
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    CHECK(dr_get(loop, path({1, 2}), mad::attr::sm_info).failure == mad::SmpFailure::timeout);
    CHECK(loop.fabric.counters().dropped_no_sm == 1);

    daemon::SmInfoResponder responder(loop.transport, Guid(0x101), 5);
    responder.install();
    responder.set_state(mad::SmState::master);
    auto r = dr_get(loop, DrPath{}, mad::attr::sm_info);
    REQUIRE(r.ok());
    const auto si = mad::decode_sm_info(r.smp.data());
    REQUIRE(si);
    CHECK(si->guid == Guid(0x101));
    CHECK(si->sm_state == mad::SmState::master);
    CHECK(responder.counters().sm_info_answered == 1);
}

TEST_CASE("a CA cabled in with add_node/link is found by the next discovery, and announced by trap 128", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f, test::FakeFabricOptions{std::nullopt, false}); // polled transport
    REQUIRE_FALSE(loop.fabric.pollable_by_reactor());
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(bring_up(loop, b).up);
    unsigned traps = 0;
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive&) { ++traps; });

    const auto h4 = loop.fabric.add_node(NodeType::ca, Guid(0x500), 1, "H4");
    loop.fabric.link({h4, PortNum(1)}, {t.s2, PortNum(3)});
    auto found = loop.run([&] { return daemon::discover(loop.transport); }); // also lets the trap in
    CHECK(traps == 1);
    CHECK(found.complete());
    CHECK(found.fabric.ca_count() == 5);
    CHECK(topology::compare(found.fabric, loop.fabric.fabric()).equal());
    const auto again = bring_up(loop, b);
    INFO(again.reason);
    CHECK(again.up);
    CHECK(loop.fabric.port_info({h4, PortNum(1)}).port_state == mad::PortState::active);
    CHECK(loop.fabric.port_info({h4, PortNum(1)}).lid.valid_unicast());
}

TEST_CASE("a whole switch unlinked and relinked: traps from the neighbour, a smaller fabric, then all back", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(bring_up(loop, b).up);
    std::vector<Lid> issuers;
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive& r) {
        issuers.push_back(mad::decode_notice(r.smp.data())->issuer_lid);
    });

    loop.fabric.unlink_node(t.s2);
    loop.poll();
    // Cables go one at a time, ports 1, 2, 4, as ibsim's Unlink does: S2
    // raises one trap per cable and S1 one; S2's last, sent after its
    // uplink went, cannot reach the SM.
    CHECK(loop.fabric.counters().traps_raised == 4);
    const Lid s1 = loop.fabric.port_info({t.s1, PortNum(0)}).lid;
    const Lid s2 = loop.fabric.port_info({t.s2, PortNum(0)}).lid;
    CHECK(issuers == std::vector<Lid>{s2, s2, s1});
    CHECK(loop.fabric.counters().traps_undeliverable == 1);
    auto found = loop.run([&] { return daemon::discover(loop.transport); });
    CHECK(found.complete());
    CHECK(found.fabric.node_count() == 3); // H0, S1, H1
    CHECK(found.fabric.link_count() == 2);
    CHECK_FALSE(found.fabric.find_node(Guid(0x2000)));

    loop.fabric.relink_node(t.s2);
    CHECK(loop.fabric.fabric().link_count() == 5);
    const auto again = bring_up(loop, b);
    INFO(again.reason);
    CHECK(again.up);
    for (const auto& link : loop.fabric.fabric().links())
        CHECK(loop.fabric.port_info(link.a).port_state == mad::PortState::active);
    // Now every switch can reach the SM: all unrepressed traps come through.
    issuers.clear();
    CHECK(loop.fabric.pending_traps() == 4 + 4); // the unlink's, and the relink's (S2 x3, S1)
    CHECK(loop.fabric.tick() == loop.fabric.pending_traps());
    loop.poll();
    CHECK(issuers.size() == loop.fabric.pending_traps());
}

TEST_CASE("discovery of a 3-level PGFT with parallel links matches, in a few ms", "[fake]")
{
    // PGFT(3; 4,2,2; 1,2,2; 1,2,1): 16 hosts, parallel links between levels 1 and 2.
    const auto f = topology::generate_pgft(topology::PgftParams{{4, 2, 2}, {1, 2, 2}, {1, 2, 1}, false});
    test::FabricLoop loop(f);
    auto found = loop.run([&] { return daemon::discover(loop.transport); });
    CHECK(found.complete());
    CHECK(topology::compare(found.fabric, f).equal());
    CHECK(found.fabric.link_count() == f.link_count());
    CHECK(loop.fabric.counters().dropped_route == 0);
}

TEST_CASE("raise_trap: any notice, from a CA port too, once the issuer knows its LID and the SM's", "[fake]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f);
    mad::Notice n;
    n.type = mad::notice_type::informational;
    n.producer_type_or_vendor_id = static_cast<std::uint32_t>(mad::NodeKind::ca);
    n.trap_number_or_device_id = mad::trap::local_changes;
    n.details = mad::LocalChangesDetails{Lid{}, false, 0x48, mad::trap144::node_description_changed, 0};
    CHECK_FALSE(loop.fabric.raise_trap({t.h2, PortNum(1)}, n)); // no LID yet
    CHECK(loop.fabric.pending_traps() == 0);

    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    REQUIRE(bring_up(loop, b).up);
    std::vector<mad::Notice> got;
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive& r) { got.push_back(*mad::decode_notice(r.smp.data())); });
    REQUIRE(loop.fabric.raise_trap({t.h2, PortNum(1)}, n));
    loop.poll();
    REQUIRE(got.size() == 1);
    CHECK(got[0].trap_number_or_device_id == mad::trap::local_changes);
    CHECK(got[0].issuer_lid == loop.fabric.port_info({t.h2, PortNum(1)}).lid);
    CHECK(std::get<mad::LocalChangesDetails>(got[0].details).change_flags == mad::trap144::node_description_changed);
}

TEST_CASE("LIDs past a switch's LinearFDBCap: no block it cannot hold is sent, and the subnet is not up", "[fake]")
{
    test::LogCapture log;
    TempDir dir;
    TwoSwitches t;
    test::FakeFabricOptions options;
    options.linear_fdb_cap = 4; // LIDs 0..3; the fabric needs 1..6
    test::FabricLoop loop(t.f, options);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    const auto outcome = bring_up(loop, b);
    INFO(outcome.reason);
    CHECK_FALSE(outcome.up);
    CHECK(outcome.reason.find("LFT block") != std::string::npos);
    INFO(log.text());
    CHECK(log.count("LinearFDBCap 4, top LID 6: LIDs 4..6 cannot be forwarded by it") == 2);
    const auto& c = loop.fabric.counters();
    // Nothing was sent that a switch had to refuse.
    CHECK(c.count(mad::Method::set, mad::attr::linear_forwarding_table) == 0);
    CHECK(c.bad_status == 0);
}
