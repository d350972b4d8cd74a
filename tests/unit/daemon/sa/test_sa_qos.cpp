// The SA with a QoS policy and SM_Key trust: which level a path gets (by
// port group, ServiceID, P_Key, QoS class), what the level does to the
// record (SL through the SL/VL plan, MTU and rate capped, packet lifetime),
// the query's constraints against the level, MCMemberRecord creation; and
// what untrusted requesters may not see or change.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sa/mcast_service.h"
#include "daemon/sa/path_qos.h"
#include "daemon/sa/sa_agent.h"
#include "daemon/sa/sa_inform.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_records.h"
#include "daemon/sa/sa_services.h"
#include "daemon/sa/sa_trust.h"
#include "daemon/sweep/bringup.h"
#include "mad/link_speed.h"
#include "mad/sa/records.h"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>

using namespace ibsm;
namespace sa = ibsm::mad::sa;
using topology::PortRef;

namespace {

// TwoSwitches brought up (H0, H1 on S1; H2, H3 on S2), and a copy of its
// snapshot to hang a policy on.
struct QosSubnet {
    test::QuietLogs quiet;
    test::TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop{t.f};
    daemon::SnapshotPtr base;

    QosSubnet()
    {
        daemon::Bringup b(loop.transport, test::bringup_settings(dir.path, {"minhop"}));
        const auto outcome = loop.run([&] { return b.sweep(); });
        INFO(outcome.reason);
        REQUIRE(outcome.up);
        base = b.snapshot();
        REQUIRE(base);
    }
    const topology::Fabric& fabric() const { return base->found.fabric; }
    PortRef ca(Guid node) const { return PortRef{*fabric().find_node(node), PortNum(1)}; }
    Guid port_guid(Guid node) const { return fabric().port(ca(node)).guid; }
    Lid lid(Guid node) const { return base->lids.lids.lids_of(ca(node))->base; }

    // The snapshot with `qos` compiled against its CA ports, and `plan`.
    daemon::SnapshotPtr with(const config::QosConfig& qos, std::optional<qos::SlVlPlan> plan = std::nullopt) const
    {
        std::vector<qos::PortFacts> ports;
        for (const auto& [port, range] : base->lids.lids.entries()) {
            const auto& n = fabric().node(port.node);
            if (n.is_switch()) continue;
            ports.push_back(qos::PortFacts{n.port(port.port).guid, n.guid, n.description, false, {0x7fff}});
        }
        auto s = std::make_shared<daemon::SubnetSnapshot>(*base);
        s->qos_policy = std::make_shared<const qos::QosPolicy>(qos, ports);
        if (plan) s->sl_vl = std::make_shared<const qos::SlVlPlan>(*plan);
        return s;
    }
};

config::QosConfig policy()
{
    config::QosConfig q;
    q.enabled = true;
    config::QosPortGroup storage;
    storage.name = "storage";
    storage.node_desc = {"H[23]"};
    q.port_groups = {storage};
    config::QosLevel bulk{"bulk", 3, std::nullopt, std::nullopt, std::nullopt};
    config::QosLevel slow{"slow", 5, 1, 2, 12}; // MTU 256, 2.5 Gb/s, lifetime 12
    config::QosLevel mpi{"mpi", 6, std::nullopt, std::nullopt, std::nullopt};
    config::QosLevel gold{"gold", 7, std::nullopt, std::nullopt, std::nullopt};
    q.levels = {bulk, slow, mpi, gold};
    config::QosRule by_service;
    by_service.service_ids = {{0x1000, 0x10ff}};
    by_service.level = "slow";
    config::QosRule by_class;
    by_class.qos_classes = {{9, 9}};
    by_class.level = "gold";
    config::QosRule by_pkey;
    by_pkey.pkeys = {0x0abc};
    by_pkey.level = "mpi";
    config::QosRule to_storage;
    to_storage.destination = "storage";
    to_storage.level = "bulk";
    q.rules = {by_service, by_class, by_pkey, to_storage};
    return q;
}

struct Query {
    sa::SaHeader h;
    sa::PathRecord pr;
    Query(Lid s, Lid d)
    {
        h.method = sa::method::get;
        h.attr_id = sa::attr::path_record;
        h.component_mask = sa::pr_mask::slid | sa::pr_mask::dlid;
        pr.slid = s;
        pr.dlid = d;
    }
    Query& ask(std::uint64_t bits)
    {
        h.component_mask |= bits;
        return *this;
    }
    std::vector<sa::PathRecord> run(const daemon::SubnetSnapshot& s) const
    {
        const auto bytes = sa::encode(pr);
        std::vector<std::uint8_t> data(sa::data_size, 0);
        std::copy(bytes.begin(), bytes.end(), data.begin());
        const auto a = daemon::sa_path_records(daemon::SaRequest{h, data, mad::GsiAddress{Lid(99)}, s});
        REQUIRE(a.status == sa::status::ok);
        std::vector<sa::PathRecord> out;
        for (const auto& r : a.records) out.push_back(*sa::decode_path_record(r));
        return out;
    }
    sa::PathRecord one(const daemon::SubnetSnapshot& s) const
    {
        const auto r = run(s);
        REQUIRE(r.size() == 1);
        return r[0];
    }
};

} // namespace

