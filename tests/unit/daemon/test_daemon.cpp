// Unit tests of the bring-up pieces that do not need a simulator: the LFT
// programmer against a scripted switch (desired vs confirmed, retries,
// restart without rewriting), the SL2VL and PortInfo helpers, the LID store,
// the SMInfo responder and the command line.
#include "fake_loop.h"

#include "daemon/lft_programmer.h"
#include "daemon/lid_store.h"
#include "daemon/options.h"
#include "daemon/port_programmer.h"
#include "daemon/sm_info_responder.h"
#include "daemon/vl_programmer.h"
#include "lidassign/base_lids.h"
#include "mad/linear_forwarding_table.h"
#include "mad/sm_info.h"
#include "mad/switch_info.h"

#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace ibsm;

namespace {

// One switch behind port 1 of the SM's CA: its LFT blocks and SwitchInfo.
// `fail_sets` lists block numbers whose next Set is answered with a bad status.
struct FakeSwitch {
    std::map<std::uint32_t, mad::LinearForwardingTable> blocks;
    mad::SwitchInfo info;
    std::multiset<std::uint32_t> fail_sets;
    unsigned lft_gets = 0, lft_sets = 0, si_sets = 0;

    std::vector<mad::RawReceive> handle(const mad::Smp& req)
    {
        std::array<std::uint8_t, 64> data{};
        std::uint16_t status = 0;
        const bool set = req.method() == static_cast<std::uint8_t>(mad::Method::set);
        if (req.attr_id() == mad::attr::linear_forwarding_table) {
            const auto b = req.attr_mod();
            if (set) {
                ++lft_sets;
                if (auto it = fail_sets.find(b); it != fail_sets.end()) {
                    fail_sets.erase(it);
                    status = 0x001c;
                } else {
                    blocks[b] = *mad::decode_linear_forwarding_table(req.data());
                }
            } else {
                ++lft_gets;
            }
            mad::LinearForwardingTable t;
            t.ports.fill(mad::lft_no_route);
            if (auto it = blocks.find(b); it != blocks.end()) t = it->second;
            mad::encode(t, std::span<std::uint8_t, 64>(data));
        } else if (req.attr_id() == mad::attr::switch_info) {
            if (set) {
                ++si_sets;
                auto in = *mad::decode_switch_info(req.data());
                info.linear_fdb_top = in.linear_fdb_top;
                info.life_time_value = in.life_time_value;
            }
            mad::encode(info, std::span<std::uint8_t, 64>(data));
        }
        mad::RawReceive r;
        r.smp = mad::make_get_resp(req, data, status);
        r.length = mad::mad_size;
        return {r};
    }
};

// A fabric of one CA (the SM) and one 4-port switch, and tables routing
// LIDs 1..130 (three blocks) out of ports 1..4.
struct OneSwitch {
    daemon::DiscoveryResult found;
    routing::RoutingTables tables;
    topology::NodeId sw;

    explicit OneSwitch(std::uint16_t discovered_top)
    {
        auto& f = found.fabric;
        auto ca = f.add_node(topology::NodeType::ca, Guid(0x100), 1);
        sw = f.add_node(topology::NodeType::switch_node, Guid(0x200), 4);
        f.connect({ca, PortNum(1)}, {sw, PortNum(1)});
        found.paths = {DrPath{}, DrPath{}.extended(PortNum(1))};
        found.sm_port = {ca, PortNum(1)};
        mad::SwitchInfo si;
        si.linear_fdb_cap = 49152;
        si.linear_fdb_top = discovered_top;
        found.switch_info[sw] = si;
        routing::Lft lft;
        lft.port.assign(131, routing::no_route);
        for (std::size_t lid = 1; lid <= 130; ++lid) lft.port[lid] = static_cast<std::uint8_t>(1 + lid % 4);
        tables.lfts[sw] = lft;
        tables.linear_fdb_top = Lid(130);
        tables.engine = "test";
    }
};

daemon::LftReport program(test::Loop& loop, daemon::LftProgrammer& p, const OneSwitch& s)
{
    return loop.run([&] { return p.program(loop.transport, s.found, s.tables); });
}

} // namespace

