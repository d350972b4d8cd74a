// The P_Key programmer: which ports get which tables (pkey_targets, pure),
// and desired vs confirmed per block against a scripted fabric: nothing
// sent twice, a membership change rewrites only the ports it touches, a
// lost or garbled Set stays dirty for the next round and the next call,
// forget() makes a port's table unknown.
#include "../support/fake_loop.h"

#include "daemon/program/pkey_programmer.h"
#include "mad/pkey_table.h"
#include "mad/switch_info.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

using namespace ibsm;
using topology::PortRef;

namespace {

//   H0 (SM, 0x100) -[1] S1 [4]-[4] S2 [1]- H2 (0x500)
//   H1 (0x300) p1  -[2]
//   H1 p2 not cabled
// S1 filters its CA ports (PartitionEnforcementCap 16), S2 does not; H2
// holds one P_Key only.
struct PKeyFabric {
    daemon::DiscoveryResult found;
    topology::NodeId h0, h1, h2, s1, s2;

    PKeyFabric()
    {
        using topology::NodeType;
        auto& f = found.fabric;
        h0 = f.add_node(NodeType::ca, Guid(0x100), 1, "H0");
        h1 = f.add_node(NodeType::ca, Guid(0x300), 2, "H1");
        h2 = f.add_node(NodeType::ca, Guid(0x500), 1, "H2");
        s1 = f.add_node(NodeType::switch_node, Guid(0x1000), 4, "S1");
        s2 = f.add_node(NodeType::switch_node, Guid(0x2000), 4, "S2");
        for (auto [node, port, guid] : {std::tuple{h0, 1, 0x101}, {h1, 1, 0x301}, {h1, 2, 0x302}, {h2, 1, 0x501}}) {
            const PortRef p{node, PortNum(static_cast<std::uint8_t>(port))};
            f.set_port_guid(p, Guid(static_cast<std::uint64_t>(guid)));
            f.port(p).known = true;
        }
        for (auto n : {h0, h1, s1, s2}) f.node(n).partition_cap = 64;
        f.node(h2).partition_cap = 1;
        f.connect({h0, PortNum(1)}, {s1, PortNum(1)});
        f.connect({h1, PortNum(1)}, {s1, PortNum(2)});
        f.connect({s1, PortNum(4)}, {s2, PortNum(4)});
        f.connect({h2, PortNum(1)}, {s2, PortNum(1)});
        const DrPath to_s1 = DrPath{}.extended(PortNum(1));
        const DrPath to_s2 = to_s1.extended(PortNum(4));
        found.paths = {DrPath{}, to_s1.extended(PortNum(2)), to_s2.extended(PortNum(1)), to_s1, to_s2};
        found.sm_port = {h0, PortNum(1)};
        mad::SwitchInfo filtering;
        filtering.partition_enforcement_cap = 16;
        found.switch_info[s1] = filtering;
        found.switch_info[s2] = mad::SwitchInfo{};
    }
};

// The fake fabric's end ports: H0 (the SM's), H1 (two ports), H2; S1, S2.
const std::vector<partition::EndPort>& end_ports()
{
    using partition::PortKind;
    static const std::vector<partition::EndPort> ports{
        {Guid(0x101), PortKind::ca},          {Guid(0x301), PortKind::ca},          {Guid(0x302), PortKind::ca},
        {Guid(0x501), PortKind::ca},          {Guid(0x1000), PortKind::switch_node}, {Guid(0x2000), PortKind::switch_node}};
    return ports;
}

partition::Rule member_rule(std::string name, std::uint16_t pkey, std::vector<partition::MemberRule> members)
{
    partition::Rule r;
    r.name = std::move(name);
    r.pkey = pkey;
    r.members = std::move(members);
    return r;
}

// Default=0x7fff : ALL=full; then `rules`.
partition::Partitions partitions_of(std::vector<partition::Rule> rules)
{
    using partition::Membership;
    using partition::Who;
    rules.insert(rules.begin(), member_rule("Default", 0x7fff, {{Who::all, Guid(), Membership::full}}));
    return partition::Partitions(std::move(rules), end_ports(), partition::Settings{Guid(0x101), false});
}

// storage=0x0010: the SM's port and (h1_member) H1 full, H2 limited.
partition::Partitions storage(bool h1_member = true)
{
    using partition::Membership;
    using partition::Who;
    std::vector<partition::MemberRule> members{{Who::self, Guid(), Membership::full},
                                               {Who::port, Guid(0x501), Membership::limited}};
    if (h1_member) members.push_back({Who::port, Guid(0x301), Membership::full});
    auto rule = member_rule("storage", 0x0010, std::move(members));
    rule.ipoib = true;
    return partitions_of({rule});
}

// P_Key tables by (DR path, attribute modifier) as the nodes hold them.
// `drop` lists targets (path, modifier) whose next Sets go unanswered,
// `garble` ones whose next Set stores and answers another table.
struct FakePKeys {
    using Key = std::pair<std::string, std::uint32_t>;
    std::map<Key, mad::PKeyTable> tables;
    std::multiset<Key> drop, garble;
    std::vector<Key> sets;

