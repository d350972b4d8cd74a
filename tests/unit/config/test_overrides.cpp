#include "config/overrides.h"

#include "test_helpers.h"

using namespace ibsm;
using namespace ibsm::config;
using namespace config_test;
using namespace std::chrono_literals;

namespace {

Config from_file()
{
    return parse_config("routing:\n  engines: [sftree]\n  lmc: 1\n"
                        "sm:\n  port_guid: 0x0002c90300001235\n"
                        "state_dir: /var/lib/from-file\n"
                        "log:\n  level: warn\n"
                        "smp:\n  window: 32\n",
                        "t.yaml");
}

} // namespace

TEST_CASE("no overrides leave the file's values", "[config][overrides]")
{
    CHECK(apply_overrides(from_file(), Overrides{}) == from_file());
}

TEST_CASE("flags win over the file", "[config][overrides]")
{
    Overrides o;
    o.state_dir = "/tmp/state";
    o.engines = std::vector<std::string>{"updn", "minhop"};
    o.log_level = "trace";
    o.smp_window = 128;
    o.smp_timeout_ms = 20;
    o.smp_retries = 0;
    const Config c = apply_overrides(from_file(), o);
    CHECK(c.state_dir == "/tmp/state");
    CHECK(c.routing.engines == std::vector<std::string>{"updn", "minhop"});
    CHECK(c.log.level == LogLevel::trace);
    CHECK(c.smp.window == 128);
    CHECK(c.smp.timeout == 20ms);
    CHECK(c.smp.retries == 0);
    // Untouched by any flag.
    CHECK(c.routing.lmc == 1);
    CHECK(c.sm.port_guid == std::optional<Guid>(Guid(0x0002c90300001235)));
}

TEST_CASE("--engine takes a comma list", "[config][overrides]")
{
    Overrides o;
    o.engines = std::vector<std::string>{"ftree, sssp", "dfsssp"};
    CHECK(apply_overrides(Config{}, o).routing.engines == std::vector<std::string>{"ftree", "sssp", "dfsssp"});
}

TEST_CASE("--ca and --port replace a port GUID from the file", "[config][overrides]")
{
    Overrides o;
    o.ca = "mlx5_2";
    Config c = apply_overrides(from_file(), o);
    CHECK_FALSE(c.sm.port_guid);
    CHECK(c.sm.ca == std::optional<std::string>("mlx5_2"));
    CHECK_FALSE(c.sm.port);

    Overrides p;
    p.port = 2;
    c = apply_overrides(from_file(), p);
    CHECK_FALSE(c.sm.port_guid);
    CHECK(c.sm.port == std::optional<PortNum>(PortNum(2)));
}

TEST_CASE("bad flag values are rejected naming the flag", "[config][overrides]")
{
    auto err = [](const Overrides& o) { return error_of([&] { (void)apply_overrides(Config{}, o); }); };
    Overrides o;
    o.engines = std::vector<std::string>{"ftree,ftre"};
    CHECK(err(o) == "command line: --engine: unknown engine 'ftre' (known: ftree, sftree, minhop, updn, sssp, dfsssp, nue, dfsssp-or-nue, pathsel, shortest-widest, updn-paths)");
    o.engines = std::vector<std::string>{};
    CHECK(err(o) ==
          "command line: --engine: the engine chain is empty (known: ftree, sftree, minhop, updn, sssp, dfsssp, nue, dfsssp-or-nue, pathsel, shortest-widest, updn-paths)");
    o.engines = std::vector<std::string>{"minhop", "minhop"};
    CHECK(err(o) == "command line: --engine: engine 'minhop' appears twice in the chain");

    Overrides l;
    l.log_level = "loud";
    CHECK(err(l) ==
          "command line: --log-level: unknown log level 'loud' (known: trace|debug|info|warn|error|critical|off)");

    Overrides s;
    s.state_dir = "";
    CHECK(err(s) == "command line: --state-dir: expected a path, got nothing");

    Overrides p;
    p.port = 255;
    CHECK(err(p) == "command line: --port: expected an integer in 1..254, got 255");
    Overrides w;
    w.smp_window = 0;
    CHECK(err(w) == "command line: --smp-window: expected an integer in 1..4096, got 0");
    Overrides t;
    t.smp_timeout_ms = 60001;
    CHECK(err(t) == "command line: --smp-timeout-ms: expected an integer in 1..60000, got 60001");
    Overrides r;
    r.smp_retries = 101;
    CHECK(err(r) == "command line: --smp-retries: expected an integer in 0..100, got 101");
}

TEST_CASE("routing.verify_incremental: off by default, set by the file or by --verify-incremental", "[config][overrides]")
{
    CHECK_FALSE(from_file().routing.verify_incremental);
    CHECK(parse_config("routing:\n  verify_incremental: true\n", "t.yaml").routing.verify_incremental);
    Overrides o;
    o.verify_incremental = true;
    CHECK(apply_overrides(from_file(), o).routing.verify_incremental);
}