TEST_CASE("desired_blocks covers LIDs 0..top in blocks of 64, unrouted entries 0xFF", "[lft]")
{
    routing::Lft lft;
    lft.port = {routing::no_route, 3, 4};
    auto blocks = daemon::desired_blocks(lft, Lid(64));
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0].ports[1] == 3);
    CHECK(blocks[0].ports[2] == 4);
    CHECK(blocks[0].ports[3] == mad::lft_no_route);
    CHECK(blocks[1].ports[0] == mad::lft_no_route);
}

TEST_CASE("a fresh switch gets every block and LinearFDBTop; a second sweep sends nothing", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});

    auto first = program(loop, p, s);
    CHECK(first.complete());
    CHECK(first.blocks_sent == 3);
    CHECK(first.blocks_read == 0);
    CHECK(first.switch_info_sent == 1);
    CHECK(sw.info.linear_fdb_top == 130);
    CHECK(sw.info.life_time_value == 18);
    CHECK(sw.blocks.at(2).ports[130 - 128] == 1 + 130 % 4);

    s.found.switch_info[s.sw] = sw.info; // what the next discovery reads
    auto second = program(loop, p, s);
    CHECK(second.complete());
    CHECK(second.blocks_sent == 0);
    CHECK(second.switch_info_sent == 0);
    CHECK(sw.lft_sets == 3);
}

TEST_CASE("a restarted daemon reads a programmed switch and sends only the blocks that differ", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    {
        daemon::LftProgrammer before(daemon::LftSettings{18, 3, 16});
        REQUIRE(program(loop, before, s).complete());
    }
    // Someone changed one entry of block 1 while we were away.
    sw.blocks[1].ports[5] = 4 == sw.blocks[1].ports[5] ? 3 : 4;
    s.found.switch_info[s.sw] = sw.info;
    daemon::LftProgrammer after(daemon::LftSettings{18, 3, 16});
    auto r = program(loop, after, s);
    CHECK(r.complete());
    CHECK(r.blocks_read == 3);
    CHECK(r.blocks_sent == 1);
    CHECK(r.switch_info_sent == 0);
    CHECK(sw.blocks.at(1).ports[5] == 1 + (64 + 5) % 4);
}

TEST_CASE("a rejected LFT Set leaves its block dirty and is retried; persistent failure is not up", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };

    SECTION("one failure: retried in the next round")
    {
        sw.fail_sets = {1};
        daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});
        auto r = program(loop, p, s);
        CHECK(r.complete());
        CHECK(r.blocks_sent == 4);
        CHECK(r.blocks_dirty == 0);
    }
    SECTION("block 2 fails every round: dirty, not complete, and sent again next sweep")
    {
        sw.fail_sets = {2, 2, 2};
        daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});
        auto r = program(loop, p, s);
        CHECK_FALSE(r.complete());
        CHECK(r.blocks_dirty == 1);
        CHECK(r.blocks_sent == 3 + 2);
        CHECK_FALSE(r.failures.empty());
        s.found.switch_info[s.sw] = sw.info;
        auto again = program(loop, p, s);
        CHECK(again.complete());
        CHECK(again.blocks_sent == 1);
    }
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
    CHECK(daemon::vl_count(4) == 8);
    CHECK(daemon::vl_count(daemon::operational_vls_code(2)) == 2);
}

TEST_CASE("desired PortInfo: LID and subnet fields on CA ports, link fields from both ends, commands cleared", "[port]")
{
    OneSwitch s(0);
    const topology::PortRef ca{topology::NodeId{0}, PortNum(1)};
    const topology::PortRef swp{s.sw, PortNum(1)};
    mad::PortInfo ca_pi;
    ca_pi.port_state = mad::PortState::init;
    ca_pi.port_phys_state = 5;
    ca_pi.mtu_cap = 4;
    ca_pi.vl_cap = 4;
    mad::PortInfo sw_pi = ca_pi;
    sw_pi.mtu_cap = 3;
    sw_pi.vl_cap = 3;
    s.found.port_info[ca] = ca_pi;
    s.found.port_info[swp] = sw_pi;
    lidassign::LidMap lids;
    lids.assign(ca, Lid(4), 2);
    daemon::PortSettings settings;
    settings.max_operational_vls = 4;

    auto d = daemon::desired_port_info(s.found, lids, Lid(4), settings, ca, ca_pi);
    CHECK(d.lid == Lid(4));
    CHECK(d.lmc == 2);
    CHECK(d.master_sm_lid == Lid(4));
    CHECK(d.gid_prefix == settings.subnet_prefix);
    CHECK(d.subnet_timeout == settings.subnet_timeout);
    CHECK(d.neighbor_mtu == 3);
    CHECK(d.operational_vls == 3);
    CHECK(d.port_state == mad::PortState::no_change);
    CHECK(d.port_phys_state == 0);

    auto e = daemon::desired_port_info(s.found, lids, Lid(4), settings, swp, sw_pi);
    CHECK(e.lid == Lid()); // switch external port: no LID
    CHECK(e.operational_vls == 3);

    settings.max_operational_vls = 1;
    auto capped = daemon::desired_port_info(s.found, lids, Lid(4), settings, ca, ca_pi);
    CHECK(capped.operational_vls == 1);
}

