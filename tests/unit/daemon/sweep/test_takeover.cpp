// A takeover and a restart that change nothing: a second SM that takes over
// a fabric the first configured, from another place in the fabric, or the
// same SM started again, routes it to the same tables and sends no LFT block,
// no P_Key block and no PortInfo Set that would not change the port (the
// takeover's only Sets carry the new MasterSMLID, which must change).
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "daemon/sweep/discovery.h"
#include "mad/pkey_table.h"
#include "partition/rules.h"
#include "topology/gen_degrade.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace ibsm;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using topology::NodeId;
using topology::PortRef;

namespace {

// A 3-level tree of 64 hosts with a switch, links and hosts missing, so no
// engine's result is fixed by symmetry alone.
topology::Fabric degraded_tree()
{
    const auto full = topology::generate_pgft(topology::PgftParams{{4, 4, 4}, {1, 4, 4}, {1, 1, 1}});
    auto fewer = topology::remove_random_hosts(full, 5, 3).fabric;
    return topology::degrade(fewer, topology::DegradeSpec{1, 6, 7}).fabric;
}

// The first and the last cabled CA port in node order: on different leaves
// of the tree, so discovery meets the nodes in a different order.
std::pair<PortRef, PortRef> two_sm_ports(const topology::Fabric& f)
{
    std::vector<PortRef> cas;
    for (auto id : f.node_ids())
        if (!f.node(id).is_switch() && f.node(id).port(PortNum(1)).remote) cas.push_back({id, PortNum(1)});
    REQUIRE(cas.size() >= 2);
    return {cas.front(), cas.back()};
}

daemon::BringupSettings settings_for(const std::filesystem::path& dir, std::vector<std::string> chain)
{
    auto s = bringup_settings(dir, std::move(chain));
    // The default partition on every port, as the daemon runs without a
    // partitions file.
    s.partitions = std::make_shared<const std::vector<partition::Rule>>(partition::effective_rules({}, false));
    return s;
}

// Every switch's LFT by node GUID and LID, as the switches hold them.
std::map<Guid, std::vector<std::uint8_t>> tables_by_guid(const test::FabricReadback& rb)
{
    std::map<Guid, std::vector<std::uint8_t>> out;
    for (const auto& [id, lft] : rb.tables.lfts) out[rb.fabric.node(id).guid] = lft.port;
    return out;
}

struct Sets {
    std::uint64_t lft = 0, pkey = 0, port_info = 0, switch_info = 0, vl = 0;
};

Sets sets_sent(const test::FakeFabric& f)
{
    const auto& c = f.counters();
    using mad::Method;
    return Sets{c.count(Method::set, mad::attr::linear_forwarding_table), c.count(Method::set, mad::attr_pkey_table),
                c.count(Method::set, mad::attr::port_info), c.count(Method::set, mad::attr::switch_info),
                c.count(Method::set, mad::attr::sl2vl_table) + c.count(Method::set, mad::attr::vl_arbitration)};
}

std::size_t lid_ports(const topology::Fabric& f)
{
    return f.switch_count() + f.ca_count();
}

} // namespace

TEST_CASE("the same fabric discovered from two SM positions gives the same graph order and the same tables",
          "[takeover]")
{
    const auto tree = degraded_tree();
    const auto [a, b] = two_sm_ports(tree);
    test::FabricLoop from_a(tree, test::FakeFabricOptions{a});
    test::FabricLoop from_b(tree, test::FakeFabricOptions{b});
    const auto found_a = from_a.run([&] { return daemon::discover(from_a.transport); });
    const auto found_b = from_b.run([&] { return daemon::discover(from_b.transport); });
    REQUIRE(found_a.complete());
    REQUIRE(found_b.complete());
    // Node order is the inputs' order for every engine's tie-breaks: by GUID,
    // not by the DR-path order discovery met the nodes in.
    REQUIRE(found_a.fabric.node_count() == found_b.fabric.node_count());
    for (auto id : found_a.fabric.node_ids()) CHECK(found_a.fabric.node(id).guid == found_b.fabric.node(id).guid);
    CHECK(found_a.sm_port != found_b.sm_port);
}

