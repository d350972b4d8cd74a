// Master/standby against the in-process fake fabric: the SMInfo responder's
// SM_Key rules, a standby that programs nothing, its takeover when the
// master stops answering (LIDs kept, no LFT block resent), and HANDOVER /
// ACKNOWLEDGE in both directions. The other SM is the fake's remote SM
// (add_remote_sm): a port with IsSM that answers SMInfo.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "daemon/core/events.h"
#include "daemon/sm/sm_election.h"
#include "daemon/sm/sm_info_responder.h"

#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>
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

constexpr std::uint64_t key = 0x5eed;
constexpr std::uint16_t invalid_value = 0x001c;

// Six hosts on two leaves under one spine.
topology::Fabric small_tree(std::vector<NodeId>& hosts)
{
    topology::Fabric f;
    for (unsigned h = 0; h < 6; ++h)
        hosts.push_back(f.add_node(NodeType::ca, Guid(0x100 + 0x100 * h), 1, "H" + std::to_string(h)));
    const auto spine = f.add_node(NodeType::switch_node, Guid(0x10000), 4, "P0");
    for (unsigned l = 0; l < 2; ++l) {
        const auto leaf = f.add_node(NodeType::switch_node, Guid(0x20000 + l), 4, "L" + std::to_string(l));
        for (unsigned h = 0; h < 3; ++h)
            f.connect({hosts[l * 3 + h], PortNum(1)}, {leaf, PortNum(static_cast<std::uint8_t>(h + 1))});
        f.connect({leaf, PortNum(4)}, {spine, PortNum(static_cast<std::uint8_t>(l + 1))});
    }
    return f;
}

// The SM on host 0 with an election (priority `priority`, SM_Key `key`).
struct Sm {
    TempDir dir;
    daemon::EventQueue events;
    daemon::SmInfoResponder responder;
    daemon::SmElection election;
    daemon::Bringup bringup;

    Sm(test::FabricLoop& loop, std::uint8_t priority, std::uint64_t sm_key = key)
        : events(loop.io.get_executor()),
          responder(loop.transport, loop.fabric.fabric().port(loop.fabric.sm_port()).guid, priority),
          election(loop.transport, responder, events,
                   daemon::ElectionSettings{daemon::SmIdentity{priority,
                                                               loop.fabric.fabric().port(loop.fabric.sm_port()).guid,
                                                               sm_key},
                                            std::chrono::milliseconds(10), 1}),
          bringup(loop.transport, bringup_settings(dir.path))
    {
        responder.install();
        election.install();
        bringup.set_gate(&election);
        bringup.on_subnet_up([this] { election.on_subnet_up(); });
    }
};

mad::SmInfo remote_info(const test::FakeFabric& fake, PortRef port, std::uint8_t priority, mad::SmState state,
                        std::uint64_t sm_key = key)
{
    mad::SmInfo si;
    si.guid = fake.fabric().port(port).guid;
    si.priority = priority;
    si.sm_state = state;
    si.sm_key = sm_key;
    return si;
}

// A SubnGet/SubnSet(SMInfo) to the SM's own port, as another SM sends it.
mad::RawReceive sm_info_request(mad::Method method, std::uint32_t control, const mad::SmInfo& payload,
                                std::uint64_t tid)
{
    std::array<std::uint8_t, mad::smp_data_size> data{};
    mad::encode(payload, std::span<std::uint8_t, 64>(data));
    mad::RawReceive r;
    r.smp = mad::make_dr_request(method, DrPath{}, mad::attr::sm_info, control, tid, data);
    r.length = mad::mad_size;
    return r;
}

std::uint64_t sets_sent(const test::FakeCounters& c)
{
    std::uint64_t n = 0;
    for (const auto& [k, count] : c.requests)
        if (k.first == static_cast<std::uint8_t>(mad::Method::set)) n += count;
    return n;
}

// Every switch's LFT entries as the fake holds them, by node GUID.
std::map<Guid, std::vector<std::uint8_t>> lfts_held(const test::FakeFabric& fake)
{
    std::map<Guid, std::vector<std::uint8_t>> out;
    const auto rb = fake.read_back();
    for (const auto& [id, lft] : rb.tables.lfts) out[rb.fabric.node(id).guid] = lft.port;
    return out;
}