TEST_CASE("the LID store round-trips, keeps absent ports' LIDs and replaces the file atomically", "[lidstore]")
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("ibsmd-lidstore-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    daemon::LidStore store(dir);
    CHECK(store.load().empty()); // no file yet

    OneSwitch s(0);
    auto& f = s.found.fabric;
    f.set_port_guid({topology::NodeId{0}, PortNum(1)}, Guid(0x101));
    auto assigned = lidassign::assign_base_lids(f, {}, {});
    lidassign::GuidLidMap previous{{Guid(0x999), Lid(77)}};
    store.save(f, assigned.lids, previous);

    auto loaded = store.load();
    CHECK(loaded.size() == 3);
    CHECK(loaded.at(Guid(0x101)) == assigned.lids.lids_of({topology::NodeId{0}, PortNum(1)})->base);
    CHECK(loaded.at(Guid(0x999)) == Lid(77));
    for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().filename() == "guid2lid");

    std::ofstream(dir / "guid2lid") << "0x0000000000000101 zebra 0x0001\n";
    CHECK_THROWS_WITH(store.load(), Catch::Contains("guid2lid:1"));
    fs::remove_all(dir);
}

TEST_CASE("the SMInfo responder answers Get(SMInfo) with our GUID, priority and state", "[sminfo]")
{
    boost::asio::io_context io;
    test::FakePort port(true);
    mad::Transport transport(io, port, {});
    daemon::SmInfoResponder responder(transport, Guid(0x2c90300000001), 5);
    responder.install();
    responder.set_state(mad::SmState::master);
    transport.start();

    mad::RawReceive get;
    get.smp = mad::make_lid_request(mad::Method::get, Lid(1), mad::attr::sm_info, 0, 42);
    get.length = mad::mad_size;
    port.inject(get);
    mad::RawReceive trap;
    trap.smp = mad::make_lid_request(mad::Method::trap, Lid(1), mad::attr::notice, 0, 43);
    trap.length = mad::mad_size;
    port.inject(trap);
    boost::asio::steady_timer t(io, std::chrono::milliseconds(50));
    t.async_wait([&](auto) { transport.stop(); });
    io.run();

    REQUIRE(port.responses.size() == 1);
    CHECK(port.responses[0].tid() == 42);
    auto si = mad::decode_sm_info(port.responses[0].data());
    REQUIRE(si);
    CHECK(si->guid == Guid(0x2c90300000001));
    CHECK(si->priority == 5);
    CHECK(si->sm_state == mad::SmState::master);
    CHECK(responder.counters().sm_info_answered == 1);
    CHECK(responder.counters().traps == 1);
}

