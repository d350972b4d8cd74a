// The SA's tables records (sa_tables.h): SLtoVLMappingTableRecords,
// VLArbitrationTableRecords and P_KeyTableRecords of a bring-up on the fake
// fabric, each compared with what the fake ports and switches hold (read
// through the fake's own state, not the SM's), with their component masks;
// and the PathRecord's MTU and rate at a switch's port 0.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sa/path_dlids.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_tables.h"
#include "daemon/sweep/bringup.h"
#include "mad/sa/records.h"

#include <catch2/catch.hpp>

#include <set>
#include <tuple>

using namespace ibsm;
namespace sa = ibsm::mad::sa;
using topology::NodeId;
using topology::PortRef;

namespace {

// A bring-up of TwoSwitches (dfsssp, so SLs ride several VLs) with the VL
// tables written everywhere (routing.vl_tables: always, switch_sl2vl:
// always) or left alone (`all_tables` false: auto with a one-VL engine), and
// one partition beside the default one.
struct Tables {
    test::QuietLogs quiet;
    test::TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop{t.f};
    daemon::SnapshotPtr snap;

    explicit Tables(bool all_tables, std::vector<std::string> engines = {"dfsssp"})
    {
        auto settings = test::bringup_settings(dir.path, std::move(engines));
        settings.vls.all_port_tables = all_tables;
        settings.vls.all_switch_pairs = all_tables;
        const Guid h2 = loop.fabric.fabric().port(PortRef{t.h2, PortNum(1)}).guid;
        // Default=0x7fff,ipoib : ALL=full (no file), then storage=0x0001 : h2=full.
        partition::Rule storage;
        storage.name = "storage";
        storage.pkey = 0x0001;
        storage.ipoib = true;
        storage.members = {{partition::Who::self, Guid(), partition::Membership::full},
                           {partition::Who::port, h2, partition::Membership::full}};
        settings.partitions = std::make_shared<const std::vector<partition::Rule>>(
            partition::effective_rules({storage}, false));
        daemon::Bringup b(loop.transport, settings);
        const auto outcome = loop.run([&] { return b.sweep(); });
        INFO(outcome.reason);
        REQUIRE(outcome.up);
        snap = b.snapshot();
        REQUIRE(snap);
    }

    const topology::Fabric& fabric() const { return snap->found.fabric; }
    Lid lid_of(NodeId n, unsigned port = 1) const
    {
        const auto& f = fabric();
        const auto id = *f.find_node(t.f.node(n).guid);
        return snap->lids.lids.lids_of(daemon::endport_of(*snap, PortRef{id, PortNum(static_cast<std::uint8_t>(port))}))
            ->base;
    }
    // The fake's node behind a record's LID.
    NodeId node_at(Lid lid) const
    {
        const auto p = snap->lids.lids.port_of(lid);
        REQUIRE(p);
        return *loop.fabric.fabric().find_node(fabric().node(p->node).guid);
    }
};

struct Req {
    sa::SaHeader h;
    std::vector<std::uint8_t> record = std::vector<std::uint8_t>(sa::data_size, 0);
    bool trusted = false;

    Req(std::uint8_t method, std::uint16_t attr, std::uint64_t mask)
    {
        h.method = method;
        h.attr_id = attr;
        h.component_mask = mask;
    }
    Req& put(std::size_t byte, std::size_t len, std::uint64_t v)
    {
        for (std::size_t i = 0; i < len; ++i) record[byte + i] = static_cast<std::uint8_t>(v >> (8 * (len - 1 - i)));
        return *this;
    }
    Req& with_key()
    {
        trusted = true;
        return *this;
    }
    daemon::SaAnswer run(const daemon::SubnetSnapshot& s, daemon::SaHandler f) const
    {
        return f(daemon::SaRequest{h, record, mad::GsiAddress{Lid(99)}, s, trusted});
    }
};

} // namespace

