// systemd/ibsmd.yaml, the example shipped to operators, parses to the values
// its comments document.
#include "config/config.h"

#include "test_helpers.h"

#include <fstream>
#include <iterator>

using namespace ibsm;
using namespace ibsm::config;
using namespace config_test;
using namespace std::chrono_literals;

TEST_CASE("the example systemd/ibsmd.yaml parses to its documented values", "[config][example]")
{
    const Config c = load_config_file(source_path("systemd/ibsmd.yaml"));
    CHECK(c.routing.engines == std::vector<std::string>{"ftree", "dfsssp-or-nue", "updn"});
    CHECK(effective_engine_chain(c.routing) == std::vector<std::string>{"ftree", "dfsssp-or-nue", "updn", "minhop"});
    CHECK_FALSE(c.routing.no_fallback);
    CHECK(c.routing.lmc == 0);
    CHECK(c.routing.root_guids.empty());
    CHECK_FALSE(c.routing.root_guid_file);
    CHECK(c.routing.max_vls == 8);
    CHECK(c.routing.switch_sl2vl == SwitchSl2Vl::automatic);
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
    CHECK(c.sm.sm_key == 0);
    CHECK(c.sm.polling_interval == 10s);
    CHECK(c.sm.polling_retries == 4);
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

    // The example shows the defaults.
    CHECK(c == Config{});
}

TEST_CASE("the example documents every key of the schema", "[config][example]")
{
    std::ifstream in(source_path("systemd/ibsmd.yaml"));
    REQUIRE(in);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    for (const auto& key : schema_keys()) {
        const auto leaf = key.substr(key.rfind('.') + 1); // npos + 1 == 0: whole key
        INFO(key);
        CHECK(text.find(leaf + ":") != std::string::npos);
    }
}
