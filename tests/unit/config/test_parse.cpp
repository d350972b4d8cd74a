#include "config/config.h"

#include "test_helpers.h"

using namespace ibsm;
using namespace ibsm::config;
using namespace config_test;
using namespace std::chrono_literals;

TEST_CASE("defaults bring up a fat-tree with minhop fallback", "[config][parse]")
{
    const Config c;
    CHECK(c.routing.engines == std::vector<std::string>{"ftree", "dfsssp-or-nue", "updn"});
    CHECK(effective_engine_chain(c.routing) == std::vector<std::string>{"ftree", "dfsssp-or-nue", "updn", "minhop"});
    CHECK_FALSE(c.routing.no_fallback);
    CHECK(c.routing.lmc == 0);
    CHECK(c.routing.root_guids.empty());
    CHECK_FALSE(c.routing.root_guid_file);
    CHECK(c.routing.max_vls == 8);
    CHECK(c.routing.switch_sl2vl == SwitchSl2Vl::automatic);
    CHECK(c.routing.vl_tables == SwitchSl2Vl::automatic);
    CHECK(c.smp.window == 16);
    CHECK(c.smp.timeout == 100ms);
    CHECK(c.smp.retries == 3);
    CHECK(c.sm.priority == 1);
    CHECK_FALSE(c.sm.port_guid);
    CHECK_FALSE(c.sm.ca);
    CHECK_FALSE(c.sm.port);
    CHECK(c.sm.subnet_prefix == 0xfe80000000000000ULL);
    CHECK(c.sm.subnet_timeout == 18);
    CHECK(c.sm.packet_life_time == 18);
    CHECK(c.state_dir == "/var/lib/ibsmd");
    CHECK(c.log.level == LogLevel::info);
    CHECK(c.log.file == "/var/log/ibsmd/ibsmd.log");
    CHECK(c.log.max_size_mb == 256);
    CHECK(c.sweep.interval == 10s);
    CHECK(c.sweep.retry_interval == 10s);
    CHECK(c.sweep.debounce == 20ms);
    CHECK(c.sweep.debounce_max == 1000ms);
    CHECK(c.dump.lfts);
    CHECK(c.dump.topology);
    CHECK(c.dump.summary);
    CHECK(c.dump.sl);
    CHECK_FALSE(c.dump.report);
}

TEST_CASE("empty text, comments only and empty sections mean defaults", "[config][parse]")
{
    CHECK(parse_config("", "t.yaml") == Config{});
    CHECK(parse_config("\n\n", "t.yaml") == Config{});
    CHECK(parse_config("# nothing\n", "t.yaml") == Config{});
    CHECK(parse_config("routing:\nsmp:\nsm:\nlog:\nsweep:\ndump:\n", "t.yaml") == Config{});
    CHECK(parse_config("routing: {}\n", "t.yaml") == Config{});
    CHECK(load_config_file(fixture("empty.yaml")) == Config{});
    CHECK(load_config_file(fixture("only_comments.yaml")) == Config{});
}

TEST_CASE("every key is parsed", "[config][parse]")
{
    const Config c = load_config_file(fixture("full.yaml"));
    CHECK(c.routing.engines == std::vector<std::string>{"sftree", "updn"});
    CHECK(c.routing.no_fallback);
    CHECK(effective_engine_chain(c.routing) == std::vector<std::string>{"sftree", "updn"});
    CHECK(c.routing.lmc == 2);
    CHECK(c.routing.root_guids == std::vector<Guid>{Guid(0x0002c90200000001), Guid(0x0002c90200000002), Guid(1234)});
    CHECK_FALSE(c.routing.root_guid_file);
    CHECK(c.routing.max_vls == 4);
    CHECK(c.routing.switch_sl2vl == SwitchSl2Vl::always);
    CHECK(c.routing.vl_tables == SwitchSl2Vl::always);
    CHECK(c.smp.window == 64);
    CHECK(c.smp.timeout == 250ms);
    CHECK(c.smp.retries == 5);
    CHECK(c.sm.priority == 15);
    CHECK_FALSE(c.sm.port_guid);
    CHECK(c.sm.ca == std::optional<std::string>("mlx5_1"));
    CHECK(c.sm.port == std::optional<PortNum>(PortNum(2)));
    CHECK(c.sm.subnet_prefix == 0xfe80000000000001ULL);
    CHECK(c.sm.subnet_timeout == 20);
    CHECK(c.sm.packet_life_time == 19);
    CHECK(c.state_dir == "/tmp/ibsmd state");
    CHECK(c.log.level == LogLevel::debug);
    CHECK(c.log.file == "/tmp/ibsmd.log");
    CHECK(c.log.max_size_mb == 0);
    CHECK(c.sweep.interval == 0s);
    CHECK(c.sweep.retry_interval == 30s);
    CHECK(c.sweep.debounce == 200ms);
    CHECK(c.sweep.debounce_max == 5000ms);
    CHECK_FALSE(c.dump.lfts);
    CHECK_FALSE(c.dump.topology);
    CHECK_FALSE(c.dump.summary);
    CHECK_FALSE(c.dump.sl);
    CHECK_FALSE(c.perf.enabled);
    CHECK(c.perf.interval == 300s);
    CHECK(c.perf.window == 8);
}