TEST_CASE("SLtoVLMappingTableRecords: every table the SM wrote, as the ports hold it, by LID and ports", "[sa][tables]")
{
    Tables n(true);
    const auto all = Req(sa::method::get_table, sa::attr::slvl_record, 0).run(*n.snap, daemon::sa_sl2vl_records);
    REQUIRE(all.status == sa::status::ok);
    // 4 CA ports; per switch, outputs 1, 2, 4 (cabled) from inputs 0, 1, 2, 4.
    CHECK(all.records.size() == 4 + 2 * 3 * 4);
    std::set<std::tuple<std::uint16_t, unsigned, unsigned>> keys;
    for (const auto& rec : all.records) {
        const auto r = sa::decode_sl2vl_record(rec);
        REQUIRE(r);
        CHECK(keys.insert({r->lid.value(), r->in_port, r->out_port}).second);
        const NodeId at = n.node_at(r->lid);
        const bool sw = n.loop.fabric.fabric().node(at).is_switch();
        INFO("LID " << r->lid.value() << " in " << unsigned(r->in_port) << " out " << unsigned(r->out_port));
        CHECK(r->table == n.loop.fabric.sl2vl(at, PortNum(r->in_port), PortNum(sw ? r->out_port : 1)));
    }
    // dfsssp on two switches needs more than one VL somewhere, or every
    // table would be VL 0 and this test could not tell tables apart.
    const bool any_vl = std::any_of(all.records.begin(), all.records.end(), [](const auto& rec) {
        const auto t = sa::decode_sl2vl_record(rec)->table;
        return std::any_of(t.vl.begin(), t.vl.end(), [](std::uint8_t v) { return v != 0; });
    });
    CHECK(any_vl);

    // By switch LID and output port: that output from every input.
    const Lid s1 = n.lid_of(n.t.s1, 0);
    const auto out4 = Req(sa::method::get_table, sa::attr::slvl_record, 1 | 4)
                          .put(0, 2, s1.value())
                          .put(3, 1, 4)
                          .run(*n.snap, daemon::sa_sl2vl_records);
    CHECK(out4.records.size() == 4);
    // One pair: a Get with LID, input and output.
    const auto pair = Req(sa::method::get, sa::attr::slvl_record, 1 | 2 | 4)
                          .put(0, 2, s1.value())
                          .put(2, 1, 1)
                          .put(3, 1, 4)
                          .run(*n.snap, daemon::sa_sl2vl_records);
    REQUIRE(pair.records.size() == 1);
    CHECK(sa::decode_sl2vl_record(pair.records[0])->table == n.loop.fabric.sl2vl(n.t.s1, PortNum(1), PortNum(4)));
    // Output 3 is not cabled: no table was written there, none is named.
    CHECK(Req(sa::method::get_table, sa::attr::slvl_record, 1 | 4)
              .put(0, 2, s1.value())
              .put(3, 1, 3)
              .run(*n.snap, daemon::sa_sl2vl_records)
              .records.empty());
    // A CA by its LID: one record, ports reserved (0).
    const auto h1 = Req(sa::method::get, sa::attr::slvl_record, 1)
                        .put(0, 2, n.lid_of(n.t.h1).value())
                        .run(*n.snap, daemon::sa_sl2vl_records);
    REQUIRE(h1.records.size() == 1);
    const auto r = sa::decode_sl2vl_record(h1.records[0]);
    CHECK(r->in_port == 0);
    CHECK(r->out_port == 0);
    CHECK(r->table == n.loop.fabric.sl2vl(n.t.h1, PortNum(0), PortNum(1)));
    // A component SL2VL records lack.
    CHECK(Req(sa::method::get, sa::attr::slvl_record, 1u << 5).run(*n.snap, daemon::sa_sl2vl_records).status ==
          sa::status::req_invalid);
}

namespace {
// Whether VLArb `block` (1..4) of port `p` lies wholly past the port's
// capacity, as the fake port itself says.
bool past_capacity(const Tables& n, PortRef p, unsigned block)
{
    const auto pi = n.loop.fabric.port_info(p);
    const unsigned cap = block <= 2 ? pi.vl_arb_low_cap : pi.vl_arb_high_cap;
    return (block % 2 == 0 ? mad::vl_arb_block_entries : 0u) >= cap;
}
} // namespace

