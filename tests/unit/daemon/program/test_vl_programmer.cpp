// The VL table programmer against a scripted fabric: which tables are planned
// for which policy, fresh ports written without reading, configured ports
// read and written only where they differ, nothing sent twice, and a Set
// answered with another table reported.
#include "../support/fake_loop.h"

#include "daemon/program/port_programmer.h"
#include "daemon/program/vl_programmer.h"
#include "mad/port_info.h"
#include "mad/sl2vl_table.h"
#include "mad/port_codes.h"
#include "mad/switch_info.h"
#include "mad/vl_arbitration.h"
#include "qos/qos_policy.h"
#include "qos/sl_vl_plan.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <tuple>

using namespace ibsm;

namespace {

constexpr std::uint32_t cap_sl_mapping = 1u << 6;

// SM CA 0x100 port 1 -- switch 0x200 port 1; CA 0x300 port 1 -- switch port 2.
struct SmallFabric {
    daemon::DiscoveryResult found;
    lidassign::LidMap lids;
    topology::NodeId sm_ca, sw, ca;

    explicit SmallFabric(mad::PortState external_state)
    {
        auto& f = found.fabric;
        sm_ca = f.add_node(topology::NodeType::ca, Guid(0x100), 1);
        sw = f.add_node(topology::NodeType::switch_node, Guid(0x200), 4);
        ca = f.add_node(topology::NodeType::ca, Guid(0x300), 1);
        f.connect({sm_ca, PortNum(1)}, {sw, PortNum(1)});
        f.connect({ca, PortNum(1)}, {sw, PortNum(2)});
        found.paths = {DrPath{}, DrPath{}.extended(PortNum(1)), DrPath{}.extended(PortNum(1)).extended(PortNum(2))};
        found.sm_port = {sm_ca, PortNum(1)};
        found.switch_info[sw] = mad::SwitchInfo{};

        mad::PortInfo pi;
        pi.port_state = external_state;
        pi.vl_cap = 4; // VL0-7
        pi.vl_arb_high_cap = 8;
        pi.vl_arb_low_cap = 8;
        pi.mtu_cap = 4;
        mad::PortInfo ca_pi = pi;
        ca_pi.capability_mask = cap_sl_mapping;
        mad::PortInfo p0 = pi;
        p0.port_state = mad::PortState::active;
        p0.capability_mask = cap_sl_mapping;
        found.port_info[{sm_ca, PortNum(1)}] = ca_pi;
        found.port_info[{ca, PortNum(1)}] = ca_pi;
        found.port_info[{sw, PortNum(0)}] = p0;
        found.port_info[{sw, PortNum(1)}] = pi;
        found.port_info[{sw, PortNum(2)}] = pi;
        lids.assign({sm_ca, PortNum(1)}, Lid(1), 0);
        lids.assign({sw, PortNum(0)}, Lid(2), 0);
        lids.assign({ca, PortNum(1)}, Lid(3), 0);
    }

    std::vector<daemon::PortPlanEntry> plan(unsigned max_vls = 8) const
    {
        daemon::PortSettings s;
        s.max_operational_vls = daemon::operational_vls_code(max_vls);
        daemon::PortProgrammer p(s);
        p.prepare(found, lids, Lid(1));
        return p.plan();
    }
};

// The three nodes' SL2VL and VLArb tables, keyed by (node by path, attr,
// modifier as the node reads it). Counts Gets and Sets; `corrupt_sets`
// makes the next Set of that attribute store and answer a different table.
struct FakeTables {
    std::map<std::tuple<std::string, std::uint16_t, std::uint32_t>, std::array<std::uint8_t, 64>> tables;
    unsigned gets = 0, sets = 0;
    std::set<std::uint16_t> corrupt_sets;

    static std::string node_of(const mad::Smp& req)
    {
        std::string path;
        for (std::size_t i = 1; i <= req.hop_count(); ++i) path += std::to_string(req.initial_path(i)) + ",";
        return path;
    }