TEST_CASE("PathRecord: the level is chosen by destination group, ServiceID, P_Key and QoS class", "[sa][qos]")
{
    QosSubnet n;
    const auto s = n.with(policy());
    const Lid h0 = n.lid(Guid(0x100)), h1 = n.lid(Guid(0x200)), h2 = n.lid(Guid(0x300));
    const auto routing = Query(h0, h1).one(*n.base);
    // No rule for H0 -> H1: the routing's SL, as without a policy.
    CHECK(Query(h0, h1).one(*s) == routing);
    // H2 is in "storage": bulk's SL 3, nothing else touched.
    const auto to_storage = Query(h0, h2).one(*s);
    CHECK(to_storage.sl == 3);
    auto same = to_storage;
    same.sl = Query(h0, h2).one(*n.base).sl;
    CHECK(same == Query(h0, h2).one(*n.base));
    // The reverse direction has no destination in the group.
    CHECK(Query(h2, h0).one(*s).sl == Query(h2, h0).one(*n.base).sl);
    // ServiceID in range (first rule, even towards storage): slow's SL 5; out of range: not.
    Query svc(h0, h2);
    svc.pr.service_id = 0x1042;
    CHECK(svc.ask(sa::pr_mask::service_id).one(*s).sl == 5);
    CHECK(svc.one(*s).service_id == 0x1042);
    svc.pr.service_id = 0x2000;
    CHECK(svc.one(*s).sl == 3);
    // A ServiceID the query does not name selects nothing.
    Query unnamed(h0, h1);
    unnamed.pr.service_id = 0x1042;
    CHECK(unnamed.one(*s).sl == routing.sl);
    // QoS class 9 asked: gold; the answer carries the class.
    Query cls(h0, h1);
    cls.pr.qos_class = 9;
    const auto gold = cls.ask(sa::pr_mask::qos_class).one(*s);
    CHECK(gold.sl == 7);
    CHECK(gold.qos_class == 9);
    cls.pr.qos_class = 8;
    CHECK(cls.one(*s).sl == routing.sl);
    // P_Key 0x0abc asked: without a partition model the path is in the
    // default partition only, so no path; the rule is checked on the path's P_Key.
    Query pk(h0, h1);
    pk.pr.pkey = 0xffff;
    CHECK(pk.ask(sa::pr_mask::pkey).one(*s).sl == routing.sl);
    auto pkey_policy = policy();
    pkey_policy.rules[2].pkeys = {0x7fff};
    CHECK(pk.one(*n.with(pkey_policy)).sl == 6);
}

TEST_CASE("PathRecord: the level caps MTU and rate and sets the packet lifetime", "[sa][qos]")
{
    QosSubnet n;
    const auto s = n.with(policy());
    const Lid h0 = n.lid(Guid(0x100)), h1 = n.lid(Guid(0x200));
    const auto plain = Query(h0, h1).one(*n.base);
    REQUIRE(plain.mtu > 1);
    REQUIRE(mad::compare_rate_codes(plain.rate, 2) > 0);
    Query svc(h0, h1);
    svc.pr.service_id = 0x1001;
    const auto slow = svc.ask(sa::pr_mask::service_id).one(*s);
    CHECK(slow.mtu == 1);
    CHECK(slow.rate == 2);
    CHECK(slow.packet_life == 12);
    // Loopback keeps lifetime 0.
    Query self(h0, h0);
    self.pr.service_id = 0x1001;
    CHECK(self.ask(sa::pr_mask::service_id).one(*s).packet_life == 0);
    // A level's MTU above the path's leaves the path's.
    auto big = policy();
    big.levels[1].mtu = 5;
    big.levels[1].rate = 16; // 100 Gb/s: above the path
    const auto wide = svc.one(*n.with(big));
    CHECK(wide.mtu == plain.mtu);
    CHECK(wide.rate == plain.rate);
}