TEST_CASE("a standby taking over from another leaf routes the same tables and sends no LFT or P_Key block; its "
          "only PortInfo Sets carry the new MasterSMLID",
          "[takeover]")
{
    QuietLogs quiet;
    const std::vector<std::string> chain =
        GENERATE(std::vector<std::string>{"ftree", "dfsssp-or-nue", "updn"}, std::vector<std::string>{"nue"},
                 std::vector<std::string>{"dfsssp-or-nue"},
                 std::vector<std::string>{"dfsssp"}, std::vector<std::string>{"minhop"},
                 std::vector<std::string>{"updn"});
    INFO("chain " << chain.front());
    const auto tree = degraded_tree();
    const auto [a, b] = two_sm_ports(tree);
    TempDir master_dir, standby_dir;
    test::FabricLoop loop(tree, test::FakeFabricOptions{a});
    daemon::Bringup master(loop.transport, settings_for(master_dir.path, chain));
    const auto first = loop.run([&] { return master.sweep(); });
    INFO(first.reason);
    REQUIRE(first.up);
    const auto before = tables_by_guid(loop.fabric.read_back());

    // The master dies; the standby on the far leaf takes over with a state
    // directory of its own (no guid2lid): every LID from the ports.
    loop.fabric.move_sm(b);
    loop.fabric.reset_counters();
    daemon::Bringup standby(loop.transport, settings_for(standby_dir.path, chain));
    const auto taken = loop.run([&] { return standby.sweep(); });
    INFO(taken.reason);
    REQUIRE(taken.up);
    CHECK(taken.engine == first.engine);
    CHECK(tables_by_guid(loop.fabric.read_back()) == before);
    const auto sent = sets_sent(loop.fabric);
    CHECK(sent.lft == 0);
    CHECK(taken.lft_blocks_sent == 0);
    CHECK(sent.switch_info == 0);
    CHECK(sent.pkey == 0);
    CHECK(taken.pkey_blocks_sent == 0);
    CHECK(sent.vl == 0);
    // MasterSMLID names the new master on every CA port and switch port 0:
    // one Set each (ClientReregister rides on the CA ports' Sets), none to
    // a switch's external ports.
    CHECK(sent.port_info == lid_ports(tree));
    CHECK(taken.port_info_sets == lid_ports(tree));
    const Lid new_sm = loop.fabric.port_info(b).lid;
    for (auto id : tree.node_ids()) {
        const PortRef p = tree.node(id).is_switch() ? PortRef{id, PortNum(0)} : PortRef{id, PortNum(1)};
        if (!tree.node(id).is_switch() && !tree.port(p).remote) continue;
        CHECK(loop.fabric.port_info(p).master_sm_lid == new_sm);
    }

    // The old master comes back as the SM on its own port again (a
    // handover): the same tables once more, nothing sent but MasterSMLID.
    loop.fabric.move_sm(a);
    loop.fabric.reset_counters();
    daemon::Bringup back(loop.transport, settings_for(master_dir.path, chain));
    REQUIRE(loop.run([&] { return back.sweep(); }).up);
    CHECK(tables_by_guid(loop.fabric.read_back()) == before);
    CHECK(sets_sent(loop.fabric).lft == 0);
    CHECK(sets_sent(loop.fabric).pkey == 0);
}

TEST_CASE("ftree on a degraded two-level tree: a standby on another leaf than the master's routes the same tables",
          "[takeover]")
{
    // D-Mod-K leaves entries to the cut-off spines empty here; ftree fills
    // them through one subtree root, which must not follow the SM.
    QuietLogs quiet;
    // tests/bench/fabrics.sh's tree-648-m20, where a standby re-sent 54 blocks.
    const auto full = topology::generate_pgft(topology::PgftParams{{18, 36}, {1, 18}, {1, 1}});
    const auto tree = topology::degrade(full, topology::DegradeSpec{0, 20, 1}).fabric;
    const auto [a, b] = two_sm_ports(tree);
    TempDir master_dir, standby_dir;
    test::FabricLoop loop(tree, test::FakeFabricOptions{a});
    daemon::Bringup master(loop.transport, settings_for(master_dir.path, {"ftree"}));
    REQUIRE(loop.run([&] { return master.sweep(); }).up);
    const auto before = tables_by_guid(loop.fabric.read_back());
    loop.fabric.move_sm(b);
    loop.fabric.reset_counters();
    daemon::Bringup standby(loop.transport, settings_for(standby_dir.path, {"ftree"}));
    const auto taken = loop.run([&] { return standby.sweep(); });
    REQUIRE(taken.up);
    CHECK(taken.engine == "ftree");
    CHECK(tables_by_guid(loop.fabric.read_back()) == before);
    CHECK(taken.lft_blocks_sent == 0);
}

