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
    CHECK_FALSE(s.partitions); // added by the caller, with the SM's port GUID
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

TEST_CASE("settings: partitions become the partition model's definitions", "[settings]")
{
    config::Config cfg;
    cfg.partitions.push_back({"storage", 0x0002, true,
                              {{Guid(0xa), config::Membership::full}, {Guid(0xb), config::Membership::limited}}});
    cfg.partitions.push_back({"mgmt", 0x0003, false, {}});
    auto defs = daemon::partition_definitions(cfg);
    REQUIRE(defs.size() == 2);
    CHECK(defs[0].name == "storage");
    CHECK(defs[0].number == 0x0002);
    CHECK(defs[0].ipoib);
    CHECK(defs[0].members == std::vector<std::pair<Guid, bool>>{{Guid(0xa), true}, {Guid(0xb), false}});
    CHECK(defs[1].name == "mgmt");
    CHECK(defs[1].number == 0x0003);
    CHECK_FALSE(defs[1].ipoib);
    CHECK(defs[1].members.empty());
    CHECK(daemon::partition_definitions(config::Config{}).empty());

    daemon::BringupSettings bringup;
    auto partitions = daemon::add_partitions(bringup, cfg, Guid(0x5));
    CHECK(bringup.partitions == partitions);
    CHECK(bringup.ports.enforce_partitions);
    CHECK(partitions->definitions().size() == 3); // the default partition first
    // The SM's port is a full member of every partition; others as configured.
    CHECK(partitions->keys_of(Guid(0x5)) == std::vector<std::uint16_t>{0xffff, 0x8002, 0x8003});
    CHECK(partitions->keys_of(Guid(0xb)) == std::vector<std::uint16_t>{0xffff, 0x0002});
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