    std::vector<mad::RawReceive> handle(const mad::Smp& req)
    {
        const std::string node = node_of(req);
        std::uint32_t mod = req.attr_mod();
        const bool is_ca = node != "1,";
        if (is_ca) mod = req.attr_id() == mad::attr::sl2vl_table ? 0 : mod & 0xffff0000; // CAs ignore the port
        auto& t = tables[{node, req.attr_id(), mod}];
        if (req.method() == static_cast<std::uint8_t>(mad::Method::set)) {
            ++sets;
            std::copy(req.data().begin(), req.data().end(), t.begin());
            if (corrupt_sets.erase(req.attr_id())) t[1] ^= 0x01;
        } else {
            ++gets;
        }
        mad::RawReceive r;
        r.smp = mad::make_get_resp(req, t, 0);
        r.length = mad::mad_size;
        return {r};
    }

    mad::Sl2VlTable sl2vl(const std::string& node, std::uint32_t mod)
    {
        return *mad::decode_sl2vl_table(tables.at({node, mad::attr::sl2vl_table, mod}));
    }
    mad::VlArbitrationTable vlarb(const std::string& node, std::uint32_t mod)
    {
        return *mad::decode_vl_arbitration(tables.at({node, mad::attr::vl_arbitration, mod}));
    }
};

std::size_t count_attr(const std::vector<daemon::TableWrite>& w, std::uint16_t attr)
{
    return static_cast<std::size_t>(std::count_if(w.begin(), w.end(), [&](const auto& t) { return t.attr == attr; }));
}

daemon::VlReport program(test::Loop& loop, daemon::VlProgrammer& p, const SmallFabric& s,
                         const std::vector<daemon::PortPlanEntry>& plan, unsigned vls)
{
    return loop.run([&] { return p.program(loop.transport, s.found, plan, vls); });
}

} // namespace

TEST_CASE("default arbitration: every operational VL once in the low table, the high table empty", "[vl]")
{
    auto low = daemon::default_vl_arbitration(false, 4, 8);
    for (unsigned i = 0; i < 4; ++i) CHECK(low.entries[i] == mad::VlArbEntry{static_cast<std::uint8_t>(i), 64});
    CHECK(low.entries[4].weight == 0);
    auto capped = daemon::default_vl_arbitration(false, 8, 2);
    CHECK(capped.entries[1].weight == 64);
    CHECK(capped.entries[2].weight == 0);
    auto high = daemon::default_vl_arbitration(true, 8, 8);
    for (const auto& e : high.entries) CHECK(e.weight == 0);
}

// routing.vl_tables: always (and switch_sl2vl as given).
static daemon::VlSettings tables_always(bool all_switch_pairs = false)
{
    daemon::VlSettings v;
    v.all_switch_pairs = all_switch_pairs;
    v.all_port_tables = true;
    return v;
}