TEST_CASE("a restarted SM on the fabric it configured sends no LFT block, no P_Key block and no PortInfo Set",
          "[takeover]")
{
    QuietLogs quiet;
    TempDir dir;
    const auto tree = degraded_tree();
    test::FabricLoop loop(tree);
    auto settings = settings_for(dir.path, {"ftree", "dfsssp-or-nue", "updn"});
    // As `ibsmd --once`: no SA serves after the run, so no host is asked to
    // re-register with one.
    settings.ports.client_reregister = false;
    {
        daemon::Bringup first(loop.transport, settings);
        REQUIRE(loop.run([&] { return first.sweep(); }).up);
    }
    const auto before = tables_by_guid(loop.fabric.read_back());
    loop.fabric.reset_counters();
    daemon::Bringup again(loop.transport, settings);
    const auto o = loop.run([&] { return again.sweep(); });
    INFO(o.reason);
    REQUIRE(o.up);
    CHECK(tables_by_guid(loop.fabric.read_back()) == before);
    const auto sent = sets_sent(loop.fabric);
    CHECK(sent.lft == 0);
    CHECK(sent.switch_info == 0);
    CHECK(sent.pkey == 0);
    CHECK(sent.port_info == 0);
    CHECK(sent.vl == 0);
    CHECK(o.lft_blocks_sent == 0);
    CHECK(o.pkey_blocks_sent == 0);
    CHECK(o.port_info_sets == 0);
}

TEST_CASE("a restarted service asks each CA port to re-register, in one PortInfo Set, and nothing else", "[takeover]")
{
    QuietLogs quiet;
    TempDir dir;
    const auto tree = degraded_tree();
    test::FabricLoop loop(tree);
    const auto settings = settings_for(dir.path, {"ftree", "dfsssp-or-nue", "updn"});
    {
        daemon::Bringup first(loop.transport, settings);
        REQUIRE(loop.run([&] { return first.sweep(); }).up);
    }
    loop.fabric.reset_counters();
    daemon::Bringup again(loop.transport, settings);
    const auto o = loop.run([&] { return again.sweep(); });
    REQUIRE(o.up);
    const auto sent = sets_sent(loop.fabric);
    CHECK(sent.lft == 0);
    CHECK(sent.pkey == 0);
    // The SA of the new process starts empty: hosts re-join their groups.
    CHECK(sent.port_info == tree.ca_count());
    CHECK(o.port_info_sets == tree.ca_count());
}

TEST_CASE("a new process keeps the P_Key indexes the ports hold, and writes only the block a new key changes",
          "[takeover]")
{
    QuietLogs quiet;
    TempDir dir;
    const auto tree = degraded_tree();
    test::FabricLoop loop(tree);
    const partition::MemberRule all_full{partition::Who::all, Guid(), partition::Membership::full};
    const partition::Rule storage{"storage", 0x0001, false, {}, false, {all_full}, {}, 1};
    const partition::Rule compute{"compute", 0x0002, false, {}, false, {all_full}, {}, 2};
    auto settings = settings_for(dir.path, {"minhop"});
    settings.partitions =
        std::make_shared<const std::vector<partition::Rule>>(partition::effective_rules({storage}, true));
    {
        daemon::Bringup first(loop.transport, settings);
        REQUIRE(loop.run([&] { return first.sweep(); }).up);
    }
    const PortRef host = loop.fabric.sm_port();
    const auto held = loop.fabric.pkey_table(host, 0);
    REQUIRE(held.keys[1] == 0x8001);

    // A new process whose configuration lists a partition before storage:
    // laid out afresh, compute would take index 1 and move storage away
    // from the index the host's interface uses.
    settings.partitions =
        std::make_shared<const std::vector<partition::Rule>>(partition::effective_rules({compute, storage}, true));
    loop.fabric.reset_counters();
    daemon::Bringup second(loop.transport, settings);
    const auto o = loop.run([&] { return second.sweep(); });
    REQUIRE(o.up);
    const auto now = loop.fabric.pkey_table(host, 0);
    CHECK(now.keys[0] == held.keys[0]);
    CHECK(now.keys[1] == 0x8001);
    CHECK(now.keys[2] == 0x8002);
    // One block per port that holds the new key, nothing else.
    CHECK(o.pkey_blocks_sent == loop.fabric.counters().count(mad::Method::set, mad::attr_pkey_table));
    CHECK(o.pkey_blocks_sent > 0);
    CHECK(o.lft_blocks_sent == 0);
}
