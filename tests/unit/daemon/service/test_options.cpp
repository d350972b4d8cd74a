// ibsmd's command line: modes, overrides, --x=v, --config.
#include "daemon/service/options.h"

#include <catch2/catch.hpp>

using namespace ibsm;

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
    CHECK_FALSE(daemon::parse_options({"--once"}).overrides.verify_incremental);
    CHECK(daemon::parse_options({"--foreground", "--verify-incremental"}).overrides.verify_incremental);
    CHECK_THROWS_AS(daemon::parse_options({"--discover-only", "--verify-incremental"}), daemon::UsageError);
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
