// Partitions and multicast against the in-process fake fabric: the P_Key
// tables the bring-up writes, and the multicast tables McastService keeps
// in step with joins, leaves and re-routes, judged by what the fake
// switches hold (a packet flooded through their MFTs reaches every member,
// once, without loops). The tables reach the switches only as the sweep
// scheduler's work, as daemon/main.cpp wires it.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/core/events.h"
#include "daemon/sa/mcast_service.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "mad/sa/records.h"
#include "mad/mc_member_record.h"
#include "mad/sa/sa_mad.h"
#include "mcast/tree.h"

#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>

#include <algorithm>
#include <chrono>
#include <exception>
#include <set>

using namespace ibsm;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using test::Tree;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;
namespace sa = mad::sa;
namespace m = mad::mcr_mask;

namespace {

partition::MemberRule full(Guid g) { return {partition::Who::port, g, partition::Membership::full}; }
partition::MemberRule limited(Guid g) { return {partition::Who::port, g, partition::Membership::limited}; }

// `configured` after the default partition of a site without a partitions
// file (every port a full member of 0x7fff, its broadcast group).
std::shared_ptr<const std::vector<partition::Rule>> rules(std::vector<partition::Rule> configured)
{
    return std::make_shared<const std::vector<partition::Rule>>(partition::effective_rules(std::move(configured), false));
}

// CA port GUIDs in the fake are node GUID + port (as ibsim's).
Guid port_guid(const test::FakeFabric& fake, NodeId ca) { return fake.fabric().port(PortRef{ca, PortNum(1)}).guid; }

const mad::Gid128 bcast{0xff12401bffff0000ull, 0x00000000ffffffffull};

struct SaCall {
    daemon::McastService& service;
    const daemon::SubnetSnapshot& snap;

    daemon::SaAnswer operator()(std::uint8_t method, Lid requester, const mad::McMemberRecord& r, std::uint64_t mask,
                                bool trusted = false)
    {
        sa::SaHeader h;
        h.method = method;
        h.attr_id = sa::attr::mcmember_record;
        h.component_mask = mask;
        std::array<std::uint8_t, sa::data_size> data{};
        mad::encode(r, std::span<std::uint8_t, mad::mc_member_record_size>(data.data(), mad::mc_member_record_size));
        daemon::SaRequest req{h, data, mad::GsiAddress{requester}, snap, trusted};
        return service.on_request(req);
    }
};

Lid lid_of(const daemon::SubnetSnapshot& snap, Guid port)
{
    auto ref = snap.found.fabric.find_port(port);
    REQUIRE(ref);
    return snap.lids.lids.lids_of(*ref)->base;
}

// Runs `loop` until `done()` holds; fails the test after 10 s.
template <class Done>
void run_until(test::FabricLoop& loop, Done done)
{
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
        REQUIRE(std::chrono::steady_clock::now() < give_up);
        if (loop.io.stopped()) loop.io.restart();
        loop.io.run_for(std::chrono::milliseconds(1));
    }
}

// The multicast part of the SM as daemon/main.cpp wires it: the scheduler
// runs the bring-up's sweeps and the service's pushes, and every generation
// the switches confirmed reaches the service. The scheduler runs from
// start() to stop(); run_until drives the loop meanwhile.
struct McastSm {
    test::FabricLoop& loop;
    daemon::EventQueue events;
    daemon::Bringup bringup;
    daemon::McastService service;
    daemon::SweepScheduler scheduler;
    std::vector<daemon::SweepOutcome> outcomes;
    bool running = false;
    std::exception_ptr failure;

    static daemon::SchedulerSettings scheduler_settings()
    {
        daemon::SchedulerSettings s;
        s.light_interval = std::chrono::seconds(0);
        return s;
    }

    // Without partitions in `bs`: OpenSM's without a file (the default
    // partition's broadcast group).
    static daemon::BringupSettings with_partitions(daemon::BringupSettings bs)
    {
        if (!bs.partitions)
            bs.partitions =
                std::make_shared<const std::vector<partition::Rule>>(partition::effective_rules({}, false));
        return bs;
    }