    static std::string path_of(const mad::Smp& smp)
    {
        std::string s = "0";
        for (std::size_t i = 1; i <= smp.hop_count(); ++i) s += "," + std::to_string(smp.initial_path(i));
        return s;
    }

    std::vector<mad::RawReceive> handle(const mad::Smp& req)
    {
        REQUIRE(req.attr_id() == mad::attr_pkey_table);
        REQUIRE(req.method() == static_cast<std::uint8_t>(mad::Method::set));
        const Key key{path_of(req), req.attr_mod()};
        sets.push_back(key);
        if (auto it = drop.find(key); it != drop.end()) {
            drop.erase(it);
            return {};
        }
        auto t = *mad::decode_pkey_table(req.data());
        if (auto it = garble.find(key); it != garble.end()) {
            garble.erase(it);
            t.keys[31] = 0x1234;
        }
        tables[key] = t;
        std::array<std::uint8_t, 64> data{};
        mad::encode(t, std::span<std::uint8_t, 64>(data));
        mad::RawReceive r;
        r.smp = mad::make_get_resp(req, data);
        r.length = mad::mad_size;
        return {r};
    }

    std::vector<std::uint16_t> keys(const std::string& path, std::uint32_t mod) const
    {
        std::vector<std::uint16_t> out;
        auto it = tables.find({path, mod});
        if (it == tables.end()) return out;
        for (auto k : it->second.keys)
            if (k) out.push_back(k);
        return out;
    }
};

daemon::PKeyReport program(test::Loop& loop, daemon::PKeyProgrammer& p, const PKeyFabric& f,
                           const partition::Partitions& parts)
{
    return loop.run([&] { return p.program(loop.transport, f.found, parts); });
}

} // namespace

TEST_CASE("pkey_targets: CA ports the SM reaches, switch port 0, and a filtering switch's CA-facing ports",
          "[pkey]")
{
    PKeyFabric f;
    partition::IndexBook book;
    const auto targets = daemon::pkey_targets(f.found, storage(), book);
    std::map<std::string, const daemon::PKeyTarget*> by_name;
    for (const auto& t : targets) by_name[t.name] = &t;
    std::set<std::string> names;
    for (const auto& [n, t] : by_name) names.insert(n);
    CHECK(names == std::set<std::string>{
                       "0x0000000000000100 (H0) port 1", "0x0000000000000300 (H1) port 1",
                       "0x0000000000000500 (H2) port 1", "0x0000000000001000 (S1) port 0",
                       "0x0000000000001000 (S1) port 1", "0x0000000000001000 (S1) port 2",
                       "0x0000000000002000 (S2) port 0"});

    // The SM's port is a full member of every partition; H1 full, H2 limited.
    const auto& sm = *by_name.at("0x0000000000000100 (H0) port 1");
    CHECK(sm.path == DrPath{});
    CHECK(sm.blocks.at(0).keys[0] == 0xffff);
    CHECK(sm.blocks.at(0).keys[1] == 0x8010);
    const auto& h1 = *by_name.at("0x0000000000000300 (H1) port 1");
    CHECK(h1.path.str() == "0,1,2"); // through the switch it is cabled to
    CHECK_FALSE(h1.switch_node);
    CHECK(h1.blocks.at(0).keys[1] == 0x8010);
    // S1's port 2 filters H1's traffic with H1's keys.
    const auto& s1p2 = *by_name.at("0x0000000000001000 (S1) port 2");
    CHECK(s1p2.switch_node);
    CHECK(s1p2.port == 2);
    CHECK(s1p2.path.str() == "0,1");
    CHECK(s1p2.blocks == h1.blocks);
    // Switch port 0 holds the default partition only.
    const auto& s2p0 = *by_name.at("0x0000000000002000 (S2) port 0");
    CHECK(s2p0.blocks.at(0).keys[0] == 0xffff);
    CHECK(s2p0.blocks.at(0).keys[1] == 0);
    // H2 holds one key: its limited membership does not fit.
    const auto& h2 = *by_name.at("0x0000000000000500 (H2) port 1");
    CHECK(h2.dropped == 1);
    CHECK(h2.blocks.size() == 1);
    CHECK(h2.blocks[0].keys[1] == 0);
}

