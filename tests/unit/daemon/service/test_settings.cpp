// The configuration as each wing's settings (daemon/service/settings.h):
// smp.window as jobs in flight, routing.max_vls as the OperationalVLs code,
// routing.root_guid_file read (or refused naming the key), partitions as
// definitions, the SM's identity and timers, the transport's options, the
// control socket's path, the file with the command line on top.
#include "daemon/service/settings.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name)
{
    auto dir = fs::temp_directory_path() / ("ibsmd-test-settings-" + std::to_string(getpid()));
    fs::create_directories(dir);
    auto p = dir / name;
    fs::remove_all(p);
    return p;
}

} // namespace

TEST_CASE("settings: smp.window sets the jobs in flight, never below the floors", "[settings]")
{
    config::Config cfg;
    cfg.smp.window = 8; // 4x is 32, 2x is 16: the floors hold
    auto small = daemon::bringup_settings(cfg);
    CHECK(small.ports.width == 64);
    CHECK(small.lfts.width == 64);
    CHECK(small.vls.width == 64);
    CHECK(small.pkeys.width == 64);
    CHECK(daemon::scheduler_settings(cfg).light_width == 16);

    cfg.smp.window = 100;
    auto large = daemon::bringup_settings(cfg);
    CHECK(large.ports.width == 400);
    CHECK(large.lfts.width == 400);
    CHECK(large.vls.width == 400);
    CHECK(large.pkeys.width == 400);
    CHECK(daemon::scheduler_settings(cfg).light_width == 200);
    CHECK(daemon::mcast_settings(cfg, large.lfts.width).mft.width == 400);
}