std::vector<std::uint16_t> port_lids(const test::FakeFabric& fake)
{
    std::vector<std::uint16_t> out;
    for (auto id : fake.fabric().node_ids()) {
        const auto& n = fake.fabric().node(id);
        out.push_back(fake.port_info(PortRef{id, PortNum(n.is_switch() ? 0 : 1)}).lid.value());
    }
    return out;
}

// Runs the election's poller until it asks for a heavy sweep.
daemon::Event poll_until_event(test::FabricLoop& loop, Sm& sm)
{
    return loop.run([&]() -> boost::asio::awaitable<daemon::Event> {
        boost::asio::co_spawn(loop.io, sm.election.run(), boost::asio::detached);
        auto ev = co_await sm.events.pop();
        sm.election.stop();
        co_return ev;
    });
}

} // namespace

TEST_CASE("SMInfo Get: the SM_Key only for a requester that presents it; Sets without it are refused",
          "[election]")
{
    QuietLogs quiet;
    std::vector<NodeId> hosts;
    test::FabricLoop loop(small_tree(hosts));
    Sm sm(loop, 4);
    const auto other = remote_info(loop.fabric, {hosts[1], PortNum(1)}, 9, mad::SmState::master);

    auto wrong = other;
    wrong.sm_key = key + 1;
    loop.fabric.deliver(sm_info_request(mad::Method::get, 0, wrong, 1));
    loop.fabric.deliver(sm_info_request(mad::Method::get, 0, other, 2));
    loop.fabric.deliver(sm_info_request(mad::Method::set, mad::sm_control::handover, wrong, 3));
    loop.poll();
    const auto& answers = loop.fabric.responses_from_sm();
    REQUIRE(answers.size() == 3);
    auto a0 = mad::decode_sm_info(answers[0].data());
    auto a1 = mad::decode_sm_info(answers[1].data());
    auto a2 = mad::decode_sm_info(answers[2].data());
    REQUIRE((a0 && a1 && a2));
    CHECK(a0->sm_key == 0);
    CHECK(a1->sm_key == key);
    CHECK(a1->priority == 4);
    CHECK(a1->sm_state == mad::SmState::discovering);
    CHECK(answers[0].status() == 0);
    CHECK(answers[2].status() == invalid_value);
    CHECK(a2->sm_key == 0);
    CHECK(sm.election.state() == mad::SmState::discovering); // the HANDOVER changed nothing
    CHECK(sm.events.size() == 0);
    CHECK(sm.responder.counters().sets_refused == 1);
}

// malformed-mads (tests/integration) sends exactly this to an SM with the
// default SM_Key 0: a DISABLE from a "MASTER" presenting another key.
TEST_CASE("an SM whose SM_Key is 0 refuses a DISABLE presenting another key and stays MASTER; key 0 is obeyed",
          "[election]")
{
    QuietLogs quiet;
    std::vector<NodeId> hosts;
    test::FabricLoop loop(small_tree(hosts));
    Sm sm(loop, 1, 0);
    REQUIRE(loop.run([&] { return sm.bringup.sweep(); }).up);
    REQUIRE(sm.election.state() == mad::SmState::master);

    const auto forged = remote_info(loop.fabric, {hosts[1], PortNum(1)}, 15, mad::SmState::master, 0xdeadbeefdeadbeefull);
    loop.fabric.deliver(sm_info_request(mad::Method::set, mad::sm_control::disable, forged, 1));
    loop.fabric.deliver(sm_info_request(mad::Method::get, 0, forged, 2));
    loop.poll();
    const auto& answers = loop.fabric.responses_from_sm();
    REQUIRE(answers.size() == 2);
    CHECK(answers[0].status() == invalid_value);
    auto a1 = mad::decode_sm_info(answers[1].data());
    REQUIRE(a1);
    CHECK(a1->sm_state == mad::SmState::master);
    CHECK(sm.election.state() == mad::SmState::master);
    CHECK(sm.responder.counters().sets_refused == 1);

    auto keyless = forged;
    keyless.sm_key = 0;
    loop.fabric.deliver(sm_info_request(mad::Method::set, mad::sm_control::disable, keyless, 3));
    loop.poll();
    REQUIRE(answers.size() == 3);
    CHECK(answers[2].status() == 0);
    CHECK(sm.election.state() == mad::SmState::not_active);
    CHECK(sm.responder.counters().sets_accepted == 1);
}