TEST_CASE("dump files are switched off one at a time", "[config][parse]")
{
    const Config c = parse_config("dump:\n  topology: false\n  sl: False\n", "t.yaml");
    CHECK(c.dump.lfts);
    CHECK_FALSE(c.dump.topology);
    CHECK(c.dump.summary);
    CHECK_FALSE(c.dump.sl);
    CHECK_FALSE(c.dump.report);
    CHECK(c.sweep == SweepConfig{});
}

TEST_CASE("the route-quality report is switched on with dump.report", "[config][parse]")
{
    const Config c = parse_config("dump:\n  report: true\n", "t.yaml");
    CHECK(c.dump.report);
    CHECK(c.dump.lfts);
    CHECK_THROWS_WITH(parse_config("dump:\n  report: yes please\n", "t.yaml"),
                      Catch::Contains("t.yaml:2: key 'dump.report'"));
}

TEST_CASE("the debounce window may equal its cap", "[config][parse]")
{
    const Config c = parse_config("sweep: {debounce_ms: 700, debounce_max_ms: 700}\n", "t.yaml");
    CHECK(c.sweep.debounce == 700ms);
    CHECK(c.sweep.debounce_max == 700ms);
    // No debouncing at all: both 0.
    const Config z = parse_config("sweep: {debounce_max_ms: 0, debounce_ms: 0}\n", "t.yaml");
    CHECK(z.sweep.debounce == 0ms);
    CHECK(z.sweep.debounce_max == 0ms);
    // Raising the window alone up to the default cap is fine.
    CHECK(parse_config("sweep:\n  debounce_ms: 1000\n", "t.yaml").sweep.debounce == 1000ms);
}

TEST_CASE("port by GUID, root GUID file, and the remaining forms", "[config][parse]")
{
    const Config c = parse_config("sm:\n"
                                  "  port_guid: \"0x0002c90300001235\"\n"
                                  "  subnet_prefix: 18338657682652659712\n" // 0xfe80000000000000 in decimal
                                  "routing:\n"
                                  "  engines: dfsssp\n"
                                  "  root_guid_file: /etc/ibsmd/roots\n"
                                  "  cn_guid_file: /etc/opensm/cn-guids\n"
                                  "  io_guid_file: /etc/opensm/io-guids\n"
                                  "  guid_routing_order_file: /etc/opensm/order\n"
                                  "  max_reverse_hops: 2\n"
                                  "  lmc: 0x7\n"
                                  "  no_fallback: FALSE\n"
                                  "node_name_map: /etc/infiniband-diags/ibnetdiscover.node-name-map\n",
                                  "t.yaml");
    CHECK(c.sm.port_guid == std::optional<Guid>(Guid(0x0002c90300001235)));
    CHECK(c.sm.subnet_prefix == 0xfe80000000000000ULL);
    CHECK(c.routing.engines == std::vector<std::string>{"dfsssp"});
    CHECK(effective_engine_chain(c.routing) == std::vector<std::string>{"dfsssp", "minhop"});
    CHECK(c.routing.root_guid_file == std::optional<std::string>("/etc/ibsmd/roots"));
    CHECK(c.routing.cn_guid_file == std::optional<std::string>("/etc/opensm/cn-guids"));
    CHECK(c.routing.io_guid_file == std::optional<std::string>("/etc/opensm/io-guids"));
    CHECK(c.routing.guid_routing_order_file == std::optional<std::string>("/etc/opensm/order"));
    CHECK(c.routing.max_reverse_hops == 2);
    CHECK(c.node_name_map == std::optional<std::string>("/etc/infiniband-diags/ibnetdiscover.node-name-map"));
    CHECK(c.routing.lmc == 7);
    CHECK_FALSE(c.routing.no_fallback);
}