    McastSm(test::FabricLoop& l, const daemon::BringupSettings& bs, const daemon::McastSettings& ms)
        : loop(l), events(l.io.get_executor()), bringup(l.transport, with_partitions(bs)), service(events, l.transport, ms),
          scheduler(l.transport, bringup, events, nullptr, scheduler_settings())
    {
        scheduler.set_mcast_push([this] { return service.push(); });
        scheduler.on_outcome([this](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
            outcomes.push_back(o);
            if (!o.standby && !o.unchanged && o.up && snap && snap->generation == o.generation)
                service.on_snapshot(snap);
        });
    }

    // The scheduler begins with a heavy sweep.
    void start()
    {
        running = true;
        boost::asio::co_spawn(loop.io, scheduler.run(), [this](std::exception_ptr e) {
            running = false;
            failure = e;
        });
    }
    void stop()
    {
        events.push(daemon::ShutdownEvent{});
        run_until(loop, [&] { return !running; });
        if (failure) std::rethrow_exception(failure);
    }
    // Nothing queued, no sweep under way, the tables in step with the groups.
    bool idle() const { return events.size() == 0 && !scheduler.busy() && !service.pushing(); }
    // Until the service's tables are pushed (joins and leaves ask at once).
    void settle() { run_until(loop, [&] { return idle(); }); }
};

// What the fake switches hold for `mlid`, as masks by the fake's NodeIds.
std::map<NodeId, mcast::PortMask> held(const test::FakeFabric& fake, std::uint16_t mlid)
{
    std::map<NodeId, mcast::PortMask> out;
    for (auto id : fake.fabric().node_ids()) {
        if (!fake.fabric().node(id).is_switch()) continue;
        auto t = fake.mft(id);
        if (auto it = t.find(mlid); it != t.end()) out[id] = it->second;
    }
    return out;
}

// Every member's packet reaches exactly the other members.
void check_delivery(const test::FakeFabric& fake, const std::map<NodeId, mcast::PortMask>& masks,
                    const std::vector<NodeId>& members)
{
    REQUIRE_FALSE(masks.empty());
    // The fake's cabling as it is now, every cabled port usable.
    topology::Fabric f = fake.fabric();
    for (auto id : f.node_ids())
        for (auto& p : f.node(id).ports) p.known = true;
    for (auto from : members) {
        auto got = mcast::deliver(f, masks, PortRef{from, PortNum(1)});
        REQUIRE(got);
        std::set<NodeId> reached;
        for (const auto& p : *got) CHECK(reached.insert(p.node).second);
        std::set<NodeId> want(members.begin(), members.end());
        want.erase(from);
        CHECK(reached == want);
    }
}

} // namespace