TEST_CASE("PathRecord: a query the level conflicts with gets no record", "[sa][qos]")
{
    QosSubnet n;
    const auto s = n.with(policy());
    const Lid h0 = n.lid(Guid(0x100)), h2 = n.lid(Guid(0x300));
    const auto routing_sl = Query(h0, h2).one(*n.base).sl;
    REQUIRE(routing_sl != 3);
    Query q(h0, h2);
    q.ask(sa::pr_mask::sl);
    q.pr.sl = routing_sl;
    CHECK(q.run(*s).empty()); // the pair's level says SL 3
    q.pr.sl = 3;
    CHECK(q.one(*s).sl == 3);
    // MTU exactly 2048 when the level allows 256: none; at most 256: one.
    Query m(h0, h2);
    m.pr.service_id = 0x1001;
    m.pr.mtu_selector = 2;
    m.pr.mtu = 4;
    m.ask(sa::pr_mask::service_id | sa::pr_mask::mtu_selector | sa::pr_mask::mtu);
    CHECK(m.run(*s).empty());
    m.pr.mtu = 1;
    CHECK(m.one(*s).mtu == 1);
    // Rate exactly the path's (above the level's 2.5 Gb/s): none.
    Query r(h0, h2);
    r.pr.service_id = 0x1001;
    r.pr.rate_selector = 2;
    r.pr.rate = Query(h0, h2).one(*n.base).rate;
    r.ask(sa::pr_mask::service_id | sa::pr_mask::rate_selector | sa::pr_mask::rate);
    CHECK(r.run(*s).empty());
}

TEST_CASE("PathRecord: on a multi-layer plan the SL is class * layers + routing layer", "[sa][qos]")
{
    QosSubnet n;
    qos::SlVlPlan plan;
    plan.layers = 2;
    plan.class_of_sl[3] = 1;
    plan.class_of_sl[5] = 2;
    const auto s = n.with(policy(), plan);
    const Lid h0 = n.lid(Guid(0x100)), h1 = n.lid(Guid(0x200)), h2 = n.lid(Guid(0x300));
    const auto l = Query(h0, h2).one(*n.base).sl; // the routing layer
    CHECK(Query(h0, h2).one(*s).sl == 1 * 2 + l);
    Query svc(h0, h2);
    svc.pr.service_id = 0x1001;
    CHECK(svc.ask(sa::pr_mask::service_id).one(*s).sl == 2 * 2 + l);
    // Unmatched: class 0, the routing layer itself.
    CHECK(Query(h0, h1).one(*s).sl == Query(h0, h1).one(*n.base).sl);
    CHECK(daemon::qos_host_sl(*s, std::nullopt, 1) == 1);
}

TEST_CASE("MultiPathRecord: the ServiceID of the query selects the level", "[sa][qos]")
{
    QosSubnet n;
    const auto s = n.with(policy());
    sa::MultiPathRecord m;
    m.sgids = {sa::make_gid(sa::default_gid_prefix, n.port_guid(Guid(0x100)))};
    m.dgids = {sa::make_gid(sa::default_gid_prefix, n.port_guid(Guid(0x200))),
               sa::make_gid(sa::default_gid_prefix, n.port_guid(Guid(0x300)))};
    m.service_id = 0x10ff;
    sa::SaHeader h;
    h.method = sa::method::get_multi;
    h.attr_id = sa::attr::multipath_record;
    h.component_mask = sa::mpr_mask::sgid_count | sa::mpr_mask::dgid_count;
    auto run = [&] {
        const auto bytes = sa::encode(m);
        std::vector<std::uint8_t> data(sa::data_size, 0);
        std::copy(bytes.begin(), bytes.end(), data.begin());
        std::vector<std::uint8_t> sls;
        for (const auto& r : daemon::sa_multipath_records(daemon::SaRequest{h, data, {}, *s}).records)
            sls.push_back(sa::decode_path_record(r)->sl);
        return sls;
    };
    const auto routing_h1 = Query(n.lid(Guid(0x100)), n.lid(Guid(0x200))).one(*n.base).sl;
    CHECK(run() == std::vector<std::uint8_t>{routing_h1, 3});
    h.component_mask |= sa::mpr_mask::service_id;
    CHECK(run() == std::vector<std::uint8_t>{5, 5});
}