TEST_CASE("VLArbitrationTableRecords: the blocks each port implements, as it holds them; the others empty",
          "[sa][tables]")
{
    Tables n(true);
    const auto all = Req(sa::method::get_table, sa::attr::vlarb_record, 0).run(*n.snap, daemon::sa_vlarb_records);
    REQUIRE(all.status == sa::status::ok);
    // Blocks the ports implement (capacity 8: block 1 of the low table,
    // block 3 of the high one) on 4 CA ports and the 3 cabled ports of each
    // switch, as the ports hold them; every other block answered is past
    // its port's capacity, so empty (osmtest -f q asks blocks 1..4 of each
    // port, and OpenSM answers them all).
    std::size_t implemented = 0, beyond = 0;
    std::set<std::tuple<unsigned, unsigned, unsigned>> seen;
    for (const auto& rec : all.records) {
        const auto r = sa::decode_vlarb_record(rec);
        REQUIRE(r);
        const NodeId at = n.node_at(r->lid);
        const PortRef port{at, PortNum(r->port)};
        INFO("LID " << r->lid.value() << " port " << unsigned(r->port) << " block " << unsigned(r->block));
        CHECK(seen.insert({r->lid.value(), r->port, r->block}).second);
        if (past_capacity(n, port, r->block)) {
            ++beyond;
            CHECK(r->table == mad::VlArbitrationTable{});
            continue;
        }
        ++implemented;
        CHECK((r->block == 1 || r->block == 3));
        CHECK(r->table == n.loop.fabric.vl_arbitration(port, static_cast<mad::VlArbBlock>(r->block)));
    }
    CHECK(implemented == 2 * (4 + 2 * 3));
    CHECK(beyond >= 2 * (4 + 2 * 3) + 2 * 4); // blocks 2 and 4 of those ports, 1..4 of each switch's port 0
    // The low table names VL 0 with a weight: the fake's default is empty,
    // so equality above is not the trivial one.
    CHECK(std::any_of(all.records.begin(), all.records.end(), [](const auto& rec) {
        const auto r = sa::decode_vlarb_record(rec);
        return r->block == 1 && r->table.entries[0].weight != 0;
    }));
    // By switch LID, port and block.
    const Lid s2 = n.lid_of(n.t.s2, 0);
    const auto one = Req(sa::method::get, sa::attr::vlarb_record, 1 | 2 | 4)
                         .put(0, 2, s2.value())
                         .put(2, 1, 4)
                         .put(3, 1, 1)
                         .run(*n.snap, daemon::sa_vlarb_records);
    REQUIRE(one.records.size() == 1);
    CHECK(sa::decode_vlarb_record(one.records[0])->port == 4);
    // Port 0 of a switch implements no arbitration table: four empty blocks.
    const auto port0 = Req(sa::method::get_table, sa::attr::vlarb_record, 1 | 2)
                           .put(0, 2, s2.value())
                           .put(2, 1, 0)
                           .run(*n.snap, daemon::sa_vlarb_records);
    REQUIRE(port0.records.size() == 4);
    for (const auto& rec : port0.records) CHECK(sa::decode_vlarb_record(rec)->table == mad::VlArbitrationTable{});
    // Even when its PortInfo claims a capacity (ibsim's base port 0 says 8
    // entries, which it does not have): still four empty blocks.
    auto claims = std::make_shared<daemon::SubnetSnapshot>(*n.snap);
    auto& pi0 = claims->found.port_info[PortRef{n.t.s2, PortNum(0)}];
    pi0.vl_arb_low_cap = pi0.vl_arb_high_cap = 8;
    const auto claimed = Req(sa::method::get_table, sa::attr::vlarb_record, 1 | 2)
                             .put(0, 2, s2.value())
                             .put(2, 1, 0)
                             .run(*claims, daemon::sa_vlarb_records);
    REQUIRE(claimed.records.size() == 4);
    for (const auto& rec : claimed.records) CHECK(sa::decode_vlarb_record(rec)->table == mad::VlArbitrationTable{});
    // Block 2 (low 32..63) of a port with 8 entries: answered, empty.
    const auto b2 = Req(sa::method::get, sa::attr::vlarb_record, 1 | 2 | 4)
                        .put(0, 2, s2.value())
                        .put(2, 1, 4)
                        .put(3, 1, 2)
                        .run(*n.snap, daemon::sa_vlarb_records);
    REQUIRE(b2.records.size() == 1);
    CHECK(sa::decode_vlarb_record(b2.records[0])->table == mad::VlArbitrationTable{});
}