TEST_CASE("a Get or Set of an attribute the SM does not serve is answered 'unsupported attribute'", "[sminfo]")
{
    boost::asio::io_context io;
    test::FakePort port(true);
    mad::Transport transport(io, port, {});
    daemon::SmInfoResponder responder(transport, Guid(0x2c90300000001), 5);
    responder.install();
    transport.start();

    auto inject = [&](mad::Method m, std::uint16_t attr, std::uint64_t tid, bool dr) {
        mad::RawReceive r;
        r.smp = dr ? mad::make_dr_request(m, DrPath{}.extended(PortNum(1)), attr, 0, tid)
                   : mad::make_lid_request(m, Lid(1), attr, 0, tid);
        r.length = mad::mad_size;
        port.inject(r);
    };
    inject(mad::Method::get, 0xff00, 1, false);         // vendor attribute
    inject(mad::Method::set, mad::attr::node_info, 2, true); // NodeInfo is the SMA's, not the SM's
    inject(mad::Method::get, 0xff00, 3, false);         // the same kind again: answered, not logged
    inject(static_cast<mad::Method>(0x03), 0xff00, 4, false); // Send: not a Get/Set, no answer
    inject(mad::Method::set, mad::attr::sm_info, 5, false);   // SMInfo Set: the election's, refused (no handler)
    boost::asio::steady_timer t(io, std::chrono::milliseconds(50));
    t.async_wait([&](auto) { transport.stop(); });
    io.run();

    REQUIRE(port.responses.size() == 4);
    // The SMInfo Set is answered with our SMInfo and "invalid value" (no
    // master/standby handler accepted it), not with "unsupported".
    CHECK(port.responses[3].tid() == 5);
    CHECK(port.responses[3].attr_id() == mad::attr::sm_info);
    CHECK(port.responses[3].status() == 0x001c);
    CHECK(responder.counters().sets_refused == 1);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(port.responses[i].method() == static_cast<std::uint8_t>(mad::Method::get_resp));
        CHECK(port.responses[i].status() == mad::mad_status::method_attribute_unsupported);
    }
    CHECK(port.responses[0].tid() == 1);
    CHECK(port.responses[1].tid() == 2);
    CHECK(port.responses[1].direction_inbound());
    CHECK(port.responses[2].tid() == 3);
    CHECK(responder.counters().unsupported_answered == 3);
    CHECK(responder.counters().ignored == 4);
}

TEST_CASE("command line: modes exclude each other, bring-up flags become overrides", "[options]")
{
    auto o = daemon::parse_options({"--once", "--state-dir", "/tmp/x", "--engine", "sftree,minhop", "--lmc", "2",
                                    "--smp-window", "32"});
    CHECK(o.once);
    CHECK(o.overrides.state_dir == "/tmp/x");
    REQUIRE(o.overrides.engines);
    CHECK(o.overrides.engines->front() == "sftree,minhop");
    CHECK(o.lmc == 2u);
    CHECK(o.overrides.smp_window == 32u);
    CHECK(o.window == 32u);
    CHECK_THROWS_AS(daemon::parse_options({"--once", "--foreground"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--lmc", "8"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--discover-only", "--once"}), daemon::UsageError);
}

TEST_CASE("command line: --x=v and --x v, flags that do not apply to the mode are errors", "[options]")
{
    auto o = daemon::parse_options({"--engine=ftree", "--lmc=1", "--port-guid", "0x0002c90300001235"});
    REQUIRE(o.overrides.engines);
    CHECK(o.overrides.engines->front() == "ftree");
    CHECK(o.lmc == 1u);
    CHECK(o.overrides.port_guid == Guid(0x0002c90300001235ULL));
    CHECK(daemon::parse_options({"--help"}).help);
    CHECK(daemon::parse_options({"--version"}).help);
    // --port-guid selects the port: it overrides the file's sm.ca/sm.port.
    config::Config file;
    file.sm.ca = "mlx5_0";
    file.sm.port = PortNum(2);
    auto effective = config::apply_overrides(file, o.overrides);
    CHECK(effective.sm.port_guid == Guid(0x0002c90300001235ULL));
    CHECK_FALSE(effective.sm.ca);
    CHECK_FALSE(effective.sm.port);
    // Not for this mode, or contradicting each other:
    CHECK_THROWS_AS(daemon::parse_options({"--once", "--dump-dir", "/tmp"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--dump-dir", "/tmp"}), daemon::UsageError);
    CHECK_NOTHROW(daemon::parse_options({"--discover-only", "--dump-dir", "/tmp"}));
    CHECK_THROWS_AS(daemon::parse_options({"--discover-only", "--engine", "ftree"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--discover-only", "--config", "x.yaml"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--print-config", "--once"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--port-guid", "0x1", "--port", "1"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--port-guid", "zz"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--engine", "ftree,nosuch"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--log-level", "loud"}), daemon::UsageError);
    CHECK_THROWS_AS(daemon::parse_options({"--lmc", "1", "--lmc", "2"}), daemon::UsageError);
}

TEST_CASE("command line: --config none reads no file, a named file is read as given", "[options]")
{
    auto none = daemon::parse_options({"--config", "none"});
    CHECK(none.no_config);
    CHECK_FALSE(none.config_file);
    auto named = daemon::parse_options({"--config=/some/where.yaml"});
    CHECK_FALSE(named.no_config);
    CHECK(named.config_file == "/some/where.yaml");
}