TEST_CASE("pkey_targets: a port with more keys than one block gets two", "[pkey]")
{
    PKeyFabric f;
    std::vector<partition::Rule> rules;
    for (std::uint16_t n = 1; n <= 40; ++n)
        rules.push_back(member_rule("p" + std::to_string(n), n,
                                    {{partition::Who::port, Guid(0x301), partition::Membership::full}}));
    const partition::Partitions many = partitions_of(std::move(rules));
    partition::IndexBook book;
    for (const auto& t : daemon::pkey_targets(f.found, many, book)) {
        if (t.name != "0x0000000000000300 (H1) port 1" && t.name != "0x0000000000001000 (S1) port 2") continue;
        INFO(t.name);
        // 41 keys; S1 enforces 16 of them only.
        CHECK(t.blocks.size() == (t.switch_node ? 1u : 2u));
        CHECK(t.dropped == (t.switch_node ? 25u : 0u));
        CHECK(t.needed == 41);
        CHECK(t.capacity == (t.switch_node ? 16u : 64u));
        if (!t.switch_node) continue;
        CHECK(t.faces == "0x0000000000000300 (H1) port 1");
        REQUIRE(t.dropped_keys.size() == 25);
        CHECK(t.dropped_keys.front() == 0x8010);
        CHECK(daemon::overflow_text(t) ==
              "0x0000000000001000 (S1) port 2 (facing 0x0000000000000300 (H1) port 1) needs 41 P_Key(s), its "
              "partition enforcement table holds 16 (SwitchInfo PartitionEnforcementCap): partition enforcement is "
              "off on this port, so the CA's traffic is not filtered there (and none of it dropped); 0x8010, 0x8011, "
              "0x8012, 0x8013 and 21 more left out of the switch's copy. To enforce there, put that CA port in at "
              "most 16 partitions; part_enforce: off stops enforcing on every port");
    }
    // The port programmer is told to leave enforcement off there, and only there.
    daemon::PKeyProgrammer p(daemon::PKeySettings{});
    CHECK(p.unenforced(f.found, many) == std::set<std::pair<Guid, std::uint8_t>>{{Guid(0x1000), 2}});
    CHECK(p.unenforced(f.found, partitions_of({})).empty());
    daemon::PKeyProgrammer off(daemon::PKeySettings{3, 64, false}); // part_enforce off: no switch copies
    CHECK(off.unenforced(f.found, many).empty());
}

TEST_CASE("every block is sent once; a membership change rewrites only the ports it touches", "[pkey]")
{
    PKeyFabric f;
    FakePKeys fake;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return fake.handle(r); };
    daemon::PKeyProgrammer p(daemon::PKeySettings{3, 8});

    const auto first = program(loop, p, f, storage());
    CHECK(first.complete());
    CHECK(first.ports == 7);
    CHECK(first.blocks_desired == 7);
    CHECK(first.blocks_sent == 7);
    CHECK(first.keys_dropped == 1);
    REQUIRE(first.failures.size() == 1);
    CHECK(first.failures[0] ==
          "0x0000000000000500 (H2) port 1 needs 2 P_Key(s), its table holds 1 (NodeInfo PartitionCap): 0x0010 not in "
          "its table (keys it held before keep their index), so the port cannot use that partition. Take the port "
          "out of partitions it does not need (an ALL, ALL_CAS or ALL_SWITCHES member puts every such port in)");
    CHECK(fake.keys("0,1,2", 0) == std::vector<std::uint16_t>{0xffff, 0x8010});
    CHECK(fake.keys("0,1", mad::pkey_attr_mod(0, 2)) == std::vector<std::uint16_t>{0xffff, 0x8010});
    CHECK(fake.keys("0,1", mad::pkey_attr_mod(0, 0)) == std::vector<std::uint16_t>{0xffff});
    CHECK(fake.keys("0,1,4,1", 0) == std::vector<std::uint16_t>{0xffff});

    fake.sets.clear();
    const auto again = program(loop, p, f, storage());
    CHECK(again.complete());
    CHECK(again.blocks_sent == 0);
    CHECK(fake.sets.empty());

    // H1 leaves the partition: its port and the switch port filtering it.
    const auto left = program(loop, p, f, storage(false));
    CHECK(left.complete());
    CHECK(left.blocks_sent == 2);
    CHECK(std::set(fake.sets.begin(), fake.sets.end()) ==
          std::set<FakePKeys::Key>{{"0,1,2", 0}, {"0,1", mad::pkey_attr_mod(0, 2)}});
    CHECK(fake.keys("0,1,2", 0) == std::vector<std::uint16_t>{0xffff});
}