TEST_CASE("planned tables: none while every SL rides VL 0 (auto); per-port SL2VL and VLArb when needed or asked for",
          "[vl]")
{
    SmallFabric s(mad::PortState::init);
    const auto plan = s.plan();
    std::uint64_t left = 0;
    std::uint64_t ports_left = 0;

    // One-VL engine, no policy, auto: no table at all; 2 CA ports + 2 switch ports and the switch keep theirs.
    auto w = daemon::plan_vl_tables(s.found, plan, 1, daemon::VlSettings{}, &left, &ports_left);
    CHECK(w.empty());
    CHECK(left == 1);
    CHECK(ports_left == 4);

    // vl_tables: always: CA SL2VL (2), VLArb low+high on 2 CA + 2 switch ports (8), switch pairs left alone.
    left = ports_left = 0;
    w = daemon::plan_vl_tables(s.found, plan, 1, tables_always(), &left, &ports_left);
    CHECK(count_attr(w, mad::attr::sl2vl_table) == 2);
    CHECK(count_attr(w, mad::attr::vl_arbitration) == 8);
    CHECK(left == 1);
    CHECK(ports_left == 0);
    for (const auto& t : w) CHECK_FALSE(t.read_first); // INIT ports: written without reading

    // Two VLs needed (auto): the port tables and every (input 0,1,2) x (output 1,2) pair, round-robin.
    left = 0;
    w = daemon::plan_vl_tables(s.found, plan, 2, daemon::VlSettings{}, &left);
    CHECK(count_attr(w, mad::attr::sl2vl_table) == 2 + 6);
    CHECK(count_attr(w, mad::attr::vl_arbitration) == 8);
    CHECK(left == 0);
    std::set<std::uint32_t> mods;
    for (const auto& t : w)
        if (t.attr == mad::attr::sl2vl_table && t.path.hops() == 1) mods.insert(t.mod);
    CHECK(mods == std::set<std::uint32_t>{0x001, 0x002, 0x101, 0x102, 0x201, 0x202});

    // switch_sl2vl: always: the same pairs for a one-VL engine, with or without the port tables.
    w = daemon::plan_vl_tables(s.found, plan, 1, tables_always(true), &left);
    CHECK(count_attr(w, mad::attr::sl2vl_table) == 2 + 6);
    w = daemon::plan_vl_tables(s.found, plan, 1, daemon::VlSettings{64, true}, &left);
    CHECK(count_attr(w, mad::attr::sl2vl_table) == 6);
    CHECK(count_attr(w, mad::attr::vl_arbitration) == 0);

    // A switch with optimized programming: one Set for all pairs when tables are programmed at all.
    s.found.switch_info[s.sw].optimized_sl2vl_mapping = 1;
    left = 0;
    w = daemon::plan_vl_tables(s.found, plan, 1, tables_always(), &left);
    CHECK(count_attr(w, mad::attr::sl2vl_table) == 3);
    CHECK(left == 0);
    CHECK(std::any_of(w.begin(), w.end(), [](const auto& t) {
        return t.mod == (mad::sl2vl_all_input_ports | mad::sl2vl_all_output_ports);
    }));
    w = daemon::plan_vl_tables(s.found, plan, 1, daemon::VlSettings{}, &left);
    CHECK(w.empty());
    CHECK(left == 1);

    // A port without arbitration tables gets none.
    s.found.port_info[{s.ca, PortNum(1)}].vl_arb_high_cap = 0;
    s.found.port_info[{s.ca, PortNum(1)}].vl_arb_low_cap = 0;
    w = daemon::plan_vl_tables(s.found, s.plan(), 1, tables_always(), &left);
    CHECK(count_attr(w, mad::attr::vl_arbitration) == 6);
}

TEST_CASE("a port whose OperationalVLs code says nothing gets the tables of VL0, which every port has", "[vl]")
{
    SmallFabric s(mad::PortState::init);
    auto plan = s.plan();
    // 0 (an OperationalVLs Set's "no change", or what a port with a reserved
    // VLCap is given) and a reserved code: mad::vl_count answers 0 for both.
    for (std::uint8_t code : {std::uint8_t{0}, std::uint8_t{7}}) {
        INFO("OperationalVLs code " << unsigned{code});
        for (auto& e : plan)
            if (e.node_guid == Guid(0x300)) e.desired.operational_vls = code;
        std::uint64_t left = 0;
        const auto w = daemon::plan_vl_tables(s.found, plan, 2, tables_always(), &left);
        auto table = [&](Guid node, std::uint16_t attr, std::uint32_t mod) {
            const auto it = std::find_if(w.begin(), w.end(), [&](const daemon::TableWrite& t) {
                return t.key.node == node && t.attr == attr && t.mod == mod;
            });
            REQUIRE(it != w.end());
            return it->desired;
        };
        const std::uint32_t low = mad::vl_arb_attr_mod(mad::VlArbBlock::low_0_31, PortNum(1));
        // Every SL on VL0 and VL0 weighed, where the port beside it uses two VLs.
        CHECK(mad::decode_sl2vl_table(table(Guid(0x300), mad::attr::sl2vl_table, 0)) == daemon::identity_sl2vl(1));
        CHECK(mad::decode_vl_arbitration(table(Guid(0x300), mad::attr::vl_arbitration, low)) ==
              daemon::default_vl_arbitration(false, 1, 8));
        CHECK(daemon::default_vl_arbitration(false, 1, 8).entries[0].weight == daemon::default_vl_weight);
        CHECK(mad::decode_sl2vl_table(table(Guid(0x100), mad::attr::sl2vl_table, 0)) == daemon::identity_sl2vl(2));
    }
}