TEST_CASE("ports whose VL tables the SM left alone have no SL2VL records, and VLArb records only past capacity",
          "[sa][tables]")
{
    Tables n(false, {"minhop"}); // one VL, no policy, vl_tables auto: nothing written
    CHECK(Req(sa::method::get_table, sa::attr::slvl_record, 0).run(*n.snap, daemon::sa_sl2vl_records).records.empty());
    // Blocks within a port's capacity hold what nobody here wrote or read:
    // not answered. Those past it are empty on every port.
    const auto va = Req(sa::method::get_table, sa::attr::vlarb_record, 0).run(*n.snap, daemon::sa_vlarb_records);
    CHECK_FALSE(va.records.empty());
    for (const auto& rec : va.records) {
        const auto r = sa::decode_vlarb_record(rec);
        CHECK(past_capacity(n, PortRef{n.node_at(r->lid), PortNum(r->port)}, r->block));
        CHECK(r->table == mad::VlArbitrationTable{});
    }
    const auto get = Req(sa::method::get, sa::attr::slvl_record, 1)
                         .put(0, 2, n.lid_of(n.t.h0).value())
                         .run(*n.snap, daemon::sa_sl2vl_records);
    CHECK(get.status == sa::status::ok);
    CHECK(get.records.empty()); // the agent turns this into NO_RECORDS
}

TEST_CASE("P_KeyTableRecords: trusted requesters only; the blocks the ports hold", "[sa][tables][trust]")
{
    Tables n(false, {"minhop"});
    // Without the SM_Key: refused (IBA 15.4.1).
    CHECK(Req(sa::method::get_table, sa::attr::pkey_table_record, 0).run(*n.snap, daemon::sa_pkey_table_records)
              .status == sa::status::denied);

    const auto all = Req(sa::method::get_table, sa::attr::pkey_table_record, 0)
                         .with_key()
                         .run(*n.snap, daemon::sa_pkey_table_records);
    REQUIRE(all.status == sa::status::ok);
    // 4 CA ports, 2 switch ports 0; the fake's switches enforce partitions
    // on the ports facing CAs when they report an enforcement capacity.
    std::size_t ca = 0, port0 = 0, facing = 0;
    for (const auto& rec : all.records) {
        const auto r = sa::decode_pkey_table_record(rec);
        REQUIRE(r);
        CHECK(r->block == 0);
        const NodeId at = n.node_at(r->lid);
        const bool sw = n.loop.fabric.fabric().node(at).is_switch();
        (sw ? (r->port == 0 ? port0 : facing) : ca)++;
        INFO("LID " << r->lid.value() << " port " << unsigned(r->port));
        CHECK(r->table == n.loop.fabric.pkey_table(PortRef{at, PortNum(r->port)}, 0));
    }
    CHECK(ca == 4);
    CHECK(port0 == 2);
    // H2 holds the storage partition beside the default one.
    const auto h2 = Req(sa::method::get, sa::attr::pkey_table_record, 1)
                        .put(0, 2, n.lid_of(n.t.h2).value())
                        .with_key()
                        .run(*n.snap, daemon::sa_pkey_table_records);
    REQUIRE(h2.records.size() == 1);
    const auto r = sa::decode_pkey_table_record(h2.records[0]);
    CHECK(r->port == 1);
    CHECK(r->table.keys[0] == 0xffff);
    CHECK(r->table.keys[1] == 0x8001);
    // Block 1 (component 1) does not exist; a switch's port 0 alone (component 2).
    CHECK(Req(sa::method::get_table, sa::attr::pkey_table_record, 1 | 2)
              .put(0, 2, n.lid_of(n.t.h2).value())
              .put(2, 2, 1)
              .with_key()
              .run(*n.snap, daemon::sa_pkey_table_records)
              .records.empty());
    const auto s1p0 = Req(sa::method::get_table, sa::attr::pkey_table_record, 1 | 4)
                          .put(0, 2, n.lid_of(n.t.s1, 0).value())
                          .put(4, 1, 0)
                          .with_key()
                          .run(*n.snap, daemon::sa_pkey_table_records);
    REQUIRE(s1p0.records.size() == 1);
    CHECK(sa::decode_pkey_table_record(s1p0.records[0])->port == 0);
}