TEST_CASE("a standby programs nothing; when the master stops answering it takes over, keeping every LID and "
          "sending no LFT block",
          "[election]")
{
    QuietLogs quiet;
    std::vector<NodeId> hosts;
    test::FabricLoop loop(small_tree(hosts));
    // The first master: a lone SM configures the fabric.
    {
        Sm first(loop, 5);
        auto o = loop.run([&] { return first.bringup.sweep(); });
        REQUIRE(o.up);
        CHECK(first.election.state() == mad::SmState::master);
    }
    const auto lids_before = port_lids(loop.fabric);
    const auto tables_before = lfts_held(loop.fabric);
    REQUIRE(tables_before.size() == 3);
    // It now runs on host 3 (as far as SMInfo tells); a new SM on host 0
    // with a higher priority starts and finds it.
    const PortRef master_port{hosts[3], PortNum(1)};
    loop.fabric.add_remote_sm(master_port, remote_info(loop.fabric, master_port, 2, mad::SmState::master));
    Sm sm(loop, 7);
    loop.fabric.reset_counters();
    auto o = loop.run([&] { return sm.bringup.sweep(); });
    CHECK_FALSE(o.up);
    CHECK(o.standby);
    CHECK(o.reason.find("standing by for master SM " + loop.fabric.fabric().port(master_port).guid.str()) == 0);
    CHECK(sets_sent(loop.fabric.counters()) == 0);
    CHECK(sm.election.state() == mad::SmState::standby);
    CHECK(sm.election.master() == loop.fabric.fabric().port(master_port).guid);
    CHECK(sm.bringup.snapshot() == nullptr);
    // A re-route while standing by programs nothing either.
    auto r = loop.run([&] { return sm.bringup.reroute(daemon::RefreshRequest{}); });
    CHECK(r.standby);

    // The master dies: polling_retries (1) + 1 polls go unanswered.
    loop.fabric.remove_remote_sm(master_port);
    auto ev = poll_until_event(loop, sm);
    REQUIRE(std::holds_alternative<daemon::HeavySweepEvent>(ev));
    CHECK(std::get<daemon::HeavySweepEvent>(ev).reason.find("stopped answering: taking over") != std::string::npos);
    CHECK(sm.election.counters().takeovers == 1);
    CHECK(sm.election.counters().polls == 2);
    CHECK(sm.election.state() == mad::SmState::discovering);

    loop.fabric.reset_counters();
    o = loop.run([&] { return sm.bringup.sweep(); });
    CHECK(o.up);
    CHECK(o.lft_blocks_sent == 0);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::linear_forwarding_table) == 0);
    // The dead master's port was not asked again in the takeover sweep.
    CHECK(loop.fabric.counters().dropped_no_sm == 0);
    CHECK(sm.election.state() == mad::SmState::master);
    CHECK(port_lids(loop.fabric) == lids_before);
    CHECK(lfts_held(loop.fabric) == tables_before);
}

TEST_CASE("a master hands over to a higher SM in STANDBY, stands by and polls it", "[election]")
{
    QuietLogs quiet;
    std::vector<NodeId> hosts;
    test::FabricLoop loop(small_tree(hosts));
    Sm sm(loop, 3);
    REQUIRE(loop.run([&] { return sm.bringup.sweep(); }).up);
    REQUIRE(sm.election.state() == mad::SmState::master);

    // A lower SM standing by changes nothing.
    const PortRef low{hosts[2], PortNum(1)};
    loop.fabric.add_remote_sm(low, remote_info(loop.fabric, low, 1, mad::SmState::standby));
    auto o = loop.run([&] { return sm.bringup.sweep(); });
    CHECK(o.up);
    CHECK(loop.fabric.remote_sm_sets().empty());

    // A higher one gets the subnet.
    const PortRef high{hosts[5], PortNum(1)};
    loop.fabric.add_remote_sm(high, remote_info(loop.fabric, high, 9, mad::SmState::standby));
    o = loop.run([&] { return sm.bringup.sweep(); });
    CHECK(o.standby);
    CHECK(o.reason.find("handed the subnet over to SM " + loop.fabric.fabric().port(high).guid.str()) == 0);
    REQUIRE(loop.fabric.remote_sm_sets().size() == 1);
    const auto& set = loop.fabric.remote_sm_sets()[0];
    CHECK(set.control == mad::sm_control::handover);
    CHECK(set.sender.sm_state == mad::SmState::master);
    CHECK(set.sender.sm_key == key);
    CHECK(sm.election.state() == mad::SmState::standby);
    CHECK(sm.election.master() == loop.fabric.fabric().port(high).guid);
    CHECK(sm.responder.current().sm_state == mad::SmState::standby);
    CHECK(sm.election.counters().handovers_sent == 1);
}

