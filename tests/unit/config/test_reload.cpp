#include "config/reload.h"

#include "test_helpers.h"

#include <algorithm>

using namespace ibsm;
using namespace ibsm::config;
using namespace std::chrono_literals;

TEST_CASE("an unchanged config reloads", "[config][reload]")
{
    std::vector<std::string> why;
    CHECK(reload_compatible(Config{}, Config{}, &why));
    CHECK(why.empty());
}

TEST_CASE("routing and log level changes reload", "[config][reload]")
{
    Config next;
    next.routing.engines = {"sftree", "updn"};
    next.routing.no_fallback = true;
    next.routing.lmc = 3;
    next.routing.root_guids = {Guid(7)};
    next.routing.root_guid_file = "/etc/roots";
    next.routing.cn_guid_file = "/etc/opensm/cn-guids";
    next.routing.io_guid_file = "/etc/opensm/io-guids";
    next.routing.guid_routing_order_file = "/etc/opensm/order";
    next.node_name_map = "/etc/infiniband-diags/ibnetdiscover.node-name-map";
    next.routing.max_vls = 2;
    next.log.level = LogLevel::debug;
    std::vector<std::string> why;
    CHECK(reload_compatible(Config{}, next, &why));
    CHECK(why.empty());
}

TEST_CASE("sweep and dump changes reload", "[config][reload]")
{
    Config next;
    next.sweep.interval = 0s;
    next.sweep.retry_interval = 60s;
    next.sweep.debounce = 5ms;
    next.sweep.debounce_max = 20ms;
    next.dump.lfts = false;
    next.dump.topology = false;
    next.dump.summary = false;
    next.dump.sl = false;
    std::vector<std::string> why;
    CHECK(reload_compatible(Config{}, next, &why));
    CHECK(why.empty());
    // Mixed with a restart-only change, only that one is named.
    next.smp.window = 4;
    CHECK_FALSE(reload_compatible(Config{}, next, &why));
    CHECK(why == std::vector<std::string>{
                     "smp.window: 16 -> 4 needs a restart (only routing.*, sweep.*, dump.*, perf.*, metrics.port_series, health.*, qos, security.*, log.level, node_name_map, sm.priority and "
                     "sm.polling_* reload)"});
}

TEST_CASE("port selection and state dir need a restart, naming the key", "[config][reload]")
{
    Config running;
    running.sm.ca = "mlx5_0";
    Config next = running;
    next.sm.ca = "mlx5_1";
    next.state_dir = "/tmp/other";
    next.routing.lmc = 1; // reloadable, not reported
    std::vector<std::string> why;
    CHECK_FALSE(reload_compatible(running, next, &why));
    CHECK(why == std::vector<std::string>{
                     "sm.ca: 'mlx5_0' -> 'mlx5_1' needs a restart (only routing.*, sweep.*, dump.*, perf.*, metrics.port_series, health.*, qos, security.*, log.level, node_name_map, "
                     "sm.priority and sm.polling_* reload)",
                     "state_dir: '/var/lib/ibsmd' -> '/tmp/other' needs a restart (only routing.*, sweep.*, dump.*, perf.*, metrics.port_series, health.*, "
                     "qos, security.*, log.level, node_name_map, sm.priority and sm.polling_* reload)",
                 });
}