TEST_CASE("MCMemberRecord: a new group takes what the request leaves open from the creator's level",
          "[sa][qos][mcast]")
{
    QosSubnet n;
    auto q = policy();
    config::QosRule from_storage;
    from_storage.source = "storage";
    from_storage.level = "slow";
    q.rules = {from_storage};
    const auto s = n.with(q);
    daemon::EventQueue events(n.loop.io.get_executor());
    daemon::McastService service(events, n.loop.transport, daemon::McastSettings{});
    namespace m = mad::mcr_mask;
    auto create = [&](Guid node, std::uint64_t extra, std::uint8_t sl) {
        mad::McMemberRecord r;
        r.port_gid = mad::Gid128{sa::default_gid_prefix, n.port_guid(node).value()};
        r.q_key = 0x1234;
        r.p_key = 0xffff;
        r.join_state = mad::join_state::full_member;
        r.sl = sl;
        sa::SaHeader h;
        h.method = sa::method::set;
        h.attr_id = sa::attr::mcmember_record;
        h.component_mask = m::mgid | m::port_gid | m::join_state | m::q_key | m::traffic_class | m::p_key |
                           m::flow_label | extra;
        std::array<std::uint8_t, sa::data_size> data{};
        mad::encode(r, std::span<std::uint8_t, mad::mc_member_record_size>(data.data(), mad::mc_member_record_size));
        const auto a = service.on_request(daemon::SaRequest{h, data, mad::GsiAddress{n.lid(node)}, *s});
        std::optional<mad::McMemberRecord> out;
        if (a.status == sa::status::ok) out = mad::decode_mc_member_record(a.records.at(0));
        return out;
    };
    // H2 (storage) leaves SL, MTU and rate open: slow's SL 5, MTU 256, 2.5 Gb/s, lifetime 12.
    const auto g = create(Guid(0x300), 0, 0);
    REQUIRE(g);
    CHECK(g->sl == 5);
    CHECK(g->mtu == 1);
    CHECK(g->rate == 2);
    CHECK(g->packet_life_time == 12);
    // The request's own SL stands; the MTU it leaves open is still the level's.
    const auto own = create(Guid(0x300), m::sl, 0);
    REQUIRE(own);
    CHECK(own->sl == 0);
    CHECK(own->mtu == 1);
    // H0 matches no rule: creating without an SL is missing a component, as without a policy.
    CHECK_FALSE(create(Guid(0x100), 0, 0));
    const auto plain = create(Guid(0x100), m::sl, 0);
    REQUIRE(plain);
    CHECK(plain->mtu > 1);
}

namespace {

// The agent on a port that records what it sends.
class RecordingPort final : public mad::MadPort {
public:
    std::vector<sa::Mad> sent;
    bool send(const mad::Smp&, Lid, std::uint32_t) override { return false; }
    std::optional<mad::RawReceive> try_receive() override { return std::nullopt; }
    int fd() const override { return -1; }
    bool pollable_by_reactor() const override { return false; }
    bool wait_readable(int) override { return false; }
    bool send_response(const mad::Smp&, const mad::RawReceive&) override { return false; }
    bool send_gsi(std::span<const std::uint8_t, mad::mad_size> mad, const mad::GsiAddress&) override
    {
        sa::Mad m;
        std::copy(mad.begin(), mad.end(), m.begin());
        sent.push_back(m);
        return true;
    }
};

constexpr std::uint64_t key = 0x5eedf00d;

struct TrustAgent {
    boost::asio::io_context io;
    RecordingPort port;
    mad::Transport transport{io, port, mad::TransportOptions{}};
    daemon::SaAgent agent;
    daemon::ServiceRecords services;
    daemon::InformRegistry inform{agent};