TEST_CASE("HANDOVER from the master makes a standby master: a heavy sweep, and ACKNOWLEDGE back", "[election]")
{
    QuietLogs quiet;
    std::vector<NodeId> hosts;
    test::FabricLoop loop(small_tree(hosts));
    const PortRef master_port{hosts[4], PortNum(1)};
    // It ranks below us (it would hand over for that reason).
    const auto master = remote_info(loop.fabric, master_port, 0, mad::SmState::master);
    loop.fabric.add_remote_sm(master_port, master);
    Sm sm(loop, 1);
    REQUIRE(loop.run([&] { return sm.bringup.sweep(); }).standby);

    // A HANDOVER from a port that is not master is refused.
    auto not_master = master;
    not_master.sm_state = mad::SmState::standby;
    loop.fabric.deliver(sm_info_request(mad::Method::set, mad::sm_control::handover, not_master, 7));
    loop.poll();
    REQUIRE(loop.fabric.responses_from_sm().size() == 1);
    CHECK(loop.fabric.responses_from_sm()[0].status() == invalid_value);
    CHECK(sm.election.state() == mad::SmState::standby);

    loop.fabric.deliver(sm_info_request(mad::Method::set, mad::sm_control::handover, master, 8));
    loop.poll();
    REQUIRE(loop.fabric.responses_from_sm().size() == 2);
    const auto& answer = loop.fabric.responses_from_sm()[1];
    CHECK(answer.status() == 0);
    CHECK(mad::decode_sm_info(answer.data())->sm_key == key);
    CHECK(sm.election.state() == mad::SmState::master);
    REQUIRE(sm.events.size() == 1);
    // The ACKNOWLEDGE went out, as STANDBY (the state the HANDOVER found us in).
    loop.poll();
    REQUIRE(loop.fabric.remote_sm_sets().size() == 1);
    CHECK(loop.fabric.remote_sm_sets()[0].control == mad::sm_control::acknowledge);
    CHECK(loop.fabric.remote_sm_sets()[0].sender.sm_state == mad::SmState::standby);
    CHECK(sm.election.counters().acknowledges_sent == 1);

    // The sweep it asked for configures: the old master now stands by.
    loop.fabric.set_remote_sm_state(master_port, mad::SmState::standby);
    auto o = loop.run([&] { return sm.bringup.sweep(); });
    CHECK(o.up);
    CHECK(sm.election.state() == mad::SmState::master);
}

TEST_CASE("a standby whose master ranks below it sends trap 144 to the master's LID", "[election]")
{
    QuietLogs quiet;
    std::vector<NodeId> hosts;
    test::FabricLoop loop(small_tree(hosts));
    // Configure once so every port has a LID.
    {
        Sm first(loop, 5);
        REQUIRE(loop.run([&] { return first.bringup.sweep(); }).up);
    }
    const PortRef master_port{hosts[1], PortNum(1)};
    loop.fabric.add_remote_sm(master_port, remote_info(loop.fabric, master_port, 2, mad::SmState::master));
    Sm sm(loop, 9);
    REQUIRE(loop.run([&] { return sm.bringup.sweep(); }).standby);
    loop.fabric.reset_counters();
    // Two polls (alive, lower), then the master goes away and the poller ends.
    loop.run([&]() -> boost::asio::awaitable<int> {
        boost::asio::co_spawn(loop.io, sm.election.run(), boost::asio::detached);
        boost::asio::steady_timer t(loop.io);
        while (sm.election.counters().traps_sent < 2) {
            t.expires_after(std::chrono::milliseconds(5));
            co_await t.async_wait(boost::asio::use_awaitable);
        }
        sm.election.stop();
        co_return 0;
    });
    CHECK(sm.election.counters().traps_sent == 2);
    CHECK(sm.election.counters().takeovers == 0);
    CHECK(loop.fabric.counters().count(mad::Method::trap, mad::attr::notice) == 2);
    CHECK(sm.election.state() == mad::SmState::standby);
}