TEST_CASE("P_Key tables: the default partition everywhere, configured keys where listed, nothing resent",
          "[mcast][pkeys]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    auto settings = bringup_settings(dir.path);
    const Guid h1 = port_guid(loop.fabric, t.hosts[1]), h2 = port_guid(loop.fabric, t.hosts[2]),
               sm = port_guid(loop.fabric, t.hosts[0]);
    settings.partitions = rules({{"storage", 0x0001, true, {}, false, {full(h1), limited(h2)}, {}, 1}});
    settings.ports.enforce_partitions = true;
    daemon::Bringup b(loop.transport, settings);
    auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    REQUIRE(o.up);
    auto keys = [&](PortRef p) {
        auto k = loop.fabric.pkey_table(p).keys;
        return std::vector<std::uint16_t>(k.begin(), k.begin() + 3);
    };
    CHECK(keys({t.hosts[0], PortNum(1)}) == std::vector<std::uint16_t>{0xffff, 0, 0}); // the SM's: not listed
    CHECK(sm == port_guid(loop.fabric, t.hosts[0]));
    CHECK(keys({t.hosts[1], PortNum(1)}) == std::vector<std::uint16_t>{0xffff, 0x8001, 0});
    CHECK(keys({t.hosts[2], PortNum(1)}) == std::vector<std::uint16_t>{0xffff, 0x0001, 0});
    CHECK(keys({t.hosts[3], PortNum(1)}) == std::vector<std::uint16_t>{0xffff, 0, 0});
    // The switch port facing H2 enforces H2's partitions; port 0 and
    // switch-to-switch ports hold only what they start with.
    CHECK(keys({t.leaves[0], PortNum(3)}) == std::vector<std::uint16_t>{0xffff, 0x0001, 0});
    CHECK(keys({t.leaves[0], PortNum(0)}) == std::vector<std::uint16_t>{0xffff, 0, 0});
    // 9 CA ports + 5 switch ports 0 + 9 switch ports facing CAs, one block each.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_pkey_table) == 23);
    // Enforcement where the P_Key tables face CAs, not between switches.
    CHECK(loop.fabric.port_info({t.leaves[0], PortNum(3)}).partition_enforcement_inbound);
    CHECK(loop.fabric.port_info({t.leaves[0], PortNum(3)}).partition_enforcement_outbound);
    CHECK_FALSE(loop.fabric.port_info({t.leaves[0], PortNum(4)}).partition_enforcement_inbound);
    CHECK_FALSE(loop.fabric.port_info({t.spines[0], PortNum(1)}).partition_enforcement_outbound);

    loop.fabric.reset_counters();
    auto again = loop.run([&] { return b.sweep(); });
    REQUIRE(again.up);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_pkey_table) == 0);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::port_info) == 0);
}

TEST_CASE("P_Key tables: a switch port whose CA's keys overflow its enforcement table does not enforce",
          "[mcast][pkeys]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    // Leaf 0 filters with 2 entries per port: H1's 3 keys do not fit, H2's 2 do.
    loop.fabric.set_partition_enforcement_cap(t.leaves[0], 2);
    auto settings = bringup_settings(dir.path);
    const Guid h1 = port_guid(loop.fabric, t.hosts[1]), h2 = port_guid(loop.fabric, t.hosts[2]);
    settings.partitions = rules({{"storage", 0x0001, false, {}, false, {full(h1), limited(h2)}, {}, 1},
                                 {"scratch", 0x0002, false, {}, false, {full(h1)}, {}, 2}});
    settings.ports.enforce_partitions = true;
    daemon::Bringup b(loop.transport, settings);
    auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    REQUIRE(o.up);
    auto keys = [&](PortRef p) {
        auto k = loop.fabric.pkey_table(p).keys;
        return std::vector<std::uint16_t>(k.begin(), k.begin() + 3);
    };
    // H1 holds all three; the switch's copy the two that fit, and the
    // port does not enforce (its traffic in 0x8002 would be dropped).
    CHECK(keys({t.hosts[1], PortNum(1)}) == std::vector<std::uint16_t>{0xffff, 0x8001, 0x8002});
    CHECK(keys({t.leaves[0], PortNum(2)}) == std::vector<std::uint16_t>{0xffff, 0x8001, 0});
    CHECK_FALSE(loop.fabric.port_info({t.leaves[0], PortNum(2)}).partition_enforcement_inbound);
    CHECK_FALSE(loop.fabric.port_info({t.leaves[0], PortNum(2)}).partition_enforcement_outbound);
    // H2's port enforces.
    CHECK(keys({t.leaves[0], PortNum(3)}) == std::vector<std::uint16_t>{0xffff, 0x0001, 0});
    CHECK(loop.fabric.port_info({t.leaves[0], PortNum(3)}).partition_enforcement_inbound);
    CHECK(loop.fabric.port_info({t.leaves[0], PortNum(3)}).partition_enforcement_outbound);

    // H1 leaves scratch: its keys fit again and the port enforces.
    settings.partitions = rules({{"storage", 0x0001, false, {}, false, {full(h1), limited(h2)}, {}, 1}});
    b.reconfigure(settings);
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    CHECK(keys({t.leaves[0], PortNum(2)}) == std::vector<std::uint16_t>{0xffff, 0x8001, 0});
    CHECK(loop.fabric.port_info({t.leaves[0], PortNum(2)}).partition_enforcement_inbound);
    CHECK(loop.fabric.port_info({t.leaves[0], PortNum(2)}).partition_enforcement_outbound);
}