TEST_CASE("PathRecord MTU and rate count a switch's port 0 at either end", "[sa][paths]")
{
    Tables n(false, {"minhop"});
    // A switch whose management port takes 1024-byte packets (ibsim's do)
    // and runs at 1x SDR, behind 2048-byte QDR 4x links.
    auto changed = std::make_shared<daemon::SubnetSnapshot>(*n.snap);
    const auto s2 = *changed->found.fabric.find_node(Guid(0x2000));
    auto& p0 = changed->found.fabric.node(s2).port(PortNum(0));
    p0.mtu_cap = 3;           // 1024
    p0.link_width_active = 1; // 1x
    p0.link_speed_active = 1; // SDR: 2.5 Gb/s
    const auto h0 = PortRef{*changed->found.fabric.find_node(Guid(0x100)), PortNum(1)};
    const Guid h0_guid = changed->found.fabric.port(h0).guid;
    auto path = [&](Guid from, Guid to) {
        const auto a = Req(sa::method::get, sa::attr::path_record, sa::pr_mask::sgid | sa::pr_mask::dgid)
                           .put(24, 8, sa::default_gid_prefix)
                           .put(32, 8, from.value())
                           .put(8, 8, sa::default_gid_prefix)
                           .put(16, 8, to.value())
                           .run(*changed, daemon::sa_path_records);
        REQUIRE(a.records.size() == 1);
        return *sa::decode_path_record(a.records[0]);
    };
    const auto to_switch = path(h0_guid, Guid(0x2000));
    CHECK(to_switch.mtu == 3);
    CHECK(to_switch.rate == 2); // 2.5 Gb/s
    const auto from_switch = path(Guid(0x2000), h0_guid);
    CHECK(from_switch.mtu == 3);
    CHECK(from_switch.rate == 2);
    // Between CAs the switch's port 0 is not on the path.
    const Guid h2 = changed->found.fabric.port(PortRef{*changed->found.fabric.find_node(Guid(0x300)), PortNum(1)}).guid;
    const auto between = path(h0_guid, h2);
    CHECK(between.mtu == 4);
    CHECK(between.rate != 2);
}

TEST_CASE("PathRecord GetTable naming neither end: every pair of endports (saquery -p)", "[sa][paths]")
{
    Tables n(false, {"minhop"});
    const auto all = Req(sa::method::get_table, sa::attr::path_record, 0).run(*n.snap, daemon::sa_path_records);
    REQUIRE(all.status == sa::status::ok);
    // 4 CAs and 2 switches: 36 ordered pairs, loopbacks included, one path each.
    const std::size_t endports = n.snap->lids.lids.entries().size();
    CHECK(endports == 6);
    CHECK(all.records.size() == endports * endports);
    std::set<std::pair<std::uint16_t, std::uint16_t>> pairs;
    for (const auto& rec : all.records) {
        const auto pr = sa::decode_path_record(rec);
        REQUIRE(pr);
        pairs.insert({pr->slid.value(), pr->dlid.value()});
    }
    CHECK(pairs.size() == endports * endports);
    // A Get still needs both ends.
    CHECK(Req(sa::method::get, sa::attr::path_record, 0).run(*n.snap, daemon::sa_path_records).status ==
          sa::status::insufficient_components);
}

TEST_CASE("a CA's tables records answer whatever port the query names (osmtest's, OpenSM's way)", "[sa][tables]")
{
    Tables n(true);
    const Lid h1 = n.lid_of(n.t.h1);
    // osmtest -f q asks VLArb of LID/port 0 for a CA: its port 1's blocks
    // (1..4; 2 and 4 past its capacity, empty).
    const auto va = Req(sa::method::get_table, sa::attr::vlarb_record, 1 | 2)
                        .put(0, 2, h1.value())
                        .put(2, 1, 0)
                        .run(*n.snap, daemon::sa_vlarb_records);
    REQUIRE(va.records.size() == 4);
    for (const auto& rec : va.records) CHECK(sa::decode_vlarb_record(rec)->port == 1);
    // SL2VL with made-up input and output ports.
    const auto sl = Req(sa::method::get, sa::attr::slvl_record, 1 | 2 | 4)
                        .put(0, 2, h1.value())
                        .put(2, 1, 5)
                        .put(3, 1, 6)
                        .run(*n.snap, daemon::sa_sl2vl_records);
    REQUIRE(sl.records.size() == 1);
    CHECK(sa::decode_sl2vl_record(sl.records[0])->out_port == 0);
    // P_Keys of port 0 of a CA: its port's.
    const auto pk = Req(sa::method::get, sa::attr::pkey_table_record, 1 | 4)
                        .put(0, 2, h1.value())
                        .put(4, 1, 0)
                        .with_key()
                        .run(*n.snap, daemon::sa_pkey_table_records);
    REQUIRE(pk.records.size() == 1);
    CHECK(sa::decode_pkey_table_record(pk.records[0])->port == 1);
    // A switch's port still selects: switch port 0's four blocks (empty),
    // and each CA's own port's four.
    CHECK(Req(sa::method::get_table, sa::attr::vlarb_record, 2)
              .put(2, 1, 0)
              .run(*n.snap, daemon::sa_vlarb_records)
              .records.size() == (2 + 4) * 4);
}