TEST_CASE("every key outside routing, sweep and dump other than log.level, sm.priority and sm.polling_* needs a restart", "[config][reload]")
{
    std::vector<std::pair<std::string, std::function<void(Config&)>>> changes{
        {"sm.port_guid", [](Config& c) { c.sm.port_guid = Guid(0x1234); }},
        {"sm.port", [](Config& c) { c.sm.port = PortNum(2); }},
        {"sm.sm_key", [](Config& c) { c.sm.sm_key = 9; }},
        {"sm.subnet_prefix", [](Config& c) { c.sm.subnet_prefix = 1; }},
        {"sm.subnet_timeout", [](Config& c) { c.sm.subnet_timeout = 3; }},
        {"sm.packet_life_time", [](Config& c) { c.sm.packet_life_time = 3; }},
        {"smp.window", [](Config& c) { c.smp.window = 1; }},
        {"smp.timeout_ms", [](Config& c) { c.smp.timeout = 5ms; }},
        {"smp.retries", [](Config& c) { c.smp.retries = 0; }},
        {"log.file", [](Config& c) { c.log.file = "/tmp/log"; }},
    };
    for (const auto& [key, change] : changes) {
        Config next;
        change(next);
        std::vector<std::string> why;
        INFO(key);
        CHECK_FALSE(reload_compatible(Config{}, next, &why));
        REQUIRE(why.size() == 1);
        CHECK(why[0].rfind(key + ": ", 0) == 0);
        CHECK_FALSE(reload_compatible(Config{}, next, nullptr));
    }
    std::vector<std::string> why;
    Config port_guid;
    port_guid.sm.port_guid = Guid(0x0002c90300001235);
    CHECK_FALSE(reload_compatible(Config{}, port_guid, &why));
    CHECK(why == std::vector<std::string>{"sm.port_guid: (not set) -> 0x0002c90300001235 needs a restart (only "
                                          "routing.*, sweep.*, dump.*, perf.*, metrics.port_series, health.*, qos, security.*, log.level, node_name_map, "
                                          "sm.priority and sm.polling_* reload)"});
}

TEST_CASE("flatten lists every key once, in schema order", "[config][reload]")
{
    const auto flat = flatten(Config{});
    REQUIRE(flat.size() == 77);
    CHECK(flat.front() == std::pair<std::string, std::string>{"routing.engines", "[ftree, dfsssp-or-nue, updn]"});
    CHECK(flat.back() == std::pair<std::string, std::string>{"security.mkey", "{mode: off, protect_bits: 1, lease_period_s: 60}"});
    CHECK(std::find(flat.begin(), flat.end(), std::pair<std::string, std::string>{"sweep.debounce_max_ms", "1000"}) !=
          flat.end());
    for (std::size_t i = 0; i < flat.size(); ++i)
        for (std::size_t j = i + 1; j < flat.size(); ++j) CHECK(flat[i].first != flat[j].first);
    // flatten() covers exactly the schema, so a new key is compared on reload.
    std::vector<std::string> flat_keys;
    for (const auto& [key, value] : flat) flat_keys.push_back(key);
    auto schema = schema_keys();
    std::sort(flat_keys.begin(), flat_keys.end());
    std::sort(schema.begin(), schema.end());
    CHECK(flat_keys == schema);

    CHECK(is_reloadable_key("routing.lmc"));
    CHECK(is_reloadable_key("log.level"));
    CHECK(is_reloadable_key("node_name_map"));
    CHECK(is_reloadable_key("routing.cn_guid_file"));
    CHECK(is_reloadable_key("perf.interval_s"));
    CHECK(is_reloadable_key("perf.window"));
    CHECK(is_reloadable_key("perf.enabled"));
    CHECK(is_reloadable_key("sweep.interval_s"));
    CHECK(is_reloadable_key("sweep.debounce_max_ms"));
    CHECK(is_reloadable_key("dump.lfts"));
    CHECK(is_reloadable_key("sm.priority"));
    CHECK(is_reloadable_key("sm.polling_interval_s"));
    CHECK(is_reloadable_key("sm.polling_retries"));
    CHECK(is_reloadable_key("qos"));
    CHECK(is_reloadable_key("security.mkey"));
    CHECK_FALSE(is_reloadable_key("sm.sm_key"));
    CHECK_FALSE(is_reloadable_key("sweep"));
    CHECK_FALSE(is_reloadable_key("state_dir"));
    CHECK_FALSE(is_reloadable_key("log.file"));
    CHECK_FALSE(is_reloadable_key("log.max_size_mb")); // the sink is made once, at start
    CHECK_FALSE(is_reloadable_key("routing"));
}