TEST_CASE("Joins of every host build an MFT that reaches every member; leaves and re-routes keep it so",
          "[mcast][mft]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    auto settings = bringup_settings(dir.path);
    daemon::McastSettings ms;
    ms.batch = std::chrono::milliseconds(1);
    McastSm sm(loop, settings, ms);
    auto& service = sm.service;
    loop.fabric.reset_counters();
    // The first heavy sweep's generation reaches the service, which asks
    // for one push.
    sm.start();
    run_until(loop, [&] { return sm.scheduler.stats().heavy_sweeps == 1 && sm.idle(); });
    REQUIRE(sm.outcomes.size() == 1);
    REQUIRE(sm.outcomes[0].up);
    REQUIRE(service.groups().find(bcast)); // the default partition's, made with the first generation
    CHECK(held(loop.fabric, 0xC000).empty()); // a group without members forwards nowhere
    // First contact: what the switches hold is unknown, so block 0 is written (empty) on all five.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 5);
    CHECK(service.stats().pushes == 1);

    auto snap = sm.bringup.snapshot();
    SaCall call{service, *snap};
    loop.fabric.reset_counters();
    // IPoIB's broadcast join: MGID, PortGID, P_Key, JoinState.
    for (unsigned h = 0; h < 9; ++h) {
        mad::McMemberRecord r;
        r.mgid = bcast;
        r.port_gid = mad::Gid128{0xfe80000000000000ull, port_guid(loop.fabric, t.hosts[h]).value()};
        r.p_key = 0xffff;
        r.join_state = mad::join_state::full_member;
        auto a = call(sa::method::set, lid_of(*snap, port_guid(loop.fabric, t.hosts[h])), r,
                      m::mgid | m::port_gid | m::p_key | m::join_state);
        REQUIRE(a.status == sa::status::ok);
        REQUIRE(a.records.size() == 1);
        auto back = mad::decode_mc_member_record(a.records[0]);
        REQUIRE(back);
        CHECK(back->mlid == Lid(0xC000));
        CHECK(back->q_key == 0x0b1b);
    }
    // Answered before anything is sent; the nine joins are one request.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 0);
    CHECK(service.pushing());
    CHECK(sm.events.size() == 1);
    sm.settle();
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), t.hosts);
    // One block, one position (<= 15 ports) per switch on the tree: three
    // leaves and the root spine; the other spine keeps its empty block.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 4);
    CHECK(held(loop.fabric, 0xC000).size() == 4);
    CHECK(service.stats().joins == 9);
    CHECK(service.stats().pushes == 2); // one push for the burst
    CHECK(service.stats().blocks_dirty == 0);

    // MulticastForwardingTableRecords: the blocks in use of the four
    // switches that forward the group (block 0, position 0 each; the other
    // spine holds an empty block: none), under the switch's LID, each equal
    // to what the fake switch holds; by LID one switch's.
    {
        sa::SaHeader h;
        h.method = sa::method::get_table;
        h.attr_id = sa::attr::mft_record;
        std::array<std::uint8_t, sa::data_size> data{};
        const auto all = service.mft_records(daemon::SaRequest{h, data, mad::GsiAddress{Lid(99)}, *snap});
        REQUIRE(all.status == sa::status::ok);
        CHECK(all.records.size() == 4);
        std::set<NodeId> seen;
        for (const auto& rec : all.records) {
            const auto r = sa::decode_mft_record(rec);
            REQUIRE(r);
            CHECK(r->block == 0);
            CHECK(r->position == 0);
            const auto at = snap->lids.lids.port_of(r->lid);
            REQUIRE(at);
            CHECK(at->port == PortNum(0));
            // The snapshot's node ids are discovery's; the fake's by GUID.
            const auto fake_node = *loop.fabric.fabric().find_node(snap->found.fabric.node(at->node).guid);
            seen.insert(fake_node);
            const auto holds = loop.fabric.mft(fake_node);
            for (unsigned i = 0; i < mad::mft_block_size; ++i) {
                const auto it = holds.find(static_cast<std::uint16_t>(0xC000 + i));
                CHECK(r->table.masks[i] == (it == holds.end() ? 0 : it->second.position(0)));
            }
        }
        CHECK(seen.size() == 4);
        for (const auto& rec : all.records) CHECK(sa::decode_mft_record(rec)->table.masks[0] != 0);
        // By LID (component 0): one leaf's record; BlockNum 1 (component 3): none.
        const auto leaf_node = *snap->found.fabric.find_node(loop.fabric.fabric().node(t.leaves[0]).guid);
        const Lid leaf = snap->lids.lids.lids_of(PortRef{leaf_node, PortNum(0)})->base;
        data[0] = static_cast<std::uint8_t>(leaf.value() >> 8);
        data[1] = static_cast<std::uint8_t>(leaf.value());
        h.component_mask = 1;
        h.method = sa::method::get;
        const auto one = service.mft_records(daemon::SaRequest{h, data, mad::GsiAddress{Lid(99)}, *snap});
        REQUIRE(one.records.size() == 1);
        CHECK(sa::decode_mft_record(one.records[0])->lid == leaf);
        data[3] = 1;
        h.component_mask = 1 | (1u << 3);
        CHECK(service.mft_records(daemon::SaRequest{h, data, mad::GsiAddress{Lid(99)}, *snap}).records.empty());
        h.component_mask = 1u << 6; // MulticastForwardingTableRecord has 6 components
        CHECK(service.mft_records(daemon::SaRequest{h, data, mad::GsiAddress{Lid(99)}, *snap}).status ==
              sa::status::req_invalid);
    }

    // A trusted query lists the members; an untrusted one sees the group only.
    mad::McMemberRecord q;
    q.mgid = bcast;
    CHECK(call(sa::method::get_table, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid, true)
              .records.size() == 9);
    CHECK(call(sa::method::get_table, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid).records.size() ==
          1);
    // A refused join: components missing.
    CHECK(call(sa::method::set, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid).status ==
          sa::status::insufficient_components);
    // A component mask naming components MCMemberRecord does not have.
    CHECK(call(sa::method::get_table, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid | (1ull << 18))
              .status == sa::status::req_invalid);
    CHECK_FALSE(service.pushing()); // queries and refusals change no tree

    // H6..H8 (all of L2) leave: L2 drops out of the tree.
    for (unsigned h = 6; h < 9; ++h) {
        mad::McMemberRecord r;
        r.mgid = bcast;
        r.port_gid = mad::Gid128{0xfe80000000000000ull, port_guid(loop.fabric, t.hosts[h]).value()};
        r.join_state = mad::join_state::full_member;
        REQUIRE(call(sa::method::delete_, lid_of(*snap, port_guid(loop.fabric, t.hosts[h])), r,
                     m::mgid | m::port_gid | m::join_state)
                    .status == sa::status::ok);
    }
    loop.fabric.reset_counters();
    sm.settle();
    const std::vector<NodeId> six(t.hosts.begin(), t.hosts.begin() + 6);
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), six);
    CHECK(held(loop.fabric, 0xC000).count(t.leaves[2]) == 0);
    // Only the switches whose masks changed: L2 (cleared) and the root spine.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 2);
    CHECK(service.stats().pushes == 3);

    // A re-route after the root spine's link to L1 goes (a light sweep's
    // PortStateChange on the root spine): the tree moves.
    const auto masks = held(loop.fabric, 0xC000);
    NodeId root = t.spines[0];
    for (auto s : t.spines)
        if (masks.count(s)) root = s;
    loop.fabric.unlink({root, PortNum(2)});
    sm.events.push(daemon::PortStateChangeEvent{loop.fabric.fabric().node(root).guid});
    run_until(loop, [&] { return sm.scheduler.stats().reroutes == 1 && sm.idle(); });
    REQUIRE(sm.outcomes.back().up);
    CHECK(sm.outcomes.back().kind == daemon::SweepKind::reroute);
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), six);
    CHECK(service.stats().pushes == 4);

    // H5's cable goes: the re-route loses the port, its membership ends and
    // the tree serves the other five.
    const auto h5_leaf = loop.fabric.fabric().remote({t.hosts[5], PortNum(1)});
    REQUIRE(h5_leaf);
    loop.fabric.unlink({t.hosts[5], PortNum(1)});
    sm.events.push(daemon::PortStateChangeEvent{loop.fabric.fabric().node(h5_leaf->node).guid});
    run_until(loop, [&] { return sm.scheduler.stats().reroutes == 2 && sm.idle(); });
    REQUIRE(sm.outcomes.back().up);
    const auto* group = service.groups().find(bcast);
    REQUIRE(group);
    CHECK(group->members.size() == 5);
    CHECK(group->members.count(port_guid(loop.fabric, t.hosts[5])) == 0);
    const std::vector<NodeId> five(t.hosts.begin(), t.hosts.begin() + 5);
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), five);
    CHECK(service.stats().blocks_dirty == 0);
    sm.stop();
}