TEST_CASE("fresh ports are written without reading; a second sweep sends nothing", "[vl]")
{
    SmallFabric s(mad::PortState::init);
    FakeTables fab;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return fab.handle(r); };
    daemon::VlProgrammer p(daemon::VlSettings{16, true});
    const auto plan = s.plan(4);

    auto first = program(loop, p, s, plan, 2);
    CHECK(first.complete());
    CHECK(first.gets == 0);
    CHECK(first.sets == 2 + 8 + 6);
    CHECK(first.sl2vl_sets == 8);
    CHECK(first.vlarb_sets == 8);
    CHECK(fab.sl2vl("", 0) == daemon::identity_sl2vl(2));
    CHECK(fab.sl2vl("1,", 0x0201) == daemon::identity_sl2vl(2));
    CHECK(fab.vlarb("1,2,", 0x10000) == daemon::default_vl_arbitration(false, 4, 8));
    CHECK(fab.vlarb("1,", 0x30002) == daemon::default_vl_arbitration(true, 4, 8));

    auto second = program(loop, p, s, plan, 2);
    CHECK(second.complete());
    CHECK(second.gets + second.sets == 0);
    CHECK(second.tables_ok == first.tables_ok);
    CHECK(fab.sets == 16);
}

TEST_CASE("a restarted daemon reads configured ports and writes only the tables that differ", "[vl]")
{
    SmallFabric fresh(mad::PortState::init);
    FakeTables fab;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return fab.handle(r); };
    {
        daemon::VlProgrammer before(tables_always());
        REQUIRE(program(loop, before, fresh, fresh.plan(), 1).complete());
    }
    // Someone gave VL0 high priority on the far CA while we were away.
    auto& t = fab.tables[{"1,2,", mad::attr::vl_arbitration, 0x30000}];
    t[1] = 4;
    const unsigned sets_before = fab.sets;

    SmallFabric active(mad::PortState::active);
    daemon::VlProgrammer after(tables_always());
    auto r = program(loop, after, active, active.plan(), 1);
    CHECK(r.complete());
    CHECK(r.gets == 10);
    CHECK(r.sets == 1);
    CHECK(fab.sets == sets_before + 1);
    CHECK(fab.vlarb("1,2,", 0x30000) == daemon::default_vl_arbitration(true, 8, 8));
}

TEST_CASE("a Set answered with another table is sent again next round; with one round it fails until next sweep",
          "[vl]")
{
    SmallFabric s(mad::PortState::init);
    const auto plan = s.plan();
    {
        FakeTables fab;
        fab.corrupt_sets = {mad::attr::sl2vl_table};
        test::Loop loop;
        loop.port.responder = [&](const mad::Smp& r) { return fab.handle(r); };
        daemon::VlProgrammer p(tables_always());
        auto first = program(loop, p, s, plan, 1);
        CHECK(first.complete());
        CHECK(first.failed == 0);
        const auto writes = daemon::plan_vl_tables(s.found, plan, 1, tables_always(), nullptr);
        CHECK(first.sl2vl_sets == count_attr(writes, mad::attr::sl2vl_table) + 1); // one sent twice
        CHECK(program(loop, p, s, plan, 1).sets == 0); // all confirmed
    }
    FakeTables fab;
    fab.corrupt_sets = {mad::attr::sl2vl_table};
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return fab.handle(r); };
    daemon::VlSettings one_round = tables_always();
    one_round.rounds = 1;
    daemon::VlProgrammer p(one_round);

    auto first = program(loop, p, s, plan, 1);
    CHECK_FALSE(first.complete());
    CHECK(first.failed == 1);
    REQUIRE(first.failures.size() == 1);
    CHECK(first.failures[0].find("SL2VL Set answered with another table") != std::string::npos);

    auto second = program(loop, p, s, plan, 1);
    CHECK(second.complete());
    CHECK(second.sets == 1);
}