TEST_CASE("an unanswered P_Key Set is sent again next round; one never answered stays dirty for the next call",
          "[pkey]")
{
    PKeyFabric f;
    FakePKeys fake;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return fake.handle(r); };
    daemon::PKeyProgrammer p(daemon::PKeySettings{3, 8});
    const FakePKeys::Key h1{"0,1,2", 0};

    SECTION("lost once")
    {
        fake.drop = {h1};
        const auto r = program(loop, p, f, storage());
        CHECK(r.complete());
        CHECK(r.blocks_sent == 8);
        CHECK(fake.keys("0,1,2", 0) == std::vector<std::uint16_t>{0xffff, 0x8010});
    }
    SECTION("lost every round")
    {
        fake.drop = {h1, h1, h1};
        const auto r = program(loop, p, f, storage());
        CHECK_FALSE(r.complete());
        CHECK(r.blocks_dirty == 1);
        CHECK(r.blocks_sent == 7 + 2);
        CHECK(std::count(r.failures.begin(), r.failures.end(),
                         "0x0000000000000300 (H1) port 1 block 0: P_KeyTable Set timeout") == 3);
        CHECK(fake.keys("0,1,2", 0).empty());
        fake.sets.clear();
        const auto next = program(loop, p, f, storage());
        CHECK(next.complete());
        CHECK(fake.sets == std::vector<FakePKeys::Key>{h1});
    }
    SECTION("answered with another table")
    {
        fake.garble = {h1};
        const auto r = program(loop, p, f, storage());
        CHECK(r.complete());
        CHECK(r.blocks_sent == 8);
        CHECK(std::count(r.failures.begin(), r.failures.end(),
                         "0x0000000000000300 (H1) port 1 block 0: P_KeyTable Set answered with other content") == 1);
        CHECK(fake.keys("0,1,2", 0) == std::vector<std::uint16_t>{0xffff, 0x8010});
    }
}

TEST_CASE("forget() makes a port's P_Key table unknown: only its blocks are sent again", "[pkey]")
{
    PKeyFabric f;
    FakePKeys fake;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return fake.handle(r); };
    daemon::PKeyProgrammer p(daemon::PKeySettings{3, 8});
    REQUIRE(program(loop, p, f, storage()).complete());
    fake.sets.clear();
    p.forget({{Guid(0x300), 1}, {Guid(0x1000), 2}});
    const auto r = program(loop, p, f, storage());
    CHECK(r.blocks_sent == 2);
    CHECK(std::set(fake.sets.begin(), fake.sets.end()) ==
          std::set<FakePKeys::Key>{{"0,1,2", 0}, {"0,1", mad::pkey_attr_mod(0, 2)}});
}

TEST_CASE("unenforced() then program(), as a sweep calls them: one layout sends what program() alone sends",
          "[pkey]")
{
    PKeyFabric f;
    FakePKeys fake;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return fake.handle(r); };
    daemon::PKeyProgrammer p(daemon::PKeySettings{3, 8});
    auto sweep = [&](const partition::Partitions& parts) {
        fake.sets.clear();
        (void)p.unenforced(f.found, parts);
        return program(loop, p, f, parts);
    };
    const auto with_h1 = storage();
    const auto first = sweep(with_h1); // every port new: laid out on a copy of the book, then again
    CHECK(first.complete());
    CHECK(first.blocks_sent == 7);
    const auto again = sweep(with_h1); // none new: program() sends from unenforced()'s layout
    CHECK(again.complete());
    CHECK(again.blocks_sent == 0);
    const auto without_h1 = storage(false);
    const auto left = sweep(without_h1);
    CHECK(left.blocks_sent == 2);
    CHECK(fake.keys("0,1,2", 0) == std::vector<std::uint16_t>{0xffff});
    CHECK(fake.keys("0,1", mad::pkey_attr_mod(0, 2)) == std::vector<std::uint16_t>{0xffff});
    // A port forgotten between the two: its table is unknown again and sent.
    fake.sets.clear();
    (void)p.unenforced(f.found, without_h1);
    p.forget({{Guid(0x300), 1}});
    const auto relinked = program(loop, p, f, without_h1);
    CHECK(relinked.complete());
    CHECK(fake.sets == std::vector<FakePKeys::Key>{{"0,1,2", 0}});
}
