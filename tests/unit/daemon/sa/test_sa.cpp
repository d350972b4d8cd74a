// The SA in the daemon: record handlers over a snapshot the fake fabric's
// bring-up produced (checked against what the fake switches hold, read back
// independently), and the agent's protocol — statuses, RMPP windows,
// retries and aborts, ServiceRecord leases, InformInfo Reports — on a
// scripted port.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "daemon/sa/path_dlids.h"
#include "daemon/sa/sa_agent.h"
#include "daemon/sa/sa_inform.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_records.h"
#include "daemon/sa/sa_services.h"
#include "mad/perf_mgt.h"
#include "mad/sa/records.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>

#include <map>

using namespace ibsm;
namespace sa = ibsm::mad::sa;
using topology::NodeId;
using topology::PortRef;

namespace {

// A bring-up of TwoSwitches on the fake fabric; its snapshot is what the SA
// answers from, its read-back what the switches hold.
struct Subnet {
    test::QuietLogs quiet;
    test::TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop{t.f};
    daemon::SnapshotPtr snap;

    explicit Subnet(std::uint8_t lmc = 0, std::vector<std::string> engines = {"dfsssp"})
    {
        auto settings = test::bringup_settings(dir.path, std::move(engines));
        settings.lid.lmc = lmc;
        daemon::Bringup b(loop.transport, settings);
        const auto outcome = loop.run([&] { return b.sweep(); });
        INFO(outcome.reason);
        REQUIRE(outcome.up);
        snap = b.snapshot();
        REQUIRE(snap);
    }

    const topology::Fabric& fabric() const { return snap->found.fabric; }
    PortRef ca(Guid node_guid) const
    {
        return PortRef{*fabric().find_node(node_guid), PortNum(1)};
    }
    Lid lid_of(PortRef p) const { return snap->lids.lids.lids_of(daemon::endport_of(*snap, p))->base; }
};

// A request for a handler: header + record, from LID 99.
struct Req {
    sa::SaHeader h;
    std::vector<std::uint8_t> record = std::vector<std::uint8_t>(sa::data_size, 0);

    Req(std::uint8_t method, std::uint16_t attr, std::uint64_t mask)
    {
        h.method = method;
        h.attr_id = attr;
        h.component_mask = mask;
        h.tid = 7;
    }
    Req& put(std::size_t byte, std::size_t len, std::uint64_t v)
    {
        for (std::size_t i = 0; i < len; ++i) record[byte + i] = static_cast<std::uint8_t>(v >> (8 * (len - 1 - i)));
        return *this;
    }
    Req& put(const std::vector<std::uint8_t>& bytes)
    {
        std::copy(bytes.begin(), bytes.end(), record.begin());
        return *this;
    }
    daemon::SaAnswer run(const daemon::SubnetSnapshot& s, daemon::SaHandler f) const
    {
        return f(daemon::SaRequest{h, record, mad::GsiAddress{Lid(99)}, s});
    }
    sa::Mad mad() const { return sa::make_mad(h, record); }
};

// The port the agent answers through: every GSI send recorded.
class ScriptedPort final : public mad::MadPort {
public:
    struct Sent {
        sa::Mad mad;
        mad::GsiAddress to;
        sa::SaHeader h() const { return *sa::decode_header(mad); }
    };
    std::vector<Sent> sent;
    bool take_smps = false; // SMPs and counter queries: accepted and never answered, else refused

    bool send(const mad::Smp&, Lid, std::uint32_t) override { return take_smps; }
    std::optional<mad::RawReceive> try_receive() override { return std::nullopt; }
    int fd() const override { return -1; }
    bool pollable_by_reactor() const override { return false; }
    bool wait_readable(int) override { return false; }
    bool send_response(const mad::Smp&, const mad::RawReceive&) override { return false; }
    bool send_gsi(std::span<const std::uint8_t, mad::mad_size> mad, const mad::GsiAddress& to) override
    {
        Sent s;
        std::copy(mad.begin(), mad.end(), s.mad.begin());
        s.to = to;
        sent.push_back(s);
        return true;
    }
    std::vector<Sent> take() { return std::exchange(sent, {}); }
};

mad::RawReceive received(const sa::Mad& m, Lid from = Lid(99), std::size_t length = sa::mad_size,
                         std::uint32_t qpn = 1)
{
    mad::RawReceive r;
    r.smp = mad::Smp::from_bytes(std::span<const std::uint8_t>(m.data(), length));
    r.length = length;
    r.source_lid = from;
    r.source_qpn = qpn;
    return r;
}

// The agent on a scripted port, with short RMPP and Report timeouts.
struct Agent {
    boost::asio::io_context io;
    ScriptedPort port;
    mad::Transport transport{io, port, mad::TransportOptions{}};
    daemon::SaAgent agent;

    explicit Agent(daemon::SaSettings s = fast()) : agent(io, transport, s) {}
    static daemon::SaSettings fast()
    {
        daemon::SaSettings s;
        s.rmpp_timeout = std::chrono::milliseconds(20);
        s.rmpp_retries = 2;
        s.report_timeout = std::chrono::milliseconds(20);
        s.report_retries = 2;
        return s;
    }
    void wait(std::chrono::milliseconds d)
    {
        io.restart();
        io.run_for(d);
    }
};

sa::Mad ack(const sa::SaHeader& of, std::uint32_t seg, std::uint32_t window)
{
    sa::SaHeader h = of;
    h.method = static_cast<std::uint8_t>(of.method & 0x7f);
    h.rmpp = sa::RmppHeader{1, sa::RmppType::ack, 0x1f, sa::rmpp_flag::active, 0, seg, window};
    return sa::make_mad(h);
}

std::vector<std::uint8_t> data_of(const ScriptedPort::Sent& s, std::size_t n = sa::data_size)
{
    return {s.mad.begin() + sa::header_size, s.mad.begin() + static_cast<std::ptrdiff_t>(sa::header_size + n)};
}

} // namespace

TEST_CASE("NodeRecords: one per endport, by any LID of its range, fields from the fabric", "[sa]")
{
    Subnet n(2); // LMC 2: CAs own 4 LIDs each
    const auto all = Req(sa::method::get_table, sa::attr::node_record, 0).run(*n.snap, daemon::sa_node_records);
    CHECK(all.status == 0);
    CHECK(all.records.size() == 6); // 4 CAs + 2 switches

    const auto h2 = n.ca(Guid(0x300));
    const Lid base = n.lid_of(h2);
    for (unsigned off = 0; off < 4; ++off) {
        const auto a = Req(sa::method::get, sa::attr::node_record, 1)
                           .put(0, 2, base.value() + off)
                           .run(*n.snap, daemon::sa_node_records);
        REQUIRE(a.records.size() == 1);
        const auto r = sa::decode_node_record(a.records[0]);
        REQUIRE(r);
        CHECK(r->lid == base); // the record names the base LID
        CHECK(r->node_info.node_guid == Guid(0x300));
        CHECK(r->node_info.port_guid == n.fabric().port(h2).guid);
        CHECK(r->node_info.local_port_num == PortNum(1));
        CHECK(r->description.text == "H2");
    }
    // By NodeGUID (component 7) instead of LID.
    Req by_guid(sa::method::get_table, sa::attr::node_record, 1u << 7);
    by_guid.put(16, 8, 0x2000); // NodeInfo.NodeGUID: record bytes 16..23
    const auto sw = by_guid.run(*n.snap, daemon::sa_node_records);
    REQUIRE(sw.records.size() == 1);
    CHECK(sa::decode_node_record(sw.records[0])->node_info.node_type == mad::NodeKind::switch_node);
    // A LID nobody has, a component NodeRecord lacks.
    CHECK(Req(sa::method::get, sa::attr::node_record, 1).put(0, 2, 0xbff0).run(*n.snap, daemon::sa_node_records)
              .records.empty());
    CHECK(Req(sa::method::get, sa::attr::node_record, 1u << 15).run(*n.snap, daemon::sa_node_records).status ==
          sa::status::req_invalid);
}