TEST_CASE("No multicast table reaches a switch but as the scheduler's work, after the sweep work pending",
          "[mcast][mft][scheduler]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    daemon::McastSettings ms;
    ms.batch = std::chrono::milliseconds(1);
    McastSm sm(loop, bringup_settings(dir.path), ms);
    std::vector<std::string> order; // sweeps and pushes, as they ran
    sm.scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr&) {
        order.push_back(o.kind == daemon::SweepKind::heavy ? "heavy sweep" : "re-route");
    });
    sm.scheduler.set_mcast_push([&]() -> boost::asio::awaitable<void> {
        order.push_back("push");
        co_await sm.service.push();
    });
    REQUIRE(loop.run([&] { return sm.bringup.sweep(); }).up);
    sm.service.on_snapshot(sm.bringup.snapshot());
    auto snap = sm.bringup.snapshot();
    SaCall call{sm.service, *snap};
    for (unsigned h = 0; h < 9; ++h) {
        mad::McMemberRecord r;
        r.mgid = bcast;
        r.port_gid = mad::Gid128{0xfe80000000000000ull, port_guid(loop.fabric, t.hosts[h]).value()};
        r.p_key = 0xffff;
        r.join_state = mad::join_state::full_member;
        REQUIRE(call(sa::method::set, lid_of(*snap, port_guid(loop.fabric, t.hosts[h])), r,
                     m::mgid | m::port_gid | m::p_key | m::join_state)
                    .status == sa::status::ok);
    }
    // The scheduler is not running: the joins are answered, one request
    // waits in the queue, and long after the batch nothing was sent.
    loop.fabric.reset_counters();
    CHECK(sm.events.size() == 1);
    loop.io.restart();
    loop.io.run_for(std::chrono::milliseconds(50));
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 0);
    CHECK(sm.service.stats().pushes == 0);
    CHECK(sm.service.pushing());

    // The scheduler's first heavy sweep runs before the waiting push; the
    // sweep's new snapshot folds into the same request: one push.
    sm.start();
    run_until(loop, [&] { return sm.scheduler.stats().heavy_sweeps == 1 && sm.idle(); });
    CHECK(order == std::vector<std::string>{"heavy sweep", "push"});
    CHECK(sm.service.stats().pushes == 1);
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), t.hosts);

    // A join, then a sweep request before the join's batch is gathered: the
    // sweep goes first, then the push over its snapshot.
    mad::McMemberRecord r;
    r.mgid = bcast;
    r.port_gid = mad::Gid128{0xfe80000000000000ull, port_guid(loop.fabric, t.hosts[0]).value()};
    r.join_state = mad::join_state::full_member;
    snap = sm.bringup.snapshot();
    SaCall again{sm.service, *snap};
    REQUIRE(again(sa::method::delete_, lid_of(*snap, port_guid(loop.fabric, t.hosts[0])), r,
                  m::mgid | m::port_gid | m::join_state)
                .status == sa::status::ok);
    sm.events.push(daemon::HeavySweepEvent{"test"});
    order.clear();
    run_until(loop, [&] { return sm.scheduler.stats().heavy_sweeps == 2 && sm.idle(); });
    CHECK(order == std::vector<std::string>{"heavy sweep", "push"});
    check_delivery(loop.fabric, held(loop.fabric, 0xC000),
                   std::vector<NodeId>(t.hosts.begin() + 1, t.hosts.end()));
    sm.stop();
}