TEST_CASE("SL2VL identity over n VLs and the OperationalVLs codes", "[vl]")
{
    auto one = daemon::identity_sl2vl(1);
    for (auto vl : one.vl) CHECK(vl == 0);
    auto four = daemon::identity_sl2vl(4);
    CHECK(four.vl[0] == 0);
    CHECK(four.vl[3] == 3);
    CHECK(four.vl[5] == 1);
    CHECK(daemon::operational_vls_code(1) == 1);
    CHECK(daemon::operational_vls_code(3) == 2);
    CHECK(daemon::operational_vls_code(8) == 4);
    CHECK(daemon::operational_vls_code(15) == 5);
    CHECK(mad::vl_count(daemon::operational_vls_code(2)) == 2);
}
TEST_CASE("a QoS plan: CA tables by group, switch tables by input port, VLArb as configured", "[vl]")
{
    SmallFabric s(mad::PortState::init);
    s.found.fabric.port({s.sm_ca, PortNum(1)}).guid = Guid(0x101);
    s.found.fabric.port({s.ca, PortNum(1)}).guid = Guid(0x301);
    config::QosConfig q;
    q.enabled = true;
    q.port_groups.resize(1);
    q.port_groups[0].name = "g";
    q.port_groups[0].port_guids = {Guid(0x301)};
    q.levels.resize(1);
    q.levels[0].name = "bulk";
    q.levels[0].sl = 2;
    q.sl2vl_ca = config::QosSl2Vl{0, 0, 1};
    q.sl2vl_switch = config::QosSl2Vl{0, 0, 1};
    q.sl2vl_groups = {{"g", config::QosSl2Vl{0, 0, 2}}};
    q.vlarb_ca = config::QosVlArb{{{1, 32}}, {{0, 64}, {1, 16}}, 4};
    const auto sl_vl = std::get<qos::SlVlPlan>(qos::plan_sl_vl(q, 1, 8));
    const qos::QosPolicy policy(q, {{Guid(0x101), Guid(0x100), "sm", false, {}}, {Guid(0x301), Guid(0x300), "ca", false, {}}});

    std::uint64_t left = 0;
    const auto w = daemon::plan_vl_tables(s.found, s.plan(), sl_vl, &policy, daemon::VlSettings{}, &left);
    auto find = [&](Guid node, std::uint8_t port, std::uint16_t attr, std::uint32_t mod) -> const daemon::TableWrite& {
        for (const auto& t : w)
            if (t.key == daemon::TableKey{node, port, attr, mod}) return t;
        FAIL("no table " << node.str() << " port " << int(port) << " attr " << attr << " mod " << mod);
        return w.front();
    };
    auto sl2vl = [&](Guid node, std::uint8_t port, std::uint32_t mod) {
        return mad::decode_sl2vl_table(find(node, port, mad::attr::sl2vl_table, mod).desired)->vl;
    };
    // SL 2: VL 1 on the SM's CA (CA table), VL 2 on the group's CA.
    CHECK(sl2vl(Guid(0x100), 1, 0)[2] == 1);
    CHECK(sl2vl(Guid(0x300), 1, 0)[2] == 2);
    // The switch table moves SL 2 off VL 0, so the switch without optimized
    // programming gets every pair: from port 0 (no table: all VL 0) and from port 2.
    CHECK(left == 0);
    CHECK(sl2vl(Guid(0x200), 0, mad::sl2vl_attr_mod(PortNum(0), PortNum(1)))[2] == 0);
    CHECK(sl2vl(Guid(0x200), 0, mad::sl2vl_attr_mod(PortNum(2), PortNum(1)))[2] == 1);
    // VLArb as configured on CA ports, the rest of the table empty.
    const auto low = *mad::decode_vl_arbitration(
        find(Guid(0x100), 1, mad::attr::vl_arbitration, mad::vl_arb_attr_mod(mad::VlArbBlock::low_0_31, PortNum(1)))
            .desired);
    CHECK(low.entries[0] == mad::VlArbEntry{0, 64});
    CHECK(low.entries[1] == mad::VlArbEntry{1, 16});
    CHECK(low.entries[2] == mad::VlArbEntry{0, 0});
    const auto high = *mad::decode_vl_arbitration(
        find(Guid(0x300), 1, mad::attr::vl_arbitration, mad::vl_arb_attr_mod(mad::VlArbBlock::high_0_31, PortNum(1)))
            .desired);
    CHECK(high.entries[0] == mad::VlArbEntry{1, 32});
    CHECK(high.entries[1] == mad::VlArbEntry{0, 0});

    // VLHighLimit from the plan in the port programmer's desired PortInfo.
    daemon::PortSettings ps;
    ps.max_operational_vls = daemon::operational_vls_code(8);
    daemon::PortProgrammer pp(ps);
    pp.prepare(s.found, s.lids, Lid(1), nullptr, &sl_vl, &policy);
    for (const auto& e : pp.plan())
        if (e.node_guid == Guid(0x300)) CHECK(e.desired.vl_high_limit == 4);
}