TEST_CASE("PortInfo, Link, SwitchInfo, GUIDInfo and SMInfo records", "[sa]")
{
    Subnet n;
    const auto s1 = *n.fabric().find_node(Guid(0x1000));
    const Lid s1_lid = n.lid_of(PortRef{s1, PortNum(0)});
    // A switch LID: every port 0..4 the SM read; port 4 alone by PortNum.
    const auto pir = Req(sa::method::get_table, sa::attr::port_info_record, 1)
                         .put(0, 2, s1_lid.value())
                         .run(*n.snap, daemon::sa_port_info_records);
    CHECK(pir.records.size() == 5);
    const auto p4 = Req(sa::method::get, sa::attr::port_info_record, 3)
                        .put(0, 2, s1_lid.value())
                        .put(2, 1, 4)
                        .run(*n.snap, daemon::sa_port_info_records);
    REQUIRE(p4.records.size() == 1);
    const auto r = sa::decode_port_info_record(p4.records[0]);
    CHECK(r->port_num == 4);
    CHECK(r->port_info.port_state == mad::PortState::active);
    CHECK(r->port_info == n.snap->found.port_info.at(PortRef{s1, PortNum(4)}));

    // Both directions of each of the 5 cables; from one CA: its one link.
    const auto links = Req(sa::method::get_table, sa::attr::link_record, 0).run(*n.snap, daemon::sa_link_records);
    CHECK(links.records.size() == 10);
    const auto h0 = n.ca(Guid(0x100));
    const auto from_h0 = Req(sa::method::get_table, sa::attr::link_record, 1)
                             .put(0, 2, n.lid_of(h0).value())
                             .run(*n.snap, daemon::sa_link_records);
    REQUIRE(from_h0.records.size() == 1);
    CHECK(sa::decode_link_record(from_h0.records[0]) == sa::LinkRecord{n.lid_of(h0), 1, 1, s1_lid});

    const auto swir = Req(sa::method::get_table, sa::attr::switch_info_record, 0)
                          .run(*n.snap, daemon::sa_switch_info_records);
    CHECK(swir.records.size() == 2);
    for (const auto& rec : swir.records)
        CHECK(sa::decode_switch_info_record(rec)->switch_info.linear_fdb_top == n.snap->tables->linear_fdb_top.value());

    const auto gir = Req(sa::method::get, sa::attr::guid_info_record, 1)
                         .put(0, 2, n.lid_of(h0).value())
                         .run(*n.snap, daemon::sa_guid_info_records);
    REQUIRE(gir.records.size() == 1);
    CHECK(sa::decode_guid_info_record(gir.records[0])->guids[0] == n.fabric().port(h0).guid);

    mad::SmInfo ours{Guid(0x101), 0xabc, 77, 5, mad::SmState::master};
    Req smir(sa::method::get_table, sa::attr::sm_info_record, 0);
    auto a = daemon::sa_sm_info_records(daemon::SaRequest{smir.h, smir.record, {}, *n.snap}, ours);
    REQUIRE(a.records.size() == 1);
    auto d = sa::decode_sm_info_record(a.records[0]);
    CHECK(d->lid == n.snap->lids.sm_lid);
    CHECK(d->sm_info.sm_key == 0); // not presented: withheld
    CHECK(d->sm_info.sm_state == mad::SmState::master);
    a = daemon::sa_sm_info_records(daemon::SaRequest{smir.h, smir.record, {}, *n.snap, true}, ours);
    CHECK(sa::decode_sm_info_record(a.records[0])->sm_info.sm_key == 0xabc);
}

TEST_CASE("LFT records are what the switches hold", "[sa]")
{
    Subnet n;
    const auto rb = n.loop.fabric.read_back();
    const auto all = Req(sa::method::get_table, sa::attr::lft_record, 0).run(*n.snap, daemon::sa_lft_records);
    REQUIRE(all.records.size() == 2); // 2 switches, top < 64: one block each
    for (const auto& rec : all.records) {
        const auto r = sa::decode_lft_record(rec);
        REQUIRE(r);
        const auto here = n.snap->lids.lids.port_of(r->lid);
        REQUIRE(here);
        const Guid g = n.fabric().node(here->node).guid;
        const auto rb_node = *rb.fabric.find_node(g);
        const auto& held = rb.tables.lfts.at(rb_node);
        for (unsigned l = 1; l <= rb.tables.linear_fdb_top.value(); ++l) {
            INFO("switch " << g.str() << " LID " << l);
            CHECK(r->ports[l] == held.at(Lid(static_cast<std::uint16_t>(l))));
        }
    }
}

TEST_CASE("PathRecords: the LIDs, SL and links the routing gave each pair, as the switches hold them", "[sa]")
{
    Subnet n(0, {"dfsssp"});
    const auto rb = n.loop.fabric.read_back();
    std::vector<PortRef> cas;
    for (Guid g : {Guid(0x100), Guid(0x200), Guid(0x300), Guid(0x400)}) cas.push_back(n.ca(g));
    for (auto src : cas) {
        for (auto dst : cas) {
            const auto a = Req(sa::method::get, sa::attr::path_record, sa::pr_mask::sgid | sa::pr_mask::dgid)
                               .put(24, 8, sa::default_gid_prefix)
                               .put(32, 8, n.fabric().port(src).guid.value())
                               .put(8, 8, sa::default_gid_prefix)
                               .put(16, 8, n.fabric().port(dst).guid.value())
                               .run(*n.snap, daemon::sa_path_records);
            REQUIRE(a.records.size() == 1);
            const auto pr = *sa::decode_path_record(a.records[0]);
            CHECK(pr.slid == n.lid_of(src));
            CHECK(pr.dlid == n.lid_of(dst));
            CHECK(pr.sl == n.snap->tables->sl.at(src, pr.dlid));
            CHECK(pr.reversible);
            CHECK(pr.pkey == 0xffff);
            CHECK(pr.packet_life == (src == dst ? 0 : daemon::default_packet_life));
            CHECK(pr.mtu == n.fabric().port(src).mtu_cap);
            if (src == dst) continue;
            // Follow the tables the fake switches hold to the DLID: they
            // deliver to the destination's port.
            const auto& f = rb.fabric;
            auto at = *f.remote(PortRef{*f.find_node(n.fabric().node(src.node).guid), PortNum(1)});
            bool delivered = false;
            for (int hop = 0; hop < 8 && !delivered; ++hop) {
                const auto out = rb.tables.lfts.at(at.node).at(pr.dlid);
                REQUIRE(out != routing::no_route);
                const auto far = *f.remote(PortRef{at.node, PortNum(out)});
                if (!f.node(far.node).is_switch()) {
                    CHECK(f.node(far.node).guid == n.fabric().node(dst.node).guid);
                    delivered = true;
                }
                at = far;
            }
            CHECK(delivered);
        }
    }
}