TEST_CASE("PathRecords respect partitions: only within a partition both ends share, one side full",
          "[mcast][pkeys][paths]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    auto settings = bringup_settings(dir.path);
    const Guid h1 = port_guid(loop.fabric, t.hosts[1]), h2 = port_guid(loop.fabric, t.hosts[2]),
               h3 = port_guid(loop.fabric, t.hosts[3]), h4 = port_guid(loop.fabric, t.hosts[4]);
    settings.partitions = rules({{"storage", 0x0001, true, {}, false, {full(h1), limited(h2), limited(h3)}, {}, 1}});
    daemon::Bringup b(loop.transport, settings);
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    const auto snap = b.snapshot();
    REQUIRE(snap->partitions);
    auto paths = [&](Guid src, Guid dst, std::optional<std::uint16_t> pkey) {
        sa::PathRecord q;
        q.sgid = sa::make_gid(0xfe80000000000000ull, src);
        q.dgid = sa::make_gid(0xfe80000000000000ull, dst);
        std::uint64_t mask = sa::pr_mask::sgid | sa::pr_mask::dgid;
        if (pkey) {
            q.pkey = *pkey;
            mask |= sa::pr_mask::pkey;
        }
        sa::SaHeader h;
        h.method = sa::method::get_table;
        h.attr_id = sa::attr::path_record;
        h.component_mask = mask;
        auto data = sa::encode(q);
        data.resize(sa::data_size);
        daemon::SaRequest req{h, data, mad::GsiAddress{lid_of(*snap, src)}, *snap};
        std::vector<std::uint16_t> keys;
        for (const auto& r : daemon::sa_path_records(req).records) keys.push_back(sa::decode_path_record(r)->pkey);
        return keys;
    };
    // Everyone shares the default partition.
    CHECK(paths(h4, h1, std::nullopt) == std::vector<std::uint16_t>{0xffff});
    CHECK(paths(h2, h3, std::nullopt) == std::vector<std::uint16_t>{0xffff});
    // In storage: a full and a limited member talk; two limited ones or a
    // stranger get no path.
    CHECK(paths(h1, h2, 0x8001) == std::vector<std::uint16_t>{0x8001});
    CHECK(paths(h2, h1, 0x0001) == std::vector<std::uint16_t>{0x0001});
    CHECK(paths(h2, h3, 0x0001).empty());
    CHECK(paths(h4, h1, 0x0001).empty());
}