    TrustAgent() : agent(io, transport, settings())
    {
        daemon::register_fabric_records(agent,
                                        [] { return mad::SmInfo{Guid(0x101), key, 1, 5, mad::SmState::master}; });
        services.register_with(agent);
        inform.register_with(agent);
    }
    static daemon::SaSettings settings()
    {
        daemon::SaSettings s;
        s.sm_key = key;
        return s;
    }
    std::uint32_t source_qpn = 1; // the requester's QP
    // The answer to one request (nullopt: none sent).
    std::optional<sa::Mad> ask(std::uint8_t method, std::uint16_t attr, std::uint64_t mask, std::uint64_t sm_key,
                               const std::vector<std::uint8_t>& record = {})
    {
        sa::SaHeader h;
        h.method = method;
        h.attr_id = attr;
        h.component_mask = mask;
        h.sm_key = sm_key;
        h.tid = 11;
        std::vector<std::uint8_t> data(sa::data_size, 0);
        std::copy(record.begin(), record.end(), data.begin());
        const auto m = sa::make_mad(h, data);
        mad::RawReceive r;
        r.smp = mad::Smp::from_bytes(std::span<const std::uint8_t>(m.data(), m.size()));
        r.length = m.size();
        r.source_lid = Lid(99);
        r.source_qpn = source_qpn;
        port.sent.clear();
        agent.on_mad(r);
        if (port.sent.empty()) return std::nullopt;
        return port.sent.back();
    }
    static std::uint16_t status(const sa::Mad& m) { return sa::decode_header(m)->status; }
    static std::span<const std::uint8_t> data(const sa::Mad& m) { return sa::data_of(m); }
};

} // namespace

TEST_CASE("SM_Key trust: what untrusted requesters do not see", "[sa][trust]")
{
    QosSubnet n;
    TrustAgent a;
    // The SM knows the ports' M_Keys (security.mkey): give one to H0.
    auto s = std::make_shared<daemon::SubnetSnapshot>(*n.base);
    s->found.port_info.at(n.ca(Guid(0x100))).mkey = 0x1122334455667788ull;
    a.agent.publish(s);
    sa::PortInfoRecord q;
    q.lid = n.lid(Guid(0x100));
    auto bytes = sa::encode(q);
    auto mkey_seen = [&](std::uint64_t sm_key) {
        const auto m = a.ask(sa::method::get, sa::attr::port_info_record, 1, sm_key, bytes);
        REQUIRE(m);
        REQUIRE(TrustAgent::status(*m) == sa::status::ok);
        return sa::decode_port_info_record(TrustAgent::data(*m))->port_info.mkey;
    };
    CHECK(mkey_seen(0) == 0);
    CHECK(mkey_seen(key) == 0x1122334455667788ull);
    CHECK(a.agent.counters().trusted == 1);
    // A non-zero key that is not ours: discarded, counted.
    CHECK_FALSE(a.ask(sa::method::get, sa::attr::port_info_record, 1, key + 1, bytes));
    CHECK(a.agent.counters().wrong_key == 1);
    // The SM's SMInfo: its key to the trusted only.
    auto sm_key_seen = [&](std::uint64_t sm_key) {
        const auto m = a.ask(sa::method::get_table, sa::attr::sm_info_record, 0, sm_key);
        REQUIRE(m);
        return sa::decode_sm_info_record(TrustAgent::data(*m).subspan(0, sa::sm_info_record_size))->sm_info.sm_key;
    };
    CHECK(sm_key_seen(0) == 0);
    CHECK(sm_key_seen(key) == key);
    // ServiceRecord: the ServiceKey to the trusted only.
    sa::ServiceRecord svc;
    svc.service_id = 0x77;
    svc.service_gid = sa::make_gid(sa::default_gid_prefix, n.port_guid(Guid(0x200)));
    svc.service_pkey = 0xffff;
    svc.service_lease = 0xffffffffu;
    svc.service_key[0] = 0xab;
    const auto set = a.ask(sa::method::set, sa::attr::service_record, 0x7, 0, sa::encode(svc));
    REQUIRE(set);
    CHECK(TrustAgent::status(*set) == sa::status::ok); // a host may register its services
    auto service_key_seen = [&](std::uint64_t sm_key) {
        const auto m = a.ask(sa::method::get, sa::attr::service_record, 1, sm_key, sa::encode(svc));
        REQUIRE(m);
        REQUIRE(TrustAgent::status(*m) == sa::status::ok);
        return sa::decode_service_record(TrustAgent::data(*m))->service_key[0];
    };
    CHECK(service_key_seen(0) == 0);
    CHECK(service_key_seen(key) == 0xab);
}