TEST_CASE("LMC 2: four paths per pair with distinct DLIDs; Get, NumbPath, SLID/DLID narrow them", "[sa]")
{
    Subnet n(2);
    const auto src = n.ca(Guid(0x100)), dst = n.ca(Guid(0x400));
    auto q = [&](std::uint8_t method, std::uint64_t extra_mask = 0) {
        return Req(method, sa::attr::path_record, sa::pr_mask::sgid | sa::pr_mask::dgid | extra_mask)
            .put(24, 8, sa::default_gid_prefix)
            .put(32, 8, n.fabric().port(src).guid.value())
            .put(8, 8, sa::default_gid_prefix)
            .put(16, 8, n.fabric().port(dst).guid.value());
    };
    const auto table = q(sa::method::get_table).run(*n.snap, daemon::sa_path_records);
    REQUIRE(table.records.size() == 4);
    std::set<std::uint16_t> dlids, slids;
    for (const auto& rec : table.records) {
        const auto pr = *sa::decode_path_record(rec);
        dlids.insert(pr.dlid.value());
        slids.insert(pr.slid.value());
        CHECK(pr.dlid == *daemon::dlid_for(*n.snap, src, dst, static_cast<unsigned>(dlids.size() - 1)));
        CHECK(pr.sl == n.snap->tables->sl.at(src, pr.dlid));
    }
    CHECK(dlids.size() == 4);
    CHECK(slids.size() == 4);
    CHECK(*dlids.begin() == n.lid_of(dst).value());
    CHECK(q(sa::method::get).run(*n.snap, daemon::sa_path_records).records.size() == 1);
    CHECK(q(sa::method::get_table, sa::pr_mask::numb_path).put(49, 1, 2).run(*n.snap, daemon::sa_path_records)
              .records.size() == 2);
    const auto one = q(sa::method::get_table, sa::pr_mask::dlid)
                         .put(40, 2, n.lid_of(dst).value() + 2)
                         .run(*n.snap, daemon::sa_path_records);
    REQUIRE(one.records.size() == 1);
    CHECK(sa::decode_path_record(one.records[0])->dlid.value() == n.lid_of(dst).value() + 2);
    // Only one end: every endport is the other (GetTable). The SLID pins
    // the path index (path i runs from base+i to base+i): one per endport.
    const auto open = Req(sa::method::get_table, sa::attr::path_record, sa::pr_mask::slid)
                          .put(42, 2, n.lid_of(src).value())
                          .run(*n.snap, daemon::sa_path_records);
    CHECK(open.records.size() == 6);
    const auto open_gid = Req(sa::method::get_table, sa::attr::path_record, sa::pr_mask::sgid)
                              .put(24, 8, sa::default_gid_prefix)
                              .put(32, 8, n.fabric().port(src).guid.value())
                              .run(*n.snap, daemon::sa_path_records);
    CHECK(open_gid.records.size() == 4 * 4 + 2 * 1); // 4 CAs (itself too) x 4 paths, 2 switches x 1
}

TEST_CASE("path LIDs agree with the LID map for every pair, across snapshots asked in turn", "[sa]")
{
    // The LIDs come from an index cached per snapshot: asking two subnets
    // (LMC 0 and 2) in turn must rebuild it each time, never answer one
    // with the other's LIDs.
    Subnet plain(0), wide(2);
    for (int round = 0; round < 2; ++round) {
        for (const Subnet* n : {&plain, &wide}) {
            const auto& s = *n->snap;
            const auto ports = s.lids.lids.entries();
            for (const auto& [src, a] : ports) {
                for (const auto& [dst, b] : ports) {
                    const unsigned count = daemon::path_count(s, src, dst);
                    REQUIRE(count == b.count());
                    for (unsigned i = 0; i < count; ++i) {
                        CHECK(*daemon::slid_for(s, src, dst, i) == Lid(static_cast<std::uint16_t>(a.base.value() + i % a.count())));
                        CHECK(*daemon::dlid_for(s, src, dst, i) == Lid(static_cast<std::uint16_t>(b.base.value() + i)));
                    }
                    CHECK_FALSE(daemon::dlid_for(s, src, dst, count));
                }
            }
        }
    }
}

TEST_CASE("per-pair path routing (pathsel + color/L): one PathRecord per pair, on the DLID routing chose for it", "[sa][paths]")
{
    test::QuietLogs quiet;
    test::TempDir dir;
    topology::RandomParams p;
    p.switches = 8;
    p.hosts_per_switch = 4;
    p.ports_per_switch = 10;
    p.seed = 3;
    test::FabricLoop loop(topology::generate_random(p));
    daemon::Bringup b(loop.transport, test::bringup_settings(dir.path, {"pathsel"}));
    const auto outcome = loop.run([&] { return b.sweep(); });
    INFO(outcome.reason);
    REQUIRE(outcome.up);
    const auto snap = b.snapshot();
    REQUIRE(snap->tables);
    REQUIRE(snap->tables->pair_dlids);
    const auto& pd = *snap->tables->pair_dlids;
    const auto& f = snap->found.fabric;
    const auto rb = loop.fabric.read_back();
    unsigned off_base = 0, pairs = 0;
    for (std::size_t si = 0; si < pd.sources.size(); ++si) {
        const PortRef src = pd.sources[si];
        if (f.node(src.node).is_switch()) continue;
        for (std::size_t di = 0; di < pd.destinations.size(); ++di) {
            const PortRef dst = pd.destinations[di].port;
            if (dst == src) continue;
            const auto want = pd.dlid(si, di);
            REQUIRE(want);
            // GetTable over (SGID, DGID): exactly the one path routing chose.
            const auto a = Req(sa::method::get_table, sa::attr::path_record, sa::pr_mask::sgid | sa::pr_mask::dgid)
                               .put(24, 8, sa::default_gid_prefix)
                               .put(32, 8, f.port(src).guid.value())
                               .put(8, 8, sa::default_gid_prefix)
                               .put(16, 8, f.port(dst).guid.value())
                               .run(*snap, daemon::sa_path_records);
            REQUIRE(a.records.size() == 1);
            const auto pr = *sa::decode_path_record(a.records[0]);
            CHECK(pr.dlid == *want);
            CHECK(pr.slid == snap->lids.lids.lids_of(src)->base);
            ++pairs;
            if (pr.dlid != pd.destinations[di].base) ++off_base;
            // The switches' read-back tables deliver the pair on that DLID.
            auto at = *rb.fabric.remote(PortRef{*rb.fabric.find_node(f.node(src.node).guid), src.port});
            bool delivered = false;
            for (int hop = 0; hop < 16 && !delivered; ++hop) {
                const auto out = rb.tables.lfts.at(at.node).at(pr.dlid);
                REQUIRE(out != routing::no_route);
                const auto far = *rb.fabric.remote(PortRef{at.node, PortNum(out)});
                if (!rb.fabric.node(far.node).is_switch()) {
                    CHECK(rb.fabric.port(far).guid == f.port(dst).guid);
                    delivered = true;
                }
                at = far;
            }
            CHECK(delivered);
        }
    }
    CHECK(pairs == 32 * 31);
    // A port's path to itself: one record, its own base LID.
    const PortRef self = pd.destinations.front().port;
    const auto me = Req(sa::method::get_table, sa::attr::path_record, sa::pr_mask::sgid | sa::pr_mask::dgid)
                        .put(24, 8, sa::default_gid_prefix)
                        .put(32, 8, f.port(self).guid.value())
                        .put(8, 8, sa::default_gid_prefix)
                        .put(16, 8, f.port(self).guid.value())
                        .run(*snap, daemon::sa_path_records);
    REQUIRE(me.records.size() == 1);
    CHECK(sa::decode_path_record(me.records[0])->dlid == pd.destinations.front().base);
    // Not only base LIDs: color/L gave some destinations several LIDs and
    // some pairs use one of the others (else this test proves nothing).
    CHECK(off_base > 0);
}