TEST_CASE("Multicast notices: trap 66 when a group gets its first full member, 67 when it is deleted",
          "[mcast][inform]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    auto settings = bringup_settings(dir.path);
    const Guid h1 = port_guid(loop.fabric, t.hosts[1]), h2 = port_guid(loop.fabric, t.hosts[2]);
    // "storage" with its IPoIB broadcast group, then the same fabric without it.
    settings.partitions = rules({{"storage", 0x0001, true, {}, false, {full(h1), full(h2)}, {}, 1}});
    daemon::Bringup b(loop.transport, settings);
    auto up = [&] {
        const auto o = loop.run([&] { return b.sweep(); });
        INFO(o.reason);
        REQUIRE(o.up);
        return b.snapshot();
    };
    const auto before = up();
    settings.partitions = rules({});
    b.reconfigure(settings);
    const auto after = up();

    daemon::EventQueue events(loop.io.get_executor());
    daemon::McastSettings ms;
    daemon::McastService service(events, loop.transport, ms);
    std::vector<mad::Notice> told;
    service.set_notices([&](const mad::Notice& n) { told.push_back(n); });
    service.on_snapshot(before);
    const mcast::Group* storage = nullptr;
    for (const auto& [mgid, g] : service.groups().groups())
        if ((g.params.p_key & 0x7fff) == 0x0001) storage = &g;
    REQUIRE(storage);
    const auto mgid = storage->params.mgid;
    CHECK(told.empty()); // created by the partition, without members: nothing yet (as OpenSM)

    auto gid_of = [](const mad::Gid128& g) { return sa::make_gid(g.prefix, Guid(g.interface_id)); };
    auto check_notice = [&](const mad::Notice& n, std::uint16_t trap) {
        CHECK(n.is_generic);
        CHECK(n.type == mad::notice_type::subnet_management);
        CHECK(n.producer_type_or_vendor_id == 4);
        CHECK(n.trap_number_or_device_id == trap);
        CHECK(n.issuer_lid == before->lids.sm_lid);
        REQUIRE(std::holds_alternative<mad::GidServiceDetails>(n.details));
        CHECK(std::get<mad::GidServiceDetails>(n.details).gid == gid_of(mgid));
        // Through the wire codec as a Report carries it: 66/67 decode to the MGID.
        std::array<std::uint8_t, mad::notice_size> bytes{};
        mad::encode_with_issuer_gid(n, std::span<std::uint8_t, mad::notice_size>(bytes));
        auto back = mad::decode_notice(bytes);
        REQUIRE(back);
        CHECK(*back == n);
    };

    SaCall call{service, *before};
    auto join = [&](Guid who, std::uint8_t state) {
        mad::McMemberRecord r;
        r.mgid = mgid;
        r.port_gid = mad::Gid128{0xfe80000000000000ull, who.value()};
        r.join_state = state;
        return call(sa::method::set, lid_of(*before, who), r, m::mgid | m::port_gid | m::join_state);
    };
    REQUIRE(join(h1, mad::join_state::full_member).status == sa::status::ok);
    REQUIRE(told.size() == 1);
    check_notice(told[0], 66);
    REQUIRE(join(h2, mad::join_state::full_member).status == sa::status::ok);
    CHECK(told.size() == 1); // not its first full member

    // The partition goes with the next generation: its group is deleted,
    // and subscribers are told.
    service.on_snapshot(after);
    CHECK_FALSE(service.groups().find(mgid));
    REQUIRE(told.size() == 2);
    check_notice(told[1], 67);

    // A group made by a join: 66 with it, 67 when its last full member leaves.
    told.clear();
    SaCall now{service, *after};
    mad::McMemberRecord r;
    r.port_gid = mad::Gid128{0xfe80000000000000ull, h1.value()};
    r.join_state = mad::join_state::full_member;
    r.q_key = 0x1234;
    r.p_key = 0xffff;
    auto made = now(sa::method::set, lid_of(*after, h1), r,
                    m::mgid | m::port_gid | m::join_state | m::q_key | m::traffic_class | m::p_key | m::flow_label | m::sl);
    REQUIRE(made.status == sa::status::ok);
    const auto created = mad::decode_mc_member_record(made.records.at(0))->mgid;
    REQUIRE(told.size() == 1);
    CHECK(told[0].trap_number_or_device_id == 66);
    CHECK(std::get<mad::GidServiceDetails>(told[0].details).gid == gid_of(created));
    r.mgid = created;
    REQUIRE(now(sa::method::delete_, lid_of(*after, h1), r, m::mgid | m::port_gid | m::join_state).status ==
            sa::status::ok);
    CHECK_FALSE(service.groups().find(created));
    REQUIRE(told.size() == 2);
    CHECK(told[1].trap_number_or_device_id == 67);
    CHECK(std::get<mad::GidServiceDetails>(told[1].details).gid == gid_of(created));
}