TEST_CASE("SM_Key trust: untrusted Sets of the SM's state and security subscriptions are denied", "[sa][trust]")
{
    QosSubnet n;
    TrustAgent a;
    a.agent.publish(n.base);
    sa::PortInfoRecord q;
    q.lid = n.lid(Guid(0x100));
    const auto untrusted = a.ask(sa::method::set, sa::attr::port_info_record, 1, 0, sa::encode(q));
    REQUIRE(untrusted);
    CHECK(TrustAgent::status(*untrusted) == sa::status::denied);
    CHECK(a.agent.counters().denied == 1);
    // Trusted: past the trust check, to what the SA serves (no Set of it).
    const auto trusted = a.ask(sa::method::set, sa::attr::port_info_record, 1, key, sa::encode(q));
    REQUIRE(trusted);
    CHECK(TrustAgent::status(*trusted) == sa::status::method_attr_unsupported);
    CHECK(TrustAgent::status(*a.ask(sa::method::delete_, sa::attr::lft_record, 1, 0)) == sa::status::denied);
    // InformInfo for trap 256 (Bad M_Key): trusted only; the QPN of a
    // subscription (the one the Set came from) is shown to the trusted only.
    sa::InformInfo info;
    info.is_generic = true;
    info.subscribe = true;
    info.trap_number_or_device_id = 256;
    info.type = 0xffff;
    info.producer_type_or_vendor_id = 0xffffff;
    info.lid_range_begin = Lid(0xffff);
    info.qpn = 0x42;
    CHECK(TrustAgent::status(*a.ask(sa::method::set, sa::attr::inform_info, 0, 0, sa::encode(info))) ==
          sa::status::denied);
    CHECK(a.inform.counters().denied == 1);
    a.source_qpn = 0x42;
    CHECK(TrustAgent::status(*a.ask(sa::method::set, sa::attr::inform_info, 0, key, sa::encode(info))) ==
          sa::status::ok);
    REQUIRE(a.inform.size() == 1);
    CHECK(a.inform.subscriptions()[0].trusted);
    auto qpn_seen = [&](std::uint64_t sm_key) {
        const auto m = a.ask(sa::method::get_table, sa::attr::inform_info_record, 0, sm_key);
        REQUIRE(m);
        return sa::decode_inform_info_record(TrustAgent::data(*m))->inform_info.qpn;
    };
    CHECK(qpn_seen(0) == 0);
    CHECK(qpn_seen(key) == 0x42);
}

TEST_CASE("trust decisions and the refusal log's rate limit", "[sa][trust]")
{
    using daemon::SaTrust;
    CHECK(daemon::sa_trust(0, 0) == SaTrust::untrusted);
    CHECK(daemon::sa_trust(0, 5) == SaTrust::untrusted); // trust off: keys are ignored
    CHECK(daemon::sa_trust(5, 0) == SaTrust::untrusted);
    CHECK(daemon::sa_trust(5, 5) == SaTrust::trusted);
    CHECK(daemon::sa_trust(5, 6) == SaTrust::wrong_key);
    CHECK(daemon::host_writable(sa::attr::mcmember_record));
    CHECK_FALSE(daemon::host_writable(sa::attr::sm_info_record));
    daemon::RefusalLog log(std::chrono::seconds(10));
    const daemon::RefusalLog::Clock::time_point t0{};
    std::uint64_t held = 99;
    CHECK(log.admit(t0 + std::chrono::seconds(1), &held));
    CHECK(held == 0);
    CHECK_FALSE(log.admit(t0 + std::chrono::seconds(2)));
    CHECK_FALSE(log.admit(t0 + std::chrono::seconds(10)));
    CHECK(log.admit(t0 + std::chrono::seconds(11), &held));
    CHECK(held == 2);
    CHECK(log.total() == 4);
}