TEST_CASE("PathRecord selectors, SL filter and the errors a query can earn", "[sa]")
{
    Subnet n;
    const auto src = n.ca(Guid(0x100)), dst = n.ca(Guid(0x200));
    auto q = [&](std::uint64_t extra_mask) {
        return Req(sa::method::get, sa::attr::path_record, sa::pr_mask::slid | sa::pr_mask::dlid | extra_mask)
            .put(42, 2, n.lid_of(src).value())
            .put(40, 2, n.lid_of(dst).value());
    };
    const auto base = *sa::decode_path_record(q(0).run(*n.snap, daemon::sa_path_records).records.at(0));
    // MTU: greater than the path's -> none; exactly a smaller one -> lowered.
    CHECK(q(sa::pr_mask::mtu_selector | sa::pr_mask::mtu).put(54, 1, (0 << 6) | base.mtu)
              .run(*n.snap, daemon::sa_path_records).records.empty());
    const auto lowered = q(sa::pr_mask::mtu_selector | sa::pr_mask::mtu)
                             .put(54, 1, (2 << 6) | 1)
                             .run(*n.snap, daemon::sa_path_records);
    REQUIRE(lowered.records.size() == 1);
    CHECK(sa::decode_path_record(lowered.records[0])->mtu == 1);
    // SL: the routing's only.
    CHECK(q(sa::pr_mask::sl).put(53, 1, base.sl).run(*n.snap, daemon::sa_path_records).records.size() == 1);
    CHECK(q(sa::pr_mask::sl).put(53, 1, (base.sl + 1) & 0xf).run(*n.snap, daemon::sa_path_records).records.empty());
    // Errors.
    CHECK(Req(sa::method::get, sa::attr::path_record, 0).run(*n.snap, daemon::sa_path_records).status ==
          sa::status::insufficient_components);
    CHECK(Req(sa::method::get, sa::attr::path_record, sa::pr_mask::slid).put(42, 2, 1).run(*n.snap,
                                                                                              daemon::sa_path_records)
              .status == sa::status::insufficient_components);
    CHECK(Req(sa::method::get, sa::attr::path_record, sa::pr_mask::sgid | sa::pr_mask::dgid)
              .put(24, 8, sa::default_gid_prefix)
              .put(32, 8, 0xdead)
              .run(*n.snap, daemon::sa_path_records)
              .status == sa::status::invalid_gid);
    CHECK(Req(sa::method::get, sa::attr::path_record, 1ull << 40).run(*n.snap, daemon::sa_path_records).status ==
          sa::status::req_invalid);
}

TEST_CASE("MultiPathRecord: every (SGID, DGID) pair, NumbPath in total", "[sa]")
{
    Subnet n(1);
    sa::MultiPathRecord m;
    m.sgids = {sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x100))).guid)};
    m.dgids = {sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x300))).guid),
               sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x400))).guid)};
    Req r(sa::method::get_multi, sa::attr::multipath_record, sa::mpr_mask::sgid_count | sa::mpr_mask::dgid_count);
    r.put(sa::encode(m));
    CHECK(r.run(*n.snap, daemon::sa_multipath_records).records.size() == 4); // 2 pairs x 2 paths
    m.numb_path = 3;
    Req limited(sa::method::get_multi, sa::attr::multipath_record,
                sa::mpr_mask::sgid_count | sa::mpr_mask::dgid_count | sa::mpr_mask::numb_path);
    limited.put(sa::encode(m));
    CHECK(limited.run(*n.snap, daemon::sa_multipath_records).records.size() == 3);
    Req no_counts(sa::method::get_multi, sa::attr::multipath_record, 0);
    CHECK(no_counts.run(*n.snap, daemon::sa_multipath_records).status == sa::status::insufficient_components);
}

TEST_CASE("ClassPortInfo: MultiPath always, UDMulticast once an MCMemberRecord handler is registered", "[sa][agent]")
{
    Subnet n;
    Agent a;
    daemon::register_fabric_records(a.agent, [] { return mad::SmInfo{}; });
    a.agent.publish(n.snap);
    auto cap = [&] {
        a.agent.on_mad(received(Req(sa::method::get, sa::attr::class_port_info, 0).mad()));
        auto sent = a.port.take();
        REQUIRE(sent.size() == 1);
        REQUIRE(sent.back().h().status == sa::status::ok);
        const auto d = data_of(sent.back(), 4);
        return static_cast<std::uint16_t>(d[2] << 8 | d[3]);
    };
    CHECK((cap() & daemon::sa_cap::multipath) != 0);
    CHECK((cap() & daemon::sa_cap::ud_multicast) == 0);
    a.agent.handle(sa::attr::mcmember_record, 56, {sa::method::get}, [](const daemon::SaRequest&) {
        return daemon::SaAnswer{sa::status::ok, {}};
    });
    CHECK((cap() & daemon::sa_cap::ud_multicast) != 0);
}

TEST_CASE("the agent answers malformed and unserved requests with SA statuses", "[sa][agent]")
{
    Subnet n;
    Agent a;
    daemon::register_fabric_records(a.agent, [] { return mad::SmInfo{}; });
    auto status_of = [&](const sa::Mad& m, std::size_t length = sa::mad_size) -> std::optional<std::uint16_t> {
        a.agent.on_mad(received(m, Lid(99), length));
        auto sent = a.port.take();
        if (sent.empty()) return std::nullopt;
        CHECK(sent.back().to.lid == Lid(99));
        CHECK(sent.back().to.qkey == sa::gsi_qkey);
        return sent.back().h().status;
    };
    const auto nr = Req(sa::method::get, sa::attr::node_record, 1).put(0, 2, n.snap->lids.sm_lid.value());
    CHECK(status_of(nr.mad()) == sa::status::no_resources); // nothing published yet
    a.agent.publish(n.snap);
    CHECK(status_of(nr.mad()) == sa::status::ok);
    CHECK(status_of(nr.mad(), 100) == sa::status::req_invalid); // truncated
    CHECK(status_of(nr.mad(), 20) == std::nullopt);              // not even a MAD header: not answered here
    CHECK(status_of(Req(sa::method::get, 0xff77, 0).mad()) == sa::status::method_attr_unsupported);
    CHECK(status_of(Req(sa::method::set, sa::attr::node_record, 1).mad()) == sa::status::denied); // untrusted
    CHECK(status_of(Req(sa::method::set, sa::attr::service_record, 1).mad()) == sa::status::method_attr_unsupported);
    CHECK(status_of(Req(0x03, sa::attr::node_record, 1).mad()) == sa::status::method_unsupported);
    CHECK(status_of(Req(sa::method::get, sa::attr::node_record, 1ull << 40).mad()) == sa::status::req_invalid);
    CHECK(status_of(Req(sa::method::get, sa::attr::node_record, 0).mad()) == sa::status::too_many_records);
    CHECK(status_of(Req(sa::method::get, sa::attr::node_record, 1).put(0, 2, 0xbff0).mad()) == sa::status::no_records);
    auto v1 = nr.mad();
    v1[2] = 1;
    CHECK(status_of(v1) == sa::status::bad_version);
    // Responses are not answered; a handler that throws is "no resources".
    auto resp = nr.mad();
    resp[3] = sa::method::get_resp;
    CHECK(status_of(resp) == std::nullopt);
    a.agent.handle(0xff01, 8, {sa::method::get}, [](const daemon::SaRequest&) -> daemon::SaAnswer {
        throw std::runtime_error("boom");
    });
    CHECK(status_of(Req(sa::method::get, 0xff01, 0).mad()) == sa::status::no_resources);
    CHECK(a.agent.counters().malformed == 3);
}