TEST_CASE("the fallback is not appended twice", "[config][parse]")
{
    const Config c = parse_config("routing:\n  engines: [minhop, ftree]\n", "t.yaml");
    CHECK(effective_engine_chain(c.routing) == std::vector<std::string>{"minhop", "ftree"});
    const Config d = parse_config("routing:\n  engines: 'updn ,  sssp'\n", "t.yaml");
    CHECK(d.routing.engines == std::vector<std::string>{"updn", "sssp"});
}

TEST_CASE("range limits are inclusive", "[config][parse]")
{
    const Config lo = parse_config("routing: {lmc: 0, max_vls: 1}\n"
                                   "smp: {window: 1, timeout_ms: 1, retries: 0}\n"
                                   "sm: {priority: 0, port: 1, subnet_timeout: 0, packet_life_time: 0, polling_interval_s: 1, "
                                   "polling_retries: 0, sm_key: 0}\n"
                                   "sweep: {interval_s: 0, retry_interval_s: 1, debounce_ms: 0, debounce_max_ms: 0}\n",
                                   "t.yaml");
    CHECK(lo.routing.max_vls == 1);
    CHECK(lo.smp.window == 1);
    CHECK(lo.sm.port == std::optional<PortNum>(PortNum(1)));
    CHECK(lo.sm.polling_interval == 1s);
    CHECK(lo.sm.polling_retries == 0);
    CHECK(lo.sm.sm_key == 0);
    CHECK(lo.sweep.interval == 0s);
    CHECK(lo.sweep.retry_interval == 1s);
    CHECK(lo.sweep.debounce == 0ms);
    CHECK(lo.sweep.debounce_max == 0ms);
    const Config hi = parse_config("routing: {lmc: 7, max_vls: 15}\n"
                                   "smp: {window: 4096, timeout_ms: 60000, retries: 100}\n"
                                   "sm: {priority: 15, port: 254, subnet_timeout: 31, packet_life_time: 31, "
                                   "polling_interval_s: 3600, polling_retries: 100, sm_key: 0xffffffffffffffff}\n"
                                   "sweep: {interval_s: 86400, retry_interval_s: 86400, debounce_ms: 10000, "
                                   "debounce_max_ms: 60000}\n",
                                   "t.yaml");
    CHECK(hi.routing.lmc == 7);
    CHECK(hi.routing.max_vls == 15);
    CHECK(hi.smp.window == 4096);
    CHECK(hi.smp.timeout == 60000ms);
    CHECK(hi.smp.retries == 100);
    CHECK(hi.sm.priority == 15);
    CHECK(hi.sm.port == std::optional<PortNum>(PortNum(254)));
    CHECK(hi.sm.subnet_timeout == 31);
    CHECK(hi.sm.packet_life_time == 31);
    CHECK(hi.sm.polling_interval == 3600s);
    CHECK(hi.sm.polling_retries == 100);
    CHECK(hi.sm.sm_key == 0xffffffffffffffffULL);
    CHECK(hi.sweep.interval == 86400s);
    CHECK(hi.sweep.retry_interval == 86400s);
    CHECK(hi.sweep.debounce == 10000ms);
    CHECK(hi.sweep.debounce_max == 60000ms);
}

TEST_CASE("every log level name", "[config][parse]")
{
    const std::vector<std::pair<std::string, LogLevel>> levels{
        {"trace", LogLevel::trace}, {"debug", LogLevel::debug},       {"info", LogLevel::info}, {"warn", LogLevel::warn},
        {"error", LogLevel::error}, {"critical", LogLevel::critical}, {"off", LogLevel::off},
    };
    for (const auto& [name, level] : levels) {
        CHECK(parse_config("log:\n  level: " + name + "\n", "t.yaml").log.level == level);
        CHECK(to_string(level) == name);
    }
    CHECK(known_log_levels_text() == "trace|debug|info|warn|error|critical|off");
}

TEST_CASE("load_config_file reports a file it cannot read", "[config][parse]")
{
    const std::string missing = fixture("no-such-file.yaml");
    CHECK(error_of([&] { (void)load_config_file(missing); }) == missing + ": cannot open: No such file or directory");
    const std::string dir = fixture("");
    CHECK(error_of([&] { (void)load_config_file(dir); }) == dir + ": cannot read: is a directory");
}

TEST_CASE("a UTF-8 byte order mark and non-ASCII text are fine", "[config][parse]")
{
    const Config c = parse_config("\xEF\xBB\xBFlog:\n  file: \"/var/log/\xC3\xA9t\xC3\xA9.log\"\nsm:\n  ca: 'mlx5_0'\n", "t.yaml");
    CHECK(c.log.file == "/var/log/\xC3\xA9t\xC3\xA9.log");
    CHECK(c.sm.ca == std::optional<std::string>("mlx5_0"));
}