TEST_CASE("settings: routing.max_vls as the route's VLs and PortInfo's OperationalVLs code", "[settings]")
{
    config::Config cfg;
    // IBA 14.2.5.6, PortInfo.OperationalVLs: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14.
    const std::pair<unsigned, std::uint8_t> cases[] = {{1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {8, 4}, {15, 5}};
    for (auto [vls, code] : cases) {
        cfg.routing.max_vls = vls;
        auto s = daemon::bringup_settings(cfg);
        CHECK(s.route.max_vls == vls);
        CHECK(s.ports.max_operational_vls == code);
    }
}

TEST_CASE("settings: routing, LIDs, ports and the state directory from the configuration", "[settings]")
{
    config::Config cfg;
    cfg.routing.engines = {"dfsssp", "minhop"};
    cfg.routing.no_fallback = true;
    cfg.routing.lmc = 2;
    cfg.routing.switch_sl2vl = config::SwitchSl2Vl::always;
    cfg.sm.subnet_prefix = 0xfe80000000001234ULL;
    cfg.sm.subnet_timeout = 20;
    cfg.sm.packet_life_time = 0x3f; // LFT's LifeTimeValue has 5 bits
    cfg.state_dir = "/var/lib/elsewhere";
    auto s = daemon::bringup_settings(cfg);
    CHECK(s.chain.engines == cfg.routing.engines);
    CHECK(s.chain.no_fallback);
    CHECK(s.lid.lmc == 2);
    CHECK(s.vls.all_switch_pairs);
    CHECK(s.ports.subnet_prefix == 0xfe80000000001234ULL);
    CHECK(s.ports.subnet_timeout == 20);
    CHECK(s.lfts.life_time_value == 0x1f);
    CHECK(s.state_dir == fs::path("/var/lib/elsewhere"));
    // No partitions configured: OpenSM's Default=0x7fff, ipoib : ALL=full alone.
    REQUIRE(s.partitions);
    CHECK(s.partitions->size() == 1);
    CHECK_FALSE(daemon::bringup_settings(config::Config{}).vls.all_switch_pairs);
}

TEST_CASE("settings: routing.root_guid_file adds its GUIDs; unreadable, a ConfigError naming the key",
          "[settings]")
{
    config::Config cfg;
    cfg.routing.root_guids = {Guid(0x10)};
    const auto file = scratch("roots.txt");
    std::ofstream(file) << "0x20\n0x30\n";
    cfg.routing.root_guid_file = file.string();
    CHECK(daemon::bringup_settings(cfg).route.root_guids == std::vector<Guid>{Guid(0x10), Guid(0x20), Guid(0x30)});

    cfg.routing.root_guid_file = scratch("missing.txt").string();
    try {
        daemon::bringup_settings(cfg);
        FAIL("an unreadable root_guid_file must throw");
    } catch (const config::ConfigError& e) {
        const std::string what = e.what();
        CHECK(what.starts_with("routing.root_guid_file '" + *cfg.routing.root_guid_file + "': cannot read: "));
        CHECK(what.ends_with("(fix the path or the file's permissions)"));
    }
    fs::remove_all(file.parent_path());
}

TEST_CASE("settings: OpenSM's GUID files and node_name_map are read; a bad line names key, file and line",
          "[settings]")
{
    config::Config cfg;
    const auto cn = scratch("cn-guids"), io = scratch("io-guids"), order = scratch("order"), names = scratch("names");
    std::ofstream(cn) << "# compute nodes\n0x0002c90300000011 node11\n0x0002c90300000012\n";
    std::ofstream(io) << "0x0002c90300000021\n";
    std::ofstream(order) << "0x0002c90300000012\n0x0002c90300000011\n";
    std::ofstream(names) << "0x0002c90300000010 \"node-10\"\n";
    cfg.routing.cn_guid_file = cn.string();
    cfg.routing.io_guid_file = io.string();
    cfg.routing.guid_routing_order_file = order.string();
    cfg.node_name_map = names.string();
    cfg.routing.max_reverse_hops = 2;
    const auto s = daemon::bringup_settings(cfg);
    CHECK(s.route.max_reverse_hops == 2);
    CHECK(daemon::bringup_settings(config::Config{}).route.max_reverse_hops == 0);
    CHECK(s.route.compute_nodes == std::vector<Guid>{Guid(0x0002c90300000011), Guid(0x0002c90300000012)});
    CHECK(s.route.io_nodes == std::vector<Guid>{Guid(0x0002c90300000021)});
    CHECK(s.route.routing_order == std::vector<Guid>{Guid(0x0002c90300000012), Guid(0x0002c90300000011)});
    REQUIRE(s.node_names);
    REQUIRE(s.node_names->find(Guid(0x0002c90300000010)));
    CHECK(*s.node_names->find(Guid(0x0002c90300000010)) == "node-10");
    CHECK_FALSE(daemon::bringup_settings(config::Config{}).node_names);

    auto error_of = [&] {
        try {
            daemon::bringup_settings(cfg);
        } catch (const config::ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::ofstream(io) << "0x0002c90300000021\nstorage-1\n";
    CHECK(error_of() == "routing.io_guid_file: " + io.string() +
                            ":2: expected a GUID (0x... hex or decimal, not 0) at the start of the line, got 'storage-1'");
    std::ofstream(io) << "0x0002c90300000021\n";
    std::ofstream(names) << "\"node-10\" 0x0002c90300000010\n";
    CHECK(error_of() == "node_name_map: " + names.string() +
                            ":1: expected a GUID (0x... hex or decimal, not 0) at the start of the line, got "
                            "'\"node-10\" 0x0002c90300000010'");
    fs::remove(names);
    CHECK(error_of().starts_with("node_name_map '" + names.string() + "': cannot read: "));
    fs::remove_all(cn.parent_path());
}

TEST_CASE("settings: partitions become the bring-up's rules, with the default partition's as OpenSM", "[settings]")
{
    using partition::Membership;
    using partition::Who;
    config::Config cfg;
    auto b = daemon::bringup_settings(cfg);
    REQUIRE(b.partitions);
    // No partitions at all: Default=0x7fff,ipoib : ALL=full.
    REQUIRE(b.partitions->size() == 1);
    CHECK(b.partitions->at(0).ipoib);
    CHECK(b.partitions->at(0).members.at(0) == partition::MemberRule{Who::all, Guid(), Membership::full});
    CHECK(b.ports.enforce_partitions);
    CHECK(b.ports.enforce_in);
    CHECK(b.ports.enforce_out);
    CHECK(b.pkeys.peer_tables);

    cfg.partitions.push_back({"storage", 0x0002, true, {}, false, {{Who::port, Guid(0xa), Membership::full}}, {}, 3});
    cfg.part_enforce = config::PartEnforce::in;
    cfg.allow_both_pkeys = true;
    b = daemon::bringup_settings(cfg);
    // Configured: Default=0x7fff : ALL=limited, SELF=full, then the configured ones.
    REQUIRE(b.partitions->size() == 2);
    CHECK_FALSE(b.partitions->at(0).ipoib);
    CHECK(b.partitions->at(0).members.at(0) == partition::MemberRule{Who::all, Guid(), Membership::limited});
    CHECK(b.partitions->at(1).name == "storage");
    CHECK(b.allow_both_pkeys);
    CHECK(b.ports.enforce_in);
    CHECK_FALSE(b.ports.enforce_out);
    cfg.part_enforce = config::PartEnforce::off;
    b = daemon::bringup_settings(cfg);
    CHECK_FALSE(b.ports.enforce_in);
    CHECK_FALSE(b.ports.enforce_out);
    CHECK_FALSE(b.pkeys.peer_tables);
}

TEST_CASE("settings: partitions_file is read into the partitions, errors with its file and line", "[settings]")
{
    const auto file = scratch("partitions.conf");
    {
        std::ofstream out(file);
        out << "# site partitions\nStorage=0x0005, ipoib, mtu=5 : ALL_CAS=limi, 0x10=full ;\n";
    }
    auto rules = daemon::read_partitions_file(file.string());
    REQUIRE(rules.size() == 1);
    CHECK(rules[0].pkey == 0x0005);
    CHECK(rules[0].flags.mtu == 5);
    {
        std::ofstream out(file);
        out << "Storage=0x0005 : ALL_CAS ;\nBroken 0x10 ;\n";
    }
    try {
        daemon::read_partitions_file(file.string());
        FAIL("a partitions file that does not parse must throw");
    } catch (const config::ConfigError& e) {
        CHECK(std::string(e.what()) == file.string() +
                                           ":2: no partition definition here: a statement is 'Name[=PKey][,flag...] : "
                                           "members ;' and its ':' must be on its first line");
    }
    try {
        daemon::read_partitions_file(scratch("missing.conf").string());
        FAIL("a missing partitions file must throw");
    } catch (const config::ConfigError& e) {
        CHECK(std::string(e.what()).starts_with("partitions_file '" + scratch("missing.conf").string() + "': cannot read: "));
    }
    fs::remove_all(file.parent_path());
}

TEST_CASE("settings: the election's identity and polling, the scheduler's timers, multicast's", "[settings]")
{
    config::Config cfg;
    cfg.sm.priority = 0x1d; // 4 bits in SMInfo
    cfg.sm.sm_key = 0x1234;
    cfg.sm.polling_interval = std::chrono::seconds(3);
    cfg.sm.polling_retries = 7;
    cfg.sm.packet_life_time = 0x7f; // MCMemberRecord's PacketLifeTime has 6 bits
    cfg.sweep.debounce = std::chrono::milliseconds(30);
    cfg.sweep.debounce_max = std::chrono::milliseconds(3000);
    cfg.sweep.interval = std::chrono::seconds(0);
    cfg.sweep.retry_interval = std::chrono::seconds(5);

    auto e = daemon::election_settings(cfg, Guid(0x42));
    CHECK(e.self.priority == 0xd);
    CHECK(e.self.guid == Guid(0x42));
    CHECK(e.self.sm_key == 0x1234);
    CHECK(e.polling_interval == std::chrono::seconds(3));
    CHECK(e.polling_retries == 7);

    auto s = daemon::scheduler_settings(cfg);
    CHECK(s.debounce == std::chrono::milliseconds(30));
    CHECK(s.debounce_max == std::chrono::milliseconds(3000));
    CHECK(s.light_interval == std::chrono::seconds(0));
    CHECK(s.retry_interval == std::chrono::seconds(5));

    auto m = daemon::mcast_settings(cfg, 96);
    CHECK(m.subnet_prefix == cfg.sm.subnet_prefix);
    CHECK(daemon::sa_settings(cfg).sm_key == 0x1234);
    CHECK(m.packet_life_time == 0x3f);
    CHECK(m.mft.width == 96);
}

TEST_CASE("settings: the transport's window, timeout and retries; SMInfo's 4-bit priority", "[settings]")
{
    config::Config cfg;
    cfg.smp.window = 48;
    cfg.smp.timeout = std::chrono::milliseconds(250);
    cfg.smp.retries = 5;
    cfg.perf.window = 9;
    cfg.sm.priority = 0x1d;
    const auto t = daemon::transport_options(cfg);
    CHECK(t.window == 48);
    CHECK(t.timeout == std::chrono::milliseconds(250));
    CHECK(t.retries == 5);
    CHECK(t.perf_window == 9);
    // What the configuration does not say keeps the transport's default.
    CHECK(t.drop_retries == mad::TransportOptions{}.drop_retries);
    CHECK(daemon::sm_priority(cfg) == 0xd);
    CHECK(daemon::election_settings(cfg, Guid(1)).self.priority == daemon::sm_priority(cfg));
}

TEST_CASE("settings: the control socket follows the state directory, made absolute, outside systemd",
          "[settings][control]")
{
    config::Config cfg;
    cfg.state_dir = "/var/lib/ibsmd-a";
    CHECK(daemon::control_socket(cfg, nullptr) == "/var/lib/ibsmd-a/control.sock");
    CHECK(daemon::control_socket(cfg, "/run/ibsmd") == "/run/ibsmd/control.sock");
    cfg.state_dir = "drill/./b";
    CHECK(daemon::control_socket(cfg, nullptr) == (fs::current_path() / "drill/b/control.sock").string());
    cfg.control.socket = "/srv/ibsmd.sock";
    CHECK(daemon::control_socket(cfg, "/run/ibsmd") == "/srv/ibsmd.sock");
}

TEST_CASE("settings: the effective configuration is the file with the command line on top", "[settings]")
{
    const auto file = scratch("ibsmd.yaml");
    std::ofstream(file) << "routing:\n  engines: [minhop]\n  lmc: 1\nsm:\n  ca: mlx5_0\n  port: 2\n";
    auto from_file = daemon::effective_config(daemon::parse_options({"--config", file.string()}));
    CHECK(from_file.routing.engines == std::vector<std::string>{"minhop"});
    CHECK(from_file.routing.lmc == 1);
    CHECK(daemon::sm_port(from_file) == std::pair<std::string, int>("mlx5_0", 2));

    auto flags = daemon::effective_config(
        daemon::parse_options({"--config", file.string(), "--engine", "updn", "--lmc", "3", "--port", "1"}));
    CHECK(flags.routing.engines == std::vector<std::string>{"updn"});
    CHECK(flags.routing.lmc == 3);
    CHECK(daemon::sm_port(flags) == std::pair<std::string, int>("mlx5_0", 1));

    CHECK(daemon::effective_config(daemon::parse_options({"--config", "none"})) == config::Config{});
    CHECK(daemon::sm_port(config::Config{}) == std::pair<std::string, int>("", 0));
    CHECK_THROWS_AS(daemon::effective_config(daemon::parse_options({"--config", scratch("nope.yaml").string()})),
                    config::ConfigError);
    fs::remove_all(file.parent_path());
}

TEST_CASE("health: the configuration's section becomes the policy's rules", "[settings][health]")
{
    auto cfg = config::parse_config("health:\n"
                                    "  xmit_discards: {per_interval: 7, action: isolate}\n"
                                    "  flapping: {downs: 3, window_s: 20, action: isolate}\n"
                                    "  unresponsive: {timeouts: 1, sweeps: 2, action: off}\n"
                                    "  downshift: isolate\n",
                                    "t.yaml");
    const auto p = daemon::health_policy(cfg);
    CHECK(p.thresholds[health::index(health::Counter::xmit_discards)] ==
          health::Threshold{7, health::Action::isolate});
    CHECK(p.thresholds[health::index(health::Counter::symbol_errors)] == health::Threshold{10, health::Action::report});
    CHECK(p.flap_downs == 3);
    CHECK(p.flap_window_s == 20);
    CHECK(p.flap_action == health::Action::isolate);
    CHECK(p.unresponsive_timeouts == 1);
    CHECK(p.unresponsive_sweeps == 2);
    CHECK(p.unresponsive_action == health::Action::off);
    CHECK(p.downshift_action == health::Action::isolate);
    CHECK_FALSE(p.disable_port);
}

TEST_CASE("health: the unhealthy-node conditions, the budget and dry_run become the policy's", "[settings][health]")
{
    const auto defaults = daemon::health_policy(config::Config{});
    CHECK(defaults.reboot == health::CountRule{10, 900, health::Action::report});
    CHECK(defaults.noisy == health::CountRule{250, 60, health::Action::report});
    CHECK(defaults.set_errors == health::CountRule{5, 600, health::Action::off});
    CHECK(defaults.illegal == health::CountRule{1, 600, health::Action::report});
    CHECK(defaults.isolation_budget == Approx(0.2));
    CHECK_FALSE(defaults.dry_run);
    auto cfg = config::parse_config("health:\n"
                                    "  reboot: {count: 2, window_s: 30, action: no_discover}\n"
                                    "  noisy: {traps: 9, action: isolate}\n"
                                    "  isolation_budget_percent: 50\n"
                                    "  dry_run: true\n",
                                    "t.yaml");
    const auto p = daemon::health_policy(cfg);
    CHECK(p.reboot == health::CountRule{2, 30, health::Action::no_discover});
    CHECK(p.noisy == health::CountRule{9, 60, health::Action::isolate});
    CHECK(p.isolation_budget == Approx(0.5));
    CHECK(p.dry_run);
}
