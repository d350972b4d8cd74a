// Partitions and multicast against the in-process fake fabric: the P_Key
// tables the bring-up writes, and the multicast tables McastService keeps
// in step with joins, leaves and re-routes, judged by what the fake
// switches hold (a packet flooded through their MFTs reaches every member,
// once, without loops).
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "daemon/sa/mcast_service.h"
#include "daemon/sa/sa_paths.h"
#include "mad/sa/records.h"
#include "mad/mc_member_record.h"
#include "mad/sa/sa_mad.h"
#include "mcast/tree.h"

#include <catch2/catch.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

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

// CA port GUIDs in the fake are node GUID + port (as ibsim's).
Guid port_guid(const test::FakeFabric& fake, NodeId ca) { return fake.fabric().port(PortRef{ca, PortNum(1)}).guid; }

const mad::Gid128 bcast{0xff12401bffff0000ull, 0x00000000ffffffffull};

struct SaCall {
    daemon::McastService& service;
    const daemon::SubnetSnapshot& snap;

    daemon::SaAnswer operator()(std::uint8_t method, Lid requester, const mad::McMemberRecord& r, std::uint64_t mask,
                                std::uint64_t sm_key = 0)
    {
        sa::SaHeader h;
        h.method = method;
        h.attr_id = sa::attr::mcmember_record;
        h.component_mask = mask;
        h.sm_key = sm_key;
        std::array<std::uint8_t, sa::data_size> data{};
        mad::encode(r, std::span<std::uint8_t, mad::mc_member_record_size>(data.data(), mad::mc_member_record_size));
        daemon::SaRequest req{h, data, mad::GsiAddress{requester}, snap};
        return service.on_request(req);
    }
};

Lid lid_of(const daemon::SubnetSnapshot& snap, Guid port)
{
    auto ref = snap.found.fabric.find_port(port);
    REQUIRE(ref);
    return snap.lids.lids.lids_of(*ref)->base;
}

// Runs the loop until the service's push is done.
void settle(test::FabricLoop& loop, daemon::McastService& service)
{
    loop.run([&]() -> boost::asio::awaitable<int> {
        boost::asio::steady_timer t(loop.io);
        do {
            t.expires_after(std::chrono::milliseconds(5));
            co_await t.async_wait(boost::asio::use_awaitable);
        } while (service.pushing());
        co_return 0;
    });
}

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
    settings.partitions = std::make_shared<const partition::Partitions>(
        std::vector<partition::Definition>{{"storage", 0x0001, true, {{h1, true}, {h2, false}}}}, sm);
    settings.ports.enforce_partitions = true;
    daemon::Bringup b(loop.transport, settings);
    auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    REQUIRE(o.up);
    auto keys = [&](PortRef p) {
        auto k = loop.fabric.pkey_table(p).keys;
        return std::vector<std::uint16_t>(k.begin(), k.begin() + 3);
    };
    CHECK(keys({t.hosts[0], PortNum(1)}) == std::vector<std::uint16_t>{0xffff, 0x8001, 0});
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

TEST_CASE("Joins of every host build an MFT that reaches every member; leaves and re-routes keep it so",
          "[mcast][mft]")
{
    QuietLogs quiet;
    TempDir dir;
    Tree t;
    test::FabricLoop loop(t.f);
    auto settings = bringup_settings(dir.path);
    const partition::Partitions parts({}, port_guid(loop.fabric, t.hosts[0]));
    daemon::Bringup b(loop.transport, settings);
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    daemon::McastSettings ms;
    ms.batch = std::chrono::milliseconds(1);
    ms.sm_key = 0x5a;
    daemon::McastService service(loop.io, loop.transport, parts, ms);
    REQUIRE(service.groups().find(bcast));
    loop.fabric.reset_counters();
    service.on_snapshot(b.snapshot());
    settle(loop, service);
    CHECK(held(loop.fabric, 0xC000).empty()); // a group without members forwards nowhere
    // First contact: what the switches hold is unknown, so block 0 is written (empty) on all five.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 5);

    auto snap = b.snapshot();
    SaCall call{service, *snap};
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
    loop.fabric.reset_counters();
    settle(loop, service);
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), t.hosts);
    // One block, one position (<= 15 ports) per switch on the tree: three
    // leaves and the root spine; the other spine keeps its empty block.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 4);
    CHECK(held(loop.fabric, 0xC000).size() == 4);
    CHECK(service.stats().joins == 9);

    // A trusted query lists the members; an untrusted one sees the group only.
    mad::McMemberRecord q;
    q.mgid = bcast;
    CHECK(call(sa::method::get_table, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid, 0x5a)
              .records.size() == 9);
    CHECK(call(sa::method::get_table, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid).records.size() ==
          1);
    // A refused join: components missing.
    CHECK(call(sa::method::set, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid).status ==
          sa::status::insufficient_components);
    // A component mask naming components MCMemberRecord does not have.
    CHECK(call(sa::method::get_table, lid_of(*snap, port_guid(loop.fabric, t.hosts[4])), q, m::mgid | (1ull << 18))
              .status == sa::status::req_invalid);

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
    settle(loop, service);
    const std::vector<NodeId> six(t.hosts.begin(), t.hosts.begin() + 6);
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), six);
    CHECK(held(loop.fabric, 0xC000).count(t.leaves[2]) == 0);
    // Only the switches whose masks changed: L2 (cleared) and the root spine.
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr_multicast_forwarding_table) == 2);

    // A re-route after the root spine's link to L1 goes: the tree moves.
    const auto masks = held(loop.fabric, 0xC000);
    NodeId root = t.spines[0];
    for (auto s : t.spines)
        if (masks.count(s)) root = s;
    loop.fabric.unlink({root, PortNum(2)});
    daemon::RefreshRequest req;
    req.switches = {*b.snapshot()->found.fabric.find_node(loop.fabric.fabric().node(root).guid)};
    auto o = loop.run([&] { return b.reroute(req); });
    REQUIRE(o.up);
    service.on_snapshot(b.snapshot());
    settle(loop, service);
    check_delivery(loop.fabric, held(loop.fabric, 0xC000), six);
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
    settings.partitions = std::make_shared<const partition::Partitions>(
        std::vector<partition::Definition>{{"storage", 0x0001, true, {{h1, true}, {h2, false}, {h3, false}}}},
        port_guid(loop.fabric, t.hosts[0]));
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