TEST_CASE("GetTable answers go out in RMPP windows the receiver's ACKs open", "[sa][agent][rmpp]")
{
    Subnet n;
    Agent a;
    a.agent.publish(n.snap);
    // 23 records of 40 bytes (AttributeOffset 5): 920 bytes, 5 segments.
    std::vector<std::vector<std::uint8_t>> recs;
    for (std::uint8_t i = 0; i < 23; ++i) recs.push_back(std::vector<std::uint8_t>(40, i));
    a.agent.handle(0xff02, 40, {sa::method::get_table}, [&](const daemon::SaRequest&) {
        return daemon::SaAnswer{0, recs};
    });
    const auto req = Req(sa::method::get_table, 0xff02, 0).mad();
    a.agent.on_mad(received(req));
    auto sent = a.port.take();
    REQUIRE(sent.size() == 1); // window 1 until the first ACK
    const auto first = sent[0].h();
    CHECK(first.method == sa::method::get_table_resp);
    CHECK(first.attr_offset == 5);
    CHECK(first.rmpp.data1 == 1);
    CHECK(first.rmpp.data2 == 5 * 220 - (1000 - 920));
    std::vector<std::uint8_t> joined = data_of(sent[0]);

    a.agent.on_mad(received(req)); // the client resends its request meanwhile: ignored
    CHECK(a.port.take().empty());

    a.agent.on_mad(received(ack(first, 1, 3)));
    sent = a.port.take();
    REQUIRE(sent.size() == 2);
    CHECK(sent[0].h().rmpp.data1 == 2);
    CHECK(sent[1].h().rmpp.data1 == 3);
    for (const auto& s : sent) {
        const auto d = data_of(s);
        joined.insert(joined.end(), d.begin(), d.end());
    }
    a.agent.on_mad(received(ack(first, 3, 5)));
    sent = a.port.take();
    REQUIRE(sent.size() == 2);
    CHECK((sent[1].h().rmpp.flags & sa::rmpp_flag::last) != 0);
    CHECK(sent[1].h().rmpp.data2 == 20 + 120);
    for (const auto& s : sent) {
        const auto d = data_of(s);
        joined.insert(joined.end(), d.begin(), d.end());
    }
    joined.resize(920);
    for (std::size_t i = 0; i < 23; ++i) CHECK(joined[i * 40] == i);
    CHECK(a.agent.transfers_in_flight() == 1);
    a.agent.on_mad(received(ack(first, 5, 5)));
    CHECK(a.agent.transfers_in_flight() == 0);
    CHECK(a.agent.counters().rmpp_completed == 1);
    // An ACK from another LID for the same TID is not ours.
    a.agent.on_mad(received(req, Lid(98)));
    a.port.take();
    a.agent.on_mad(received(ack(first, 1, 5), Lid(97)));
    CHECK(a.port.take().empty());
}

TEST_CASE("RMPP: a lost window is resent after the timeout, and the transfer aborts when ACKs never come", "[sa][agent][rmpp]")
{
    Subnet n;
    Agent a;
    a.agent.publish(n.snap);
    std::vector<std::vector<std::uint8_t>> recs(30, std::vector<std::uint8_t>(40, 1)); // 1200 bytes: 6 segments
    a.agent.handle(0xff03, 40, {sa::method::get_table}, [&](const daemon::SaRequest&) {
        return daemon::SaAnswer{0, recs};
    });
    const auto req = Req(sa::method::get_table, 0xff03, 0).mad();
    a.agent.on_mad(received(req));
    const auto first = a.port.take().at(0).h();
    a.agent.on_mad(received(ack(first, 1, 4)));
    CHECK(a.port.take().size() == 3); // 2, 3, 4
    a.agent.on_mad(received(ack(first, 2, 4))); // 3 was lost
    CHECK(a.port.take().empty());
    a.wait(std::chrono::milliseconds(30)); // one timeout: go back to 3
    auto resent = a.port.take();
    REQUIRE(resent.size() == 2);
    CHECK(resent[0].h().rmpp.data1 == 3);
    CHECK(resent[1].h().rmpp.data1 == 4);
    // Silence from now on: two more timeouts spend the retries, then ABORT.
    a.wait(std::chrono::milliseconds(100));
    auto last = a.port.take();
    REQUIRE_FALSE(last.empty());
    CHECK(last.back().h().rmpp.type == sa::RmppType::abort);
    CHECK(last.back().h().rmpp.status == sa::rmpp_status::too_many_retries);
    CHECK(a.agent.transfers_in_flight() == 0);
    CHECK(a.agent.counters().rmpp_aborted == 1);

    // A receiver's STOP ends the transfer at once.
    a.agent.on_mad(received(req, Lid(50)));
    auto f2 = a.port.take().at(0).h();
    auto stop = ack(f2, 0, 0);
    stop[25] = static_cast<std::uint8_t>(sa::RmppType::stop);
    a.agent.on_mad(received(stop, Lid(50)));
    CHECK(a.agent.transfers_in_flight() == 0);
    // An ACK for a segment never sent aborts (S2B).
    a.agent.on_mad(received(req, Lid(51)));
    auto f3 = a.port.take().at(0).h();
    a.agent.on_mad(received(ack(f3, 4, 6), Lid(51)));
    auto ab = a.port.take();
    REQUIRE(ab.size() == 1);
    CHECK(ab[0].h().rmpp.status == sa::rmpp_status::seg_num_too_big);
}

