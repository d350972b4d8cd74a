#include "config/describe.h"

#include "config/overrides.h"
#include "test_helpers.h"

using namespace ibsm;
using namespace ibsm::config;
using namespace config_test;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("describe prints the defaults as YAML that reads back", "[config][describe]")
{
    const std::string text = describe(Config{});
    CHECK(contains(text, "routing:\n  engines: [ftree, dfsssp-or-nue, updn]"));
    CHECK(contains(text, "chain run: ftree -> dfsssp-or-nue -> updn -> minhop"));
    CHECK(contains(text, "subnet_prefix: 0xfe80000000000000"));
    CHECK(contains(text, "state_dir: /var/lib/ibsmd"));
    CHECK(contains(text, "level: info"));
    CHECK(contains(text, "sweep:\n  interval_s: 10\n  retry_interval_s: 10\n  debounce_ms: 20\n"
                         "  debounce_max_ms: 1000\n"));
    CHECK(contains(text, "dump:\n  lfts: true\n  lfts_max_entries: 25000000\n  topology: true\n  summary: true\n  sl: true\n"));
    CHECK_FALSE(contains(text, "port_guid"));
    CHECK(parse_config(text, "describe") == Config{});
}

TEST_CASE("describe round-trips every key", "[config][describe]")
{
    const Config full = load_config_file(fixture("full.yaml"));
    const std::string text = describe(full);
    CHECK(contains(text, "ca: mlx5_1"));
    CHECK(contains(text, "0x0002c90200000002"));
    CHECK(contains(text, "interval_s: 0  # light sweeps off"));
    CHECK(contains(text, "retry_interval_s: 30"));
    CHECK(contains(text, "debounce_max_ms: 5000"));
    CHECK(contains(text, "lfts: false"));
    CHECK(contains(text, "sl: false"));
    CHECK(parse_config(text, "describe") == full);

    Config odd;
    odd.sm.port_guid = Guid(0x0002c90300001235);
    odd.routing.root_guid_file = "/etc/ibsmd/roots: #1";
    odd.routing.cn_guid_file = "/etc/opensm/cn guids";
    odd.routing.io_guid_file = "io";
    odd.routing.guid_routing_order_file = "# order";
    odd.node_name_map = "/etc/infiniband-diags/ibnetdiscover.node-name-map";
    odd.state_dir = "'quoted' dir, with [brackets]";
    odd.log.file = "  leading blanks";
    odd.log.level = LogLevel::off;
    const std::string odd_text = describe(odd);
    CHECK(contains(odd_text, "port_guid: 0x0002c90300001235"));
    CHECK(parse_config(odd_text, "describe") == odd);
}

TEST_CASE("describe shows command-line overrides", "[config][describe]")
{
    Overrides o;
    o.engines = std::vector<std::string>{"sssp"};
    o.state_dir = "/tmp/s";
    const std::string text = describe(apply_overrides(Config{}, o));
    CHECK(contains(text, "engines: [sssp]"));
    CHECK(contains(text, "chain run: sssp -> minhop"));
    CHECK(contains(text, "state_dir: /tmp/s"));
}