TEST_CASE("RMPP requests: a GetMulti in two segments is ACKed, reassembled and answered; bad or quiet ones abort", "[sa][agent][rmpp]")
{
    Subnet n;
    auto settings = Agent::fast();
    settings.rmpp_request_timeout = std::chrono::milliseconds(20);
    Agent a(settings);
    a.agent.publish(n.snap);
    a.agent.handle(sa::attr::multipath_record, sa::path_record_size, {sa::method::get_multi},
                   daemon::sa_multipath_records);
    // One SGID and twelve DGIDs: 24 + 13 x 16 = 232 bytes, two segments.
    sa::MultiPathRecord m;
    m.sgids = {sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x100))).guid)};
    for (int i = 0; i < 6; ++i) {
        m.dgids.push_back(sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x300))).guid));
        m.dgids.push_back(sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x400))).guid));
    }
    Req req(sa::method::get_multi, sa::attr::multipath_record, sa::mpr_mask::sgid_count | sa::mpr_mask::dgid_count);
    req.h.tid = 0x51;
    const auto payload = sa::encode(m);
    REQUIRE(payload.size() == 232);
    sa::RmppSender client(req.h, payload);
    REQUIRE(client.segment_count() == 2);

    a.agent.on_mad(received(client.segment(1)));
    auto sent = a.port.take();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].h().method == sa::method::get_multi_resp);
    CHECK(sent[0].h().rmpp.type == sa::RmppType::ack);
    CHECK(sent[0].h().rmpp.data1 == 1);
    CHECK(sent[0].h().rmpp.data2 == 1 + settings.rmpp_request_window);
    // The requester missed that ACK and resends: ACKed again, taken once.
    a.agent.on_mad(received(client.segment(1)));
    sent = a.port.take();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].h().rmpp.data1 == 1);

    a.agent.on_mad(received(client.segment(2)));
    sent = a.port.take();
    REQUIRE(sent.size() == 2);
    CHECK(sent[0].h().rmpp.type == sa::RmppType::ack);
    CHECK(sent[0].h().rmpp.data1 == 2);
    // The answer: 12 pairs x 1 path = 12 PathRecords of 64 bytes, 4 segments.
    const auto answer = sent[1].h();
    CHECK(answer.method == sa::method::get_multi_resp);
    CHECK(answer.status == sa::status::ok);
    CHECK(answer.tid == 0x51);
    CHECK(answer.rmpp.type == sa::RmppType::data);
    CHECK(answer.rmpp.data2 == 4 * 220 - (800 - 12 * 64));
    CHECK(a.agent.counters().rmpp_requests == 1);
    a.agent.on_mad(received(ack(answer, 1, 4)));
    CHECK(a.port.take().size() == 3);
    a.agent.on_mad(received(ack(answer, 4, 4)));
    CHECK(a.agent.counters().rmpp_completed == 1);
    a.wait(std::chrono::milliseconds(40)); // the finished request is forgotten
    CHECK(a.agent.requests_in_flight() == 0);

    // Segment 1 again, now without the First flag: ABORT, inconsistent First.
    // (Segment 2 with First would be First|Last: a request of its own.)
    a.agent.on_mad(received(client.segment(1), Lid(60)));
    a.port.take();
    auto bad = client.segment(1);
    bad[26] = static_cast<std::uint8_t>(bad[26] & ~sa::rmpp_flag::first);
    a.agent.on_mad(received(bad, Lid(60)));
    sent = a.port.take();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].to.lid == Lid(60));
    CHECK(sent[0].h().rmpp.type == sa::RmppType::abort);
    CHECK(sent[0].h().rmpp.status == sa::rmpp_status::inconsistent_first);
    CHECK(a.agent.requests_in_flight() == 0);

    // A requester that goes quiet after segment 1: ABORT, total time too long.
    a.agent.on_mad(received(client.segment(1), Lid(61)));
    a.port.take();
    a.wait(std::chrono::milliseconds(40));
    sent = a.port.take();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].h().rmpp.type == sa::RmppType::abort);
    CHECK(sent[0].h().rmpp.status == sa::rmpp_status::total_time_too_long);
    CHECK(a.agent.counters().rmpp_requests_aborted == 2);
    CHECK(a.agent.counters().rmpp_requests == 1);

    // A segment of no request (2 before 1) is dropped.
    a.agent.on_mad(received(client.segment(2), Lid(62)));
    CHECK(a.port.take().empty());
}

TEST_CASE("ServiceRecords: Set, Get by mask, Delete, and leases that end", "[sa][service]")
{
    Subnet n;
    auto now = daemon::ServiceRecords::Clock::now();
    daemon::ServiceRecords store([&] { return now; });
    const auto h2 = n.ca(Guid(0x300));
    sa::ServiceRecord sr;
    sr.service_id = 0x42;
    sr.service_gid = sa::make_gid(sa::default_gid_prefix, n.fabric().port(h2).guid);
    sr.service_pkey = 0xffff;
    sr.service_lease = 10;
    sr.service_name[0] = 'a';
    auto run = [&](std::uint8_t method, std::uint64_t mask, const sa::ServiceRecord& r) {
        return Req(method, sa::attr::service_record, mask)
            .put(sa::encode(r))
            .run(*n.snap, [&](const daemon::SaRequest& q) { return store.handle(q); });
    };
    CHECK(run(sa::method::set, 0x1, sr).status == sa::status::insufficient_components);
    auto other = sr;
    other.service_gid = sa::make_gid(sa::default_gid_prefix, Guid(0xdead));
    CHECK(run(sa::method::set, 0x7, other).status == sa::status::invalid_gid);
    CHECK(run(sa::method::set, 0x17, sr).status == 0);
    auto forever = sr;
    forever.service_id = 0x43;
    forever.service_lease = 0xffffffff;
    CHECK(run(sa::method::set, 0x17, forever).status == 0);
    CHECK(store.size() == 2);
    CHECK(run(sa::method::get_table, 0, sr).records.size() == 2);
    auto got = run(sa::method::get_table, 0x1, sr);
    REQUIRE(got.records.size() == 1);
    CHECK(sa::decode_service_record(got.records[0])->service_lease == 10);
    now += std::chrono::seconds(4);
    CHECK(sa::decode_service_record(run(sa::method::get_table, 0x1, sr).records.at(0))->service_lease == 6);
    now += std::chrono::seconds(7);
    CHECK(run(sa::method::get_table, 0x1, sr).records.empty()); // lease over
    CHECK(store.size() == 1);
    CHECK(run(sa::method::delete_, 0x1, forever).records.size() == 1);
    CHECK(store.size() == 0);
    CHECK(run(sa::method::delete_, 0x1, forever).status == sa::status::no_records);
}

TEST_CASE("ServiceRecords: a Set without ServiceP_Key or ServiceLease registers in the default partition, for ever", "[sa][service]")
{
    // osmtest -f s registers with ServiceID, ServiceGID, ServiceLease,
    // ServiceKey and ServiceName only (its P_Key 0 is not in the mask), and
    // then replaces the record under the same ID: OpenSM takes the default
    // partition's P_Key, and an absent lease as no lease.
    Subnet n;
    auto now = daemon::ServiceRecords::Clock::now();
    daemon::ServiceRecords store([&] { return now; });
    sa::ServiceRecord sr;
    sr.service_id = 0x51;
    sr.service_gid = sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x300))).guid);
    sr.service_pkey = 0;
    sr.service_lease = 0; // not in the mask: ignored
    sr.service_name[0] = 'x';
    auto run = [&](std::uint8_t method, std::uint64_t mask, const sa::ServiceRecord& r) {
        return Req(method, sa::attr::service_record, mask)
            .put(sa::encode(r))
            .run(*n.snap, [&](const daemon::SaRequest& q) { return store.handle(q); });
    };
    constexpr std::uint64_t id_gid_key_name = 0x1 | 0x2 | (1ull << 5) | (1ull << 6);
    auto set = run(sa::method::set, id_gid_key_name, sr);
    REQUIRE(set.status == 0);
    REQUIRE(set.records.size() == 1);
    CHECK(sa::decode_service_record(set.records[0])->service_pkey == 0xffff);
    CHECK(sa::decode_service_record(set.records[0])->service_lease == 0xffffffff);
    // The same ID and GID again, a new name: the same record, replaced.
    sr.service_name[0] = 'y';
    REQUIRE(run(sa::method::set, id_gid_key_name, sr).status == 0);
    CHECK(store.size() == 1);
    now += std::chrono::hours(24);
    const auto got = run(sa::method::get_table, 0x1, sr);
    REQUIRE(got.records.size() == 1);
    CHECK(sa::decode_service_record(got.records[0])->service_name[0] == 'y');
    CHECK(sa::decode_service_record(got.records[0])->service_pkey == 0xffff);
    // Without ServiceGID the record has no identity.
    CHECK(run(sa::method::set, 0x1 | (1ull << 6), sr).status == sa::status::insufficient_components);
}

TEST_CASE("InformInfo: subscribers get Reports of matching notices until they answer", "[sa][inform]")
{
    Subnet n;
    Agent a;
    a.agent.publish(n.snap);
    daemon::InformRegistry reg(a.agent);
    reg.register_with(a.agent);
    sa::InformInfo ii;
    ii.lid_range_begin = Lid(0xffff);
    ii.is_generic = true;
    ii.subscribe = true;
    ii.type = 0xffff;
    ii.trap_number_or_device_id = 128;
    ii.qpn = 1;
    ii.producer_type_or_vendor_id = 0xffffff;
    const Lid subscriber = n.lid_of(n.ca(Guid(0x200)));
    a.agent.on_mad(received(Req(sa::method::set, sa::attr::inform_info, 0).put(sa::encode(ii)).mad(), subscriber));
    auto answer = a.port.take();
    REQUIRE(answer.size() == 1);
    CHECK(answer[0].h().status == 0);
    CHECK(answer[0].h().method == sa::method::get_resp);
    CHECK(reg.size() == 1);
    // Subscribe is 0 or 1.
    auto two = sa::encode(ii);
    two[23] = 2;
    a.agent.on_mad(received(Req(sa::method::set, sa::attr::inform_info, 0).put(two).mad(), subscriber));
    CHECK(a.port.take().at(0).h().status == sa::status::req_invalid);
    CHECK(reg.size() == 1);

    // InformInfoRecord lists it with the subscriber's GID.
    a.agent.on_mad(received(Req(sa::method::get_table, sa::attr::inform_info_record, 0).mad()));
    auto list = a.port.take();
    REQUIRE(list.size() == 1);
    const auto iir = sa::decode_inform_info_record(data_of(list[0], sa::inform_info_record_size));
    CHECK(iir->subscriber_gid == sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x200))).guid));
    CHECK(iir->inform_info.trap_number_or_device_id == 128);

    mad::Notice trap128;
    trap128.type = mad::notice_type::urgent;
    trap128.producer_type_or_vendor_id = 2;
    trap128.trap_number_or_device_id = 128;
    trap128.issuer_lid = Lid(3);
    trap128.details = mad::LinkStateChangeDetails{Lid(3)};
    reg.forward(trap128);
    auto rep = a.port.take();
    REQUIRE(rep.size() == 1);
    CHECK(rep[0].to.lid == subscriber);
    CHECK(rep[0].h().method == sa::method::report);
    CHECK(rep[0].h().attr_id == sa::attr::notice);
    CHECK(mad::decode_notice(data_of(rep[0], mad::notice_size))->trap_number_or_device_id == 128);
    // Unanswered: resent, then given up after the retries.
    a.wait(std::chrono::milliseconds(100));
    CHECK(a.port.take().size() == 2);
    CHECK(a.agent.counters().reports_failed == 1);
    CHECK(a.agent.reports_in_flight() == 0);
    // Answered: no resend.
    reg.forward(trap128);
    auto r2 = a.port.take().at(0).h();
    r2.method = sa::method::report_resp;
    a.agent.on_mad(received(sa::make_mad(r2), subscriber));
    a.wait(std::chrono::milliseconds(60));
    CHECK(a.port.take().empty());
    CHECK(a.agent.counters().reports_acked == 1);
    // Trap 144 is not subscribed: nothing.
    mad::Notice trap144 = trap128;
    trap144.trap_number_or_device_id = 144;
    reg.forward(trap144);
    CHECK(a.port.take().empty());
    // Unsubscribe.
    ii.trap_number_or_device_id = 128;
    ii.subscribe = false;
    a.agent.on_mad(received(Req(sa::method::set, sa::attr::inform_info, 0).put(sa::encode(ii)).mad(), subscriber));
    CHECK(a.port.take().at(0).h().status == 0);
    CHECK(reg.size() == 0);
}

TEST_CASE("InformInfo: any subscription is taken, Reports go to the QP it came from, unsubscribing names that QP",
          "[sa][inform]")
{
    // osmtest -f v's sequence (OpenSM's semantics, osm_sa_informinfo.c):
    // an InformInfo of zeros but Subscribe (no trap, no QPN) from QP 1,
    // unsubscribed with QPN 1, subscribed again with QPN 1 and once more
    // with QPN 0: the same subscription.
    Subnet n;
    Agent a;
    a.agent.publish(n.snap);
    daemon::InformRegistry reg(a.agent);
    reg.register_with(a.agent);
    const Lid subscriber = n.lid_of(n.ca(Guid(0x200)));
    auto set = [&](const sa::InformInfo& ii, std::uint32_t qpn) {
        a.agent.on_mad(received(Req(sa::method::set, sa::attr::inform_info, 0).put(sa::encode(ii)).mad(), subscriber,
                                sa::mad_size, qpn));
        return a.port.take().at(0).h().status;
    };
    sa::InformInfo zeros;
    zeros.is_generic = false;
    CHECK(set(zeros, 1) == sa::status::req_invalid); // unsubscribing what is not there
    zeros.subscribe = true;
    CHECK(set(zeros, 1) == sa::status::ok);
    REQUIRE(reg.size() == 1);
    CHECK(reg.subscriptions()[0].info.qpn == 1);
    auto off = zeros;
    off.subscribe = false;
    off.qpn = 7; // not the QP it came from
    CHECK(set(off, 1) == sa::status::req_invalid);
    off.qpn = 1;
    CHECK(set(off, 1) == sa::status::ok);
    CHECK(reg.size() == 0);
    auto again = zeros;
    again.qpn = 1;
    CHECK(set(again, 1) == sa::status::ok);
    again.qpn = 0;
    CHECK(set(again, 1) == sa::status::ok);
    CHECK(reg.size() == 1);

    // A trap no switch of ours would name (130), from another QP: taken,
    // and its Reports go to that QP.
    sa::InformInfo ii;
    ii.lid_range_begin = Lid(0xffff);
    ii.is_generic = true;
    ii.subscribe = true;
    ii.type = 0xffff;
    ii.trap_number_or_device_id = 130;
    ii.producer_type_or_vendor_id = 0xffffff;
    CHECK(set(ii, 0x1234) == sa::status::ok);
    CHECK(reg.size() == 2);
    mad::Notice trap130;
    trap130.type = mad::notice_type::urgent;
    trap130.producer_type_or_vendor_id = 2;
    trap130.trap_number_or_device_id = 130;
    trap130.issuer_lid = Lid(3);
    reg.forward(trap130);
    auto rep = a.port.take();
    REQUIRE(rep.size() == 1);
    CHECK(rep[0].to.lid == subscriber);
    CHECK(rep[0].to.qpn == 0x1234);
    // A vendor-specific subscription is taken too; a generic notice is not
    // its event.
    auto vendor = ii;
    vendor.is_generic = false;
    CHECK(set(vendor, 1) == sa::status::ok);
    CHECK(reg.size() == 3);
    reg.forward(trap130);
    CHECK(a.port.take().size() == 1);
}

TEST_CASE("InformInfo: a confirmed snapshot that loses a port sends trap 65 to subscribers of it", "[sa][inform]")
{
    Subnet n;
    Agent a;
    daemon::InformRegistry reg(a.agent);
    sa::InformInfo ii;
    ii.lid_range_begin = Lid(0xffff);
    ii.is_generic = true;
    ii.subscribe = true;
    ii.type = 0xffff;
    ii.trap_number_or_device_id = 65;
    ii.producer_type_or_vendor_id = 0xffffff;
    a.agent.publish(n.snap);
    reg.register_with(a.agent);
    a.agent.on_mad(received(Req(sa::method::set, sa::attr::inform_info, 0).put(sa::encode(ii)).mad(), Lid(5)));
    a.port.take();
    // The next generation without H3 (its LID gone).
    auto next = std::make_shared<daemon::SubnetSnapshot>(*n.snap);
    lidassign::LidMap fewer;
    for (const auto& [port, range] : n.snap->lids.lids.entries())
        if (n.fabric().node(port.node).guid != Guid(0x400)) fewer.assign(port, range.base, range.lmc);
    next->lids.lids = fewer;
    reg.on_snapshot(n.snap, next);
    auto rep = a.port.take();
    REQUIRE(rep.size() == 1);
    const auto notice = mad::decode_notice(data_of(rep[0], mad::notice_size));
    REQUIRE(notice);
    CHECK(notice->trap_number_or_device_id == 65);
    CHECK(std::get<mad::GidServiceDetails>(notice->details).gid ==
          sa::make_gid(sa::default_gid_prefix, n.fabric().port(n.ca(Guid(0x400))).guid));
}

TEST_CASE("InformInfo: subscriptions to traps 66 and 67 are taken and their notices reported", "[sa][inform]")
{
    Subnet n;
    Agent a;
    a.agent.publish(n.snap);
    daemon::InformRegistry reg(a.agent);
    reg.register_with(a.agent);
    sa::InformInfo ii;
    ii.lid_range_begin = Lid(0xffff);
    ii.is_generic = true;
    ii.subscribe = true;
    ii.type = 0xffff;
    ii.producer_type_or_vendor_id = 0xffffff;
    ii.qpn = 1;
    const Lid subscriber = n.lid_of(n.ca(Guid(0x200)));
    ii.trap_number_or_device_id = 67;
    a.agent.on_mad(received(Req(sa::method::set, sa::attr::inform_info, 0).put(sa::encode(ii)).mad(), subscriber));
    REQUIRE(a.port.take().at(0).h().status == 0);
    CHECK(reg.size() == 1);

    mad::Notice deleted;
    deleted.type = mad::notice_type::subnet_management;
    deleted.producer_type_or_vendor_id = 4;
    deleted.trap_number_or_device_id = 67;
    deleted.issuer_lid = n.snap->lids.sm_lid;
    const auto mgid = sa::make_gid(0xff12401b80010000ull, Guid(0xffffffff));
    deleted.details = mad::GidServiceDetails{mgid};
    reg.forward(deleted);
    auto rep = a.port.take();
    REQUIRE(rep.size() == 1);
    CHECK(rep[0].to.lid == subscriber);
    const auto got = mad::decode_notice(data_of(rep[0], mad::notice_size));
    REQUIRE(got);
    CHECK(got->trap_number_or_device_id == 67);
    CHECK(std::get<mad::GidServiceDetails>(got->details).gid == mgid);
    // 66 is another trap: that subscriber does not get it.
    mad::Notice created = deleted;
    created.trap_number_or_device_id = 66;
    reg.forward(created);
    CHECK(a.port.take().empty());
}

TEST_CASE("while the SM sweeps, requests beyond busy_rate wait and are answered once it is idle", "[sa][agent]")
{
    Subnet n;
    auto settings = Agent::fast();
    settings.busy_rate = 100; // a burst of 1, then 100/s
    settings.backlog_max = 50;
    Agent a(settings);
    daemon::register_fabric_records(a.agent, [] { return mad::SmInfo{}; });
    a.agent.publish(n.snap);
    bool sweeping = true;
    a.agent.set_work_probe([&] { return sweeping; });
    const auto nr = Req(sa::method::get, sa::attr::node_record, 1).put(0, 2, n.snap->lids.sm_lid.value());
    auto send = [&](int count, std::uint8_t tag) {
        for (int i = 0; i < count; ++i) {
            auto m = nr.mad();
            m[14] = tag;
            m[15] = static_cast<std::uint8_t>(i); // distinct TIDs
            a.agent.on_mad(received(m));
        }
    };
    send(40, 0);
    const auto at_once = a.port.take().size();
    CHECK(at_once >= 1);
    CHECK(at_once <= 3);
    CHECK(a.agent.backlog() == 40 - at_once);
    CHECK(a.agent.counters().deferred == 40 - at_once);
    a.wait(std::chrono::milliseconds(50)); // ~5 more at 100/s, far from all
    const auto during = a.port.take().size();
    CHECK(during >= 1);
    CHECK(during < 20);
    sweeping = false;
    a.wait(std::chrono::milliseconds(10));
    CHECK(a.port.take().size() == 40 - at_once - during);
    CHECK(a.agent.backlog() == 0);
    // A full backlog drops its oldest.
    sweeping = true;
    send(80, 1);
    CHECK(a.agent.counters().backlog_dropped >= 25);
    CHECK(a.agent.backlog() == 50);
}

TEST_CASE("the SA yields to the SM's work and its SMPs, not to counter queries", "[sa][agent]")
{
    Subnet n;
    auto settings = Agent::fast();
    settings.busy_rate = 100; // a burst of 1, then 100/s
    Agent a(settings);
    a.port.take_smps = true;
    a.transport.start();
    daemon::register_fabric_records(a.agent, [] { return mad::SmInfo{}; });
    a.agent.publish(n.snap);
    const auto nr = Req(sa::method::get, sa::attr::node_record, 1).put(0, 2, n.snap->lids.sm_lid.value());
    std::uint8_t tag = 0;
    // Ten requests at once: how many are answered before the rest wait.
    auto burst = [&] {
        ++tag;
        for (int i = 0; i < 10; ++i) {
            auto m = nr.mad();
            m[14] = tag;
            m[15] = static_cast<std::uint8_t>(i);
            a.agent.on_mad(received(m));
        }
        return a.port.take().size();
    };
    CHECK_FALSE(a.agent.busy());
    CHECK(burst() == 10);

    // Counter queries in flight (class 0x04, the poller's): not the SM's work.
    std::vector<mad::SmpResponse> done;
    auto keep = [&](mad::SmpResponse r) { done.push_back(std::move(r)); };
    mad::SmpRequest pma{mad::perf::make_port_counters_get(PortNum(1)), Lid(5)};
    a.transport.async_request(pma, keep);
    a.wait(std::chrono::milliseconds(1));
    REQUIRE(a.transport.perf_inflight() == 1);
    CHECK_FALSE(a.agent.busy());
    CHECK(burst() == 10);

    // An SMP in flight: the SM's work, requests beyond the rate wait.
    a.transport.async_request(
        mad::SmpRequest{mad::make_lid_request(mad::Method::get, Lid(5), mad::attr::node_info, 0, 0), Lid(5)}, keep);
    a.wait(std::chrono::milliseconds(1));
    REQUIRE(a.transport.smps_pending() == 1);
    CHECK(a.agent.busy());
    CHECK(burst() < 10);
    CHECK(a.agent.backlog() > 0);

    // The SM's work without an SMP on the wire (routes computed off the loop).
    a.transport.stop(); // every request fails: no SMP pending any more
    CHECK_FALSE(a.agent.busy());
    bool working = true;
    a.agent.set_work_probe([&] { return working; });
    CHECK(a.agent.busy());
    working = false;
    CHECK_FALSE(a.agent.busy());
}
