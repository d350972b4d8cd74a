// metrics: listen's forms (loopback unless an address is written), its
// errors with file, line and key, port_series' four values and the default.
#include "config/config.h"
#include "config/metrics_listen.h"
#include "config/reload.h"

#include "test_helpers.h"

using namespace ibsm::config;
using namespace config_test;

TEST_CASE("metrics are off by default and keep the bounded port series", "[config][metrics]")
{
    const Config c = parse_config("", "t.yaml");
    CHECK_FALSE(c.metrics.listen);
    CHECK(c.metrics.port_series == PortSeries::fabric);
}

TEST_CASE("metrics.listen: a port alone is the loopback, an address is taken as written", "[config][metrics]")
{
    auto listen = [](const std::string& v) {
        return *parse_config("metrics:\n  listen: " + v + "\n", "t.yaml").metrics.listen;
    };
    CHECK(listen("9683") == MetricsListen{"127.0.0.1", 9683});
    CHECK(listen("'10.0.0.5:9683'") == MetricsListen{"10.0.0.5", 9683});
    CHECK(listen("0.0.0.0:80") == MetricsListen{"0.0.0.0", 80});
    CHECK(listen("localhost:9683") == MetricsListen{"127.0.0.1", 9683});
    CHECK(listen("'[::1]:9683'") == MetricsListen{"::1", 9683});
    CHECK(listen("'[::]:9683'") == MetricsListen{"::", 9683});
    CHECK(to_string(MetricsListen{"::1", 9683}) == "[::1]:9683");
    CHECK(to_string(MetricsListen{"127.0.0.1", 9683}) == "127.0.0.1:9683");
}

TEST_CASE("metrics.listen errors name the file, line and key", "[config][metrics]")
{
    CHECK(parse_error("metrics:\n  listen: 0\n") == "t.yaml:2: key 'metrics.listen': port 0 is out of range 1..65535");
    CHECK(parse_error("metrics:\n  listen: 70000\n") ==
          "t.yaml:2: key 'metrics.listen': port 70000 is out of range 1..65535");
    CHECK(parse_error("sweep:\n  interval_s: 5\nmetrics:\n  listen: host.example:9683\n") ==
          "t.yaml:4: key 'metrics.listen': 'host.example' is not a numeric IPv4 address; expected PORT (loopback), "
          "ADDRESS:PORT or [IPv6]:PORT with a numeric address");
    CHECK(parse_error("metrics:\n  listen: '::1:9683'\n") ==
          "t.yaml:2: key 'metrics.listen': write an IPv6 address in brackets ('[::1]:PORT'); expected PORT "
          "(loopback), ADDRESS:PORT or [IPv6]:PORT with a numeric address");
    CHECK(parse_error("metrics:\n  listen: '[fe80::1:9683'\n") ==
          "t.yaml:2: key 'metrics.listen': expected PORT (loopback), ADDRESS:PORT or [IPv6]:PORT with a numeric "
          "address, got '[fe80::1:9683'");
    CHECK(parse_error("metrics:\n  listen: '127.0.0.1:http'\n") ==
          "t.yaml:2: key 'metrics.listen': port 'http' is not a number; expected PORT (loopback), ADDRESS:PORT or "
          "[IPv6]:PORT with a numeric address");
    CHECK(parse_error("metrics:\n  listen: '300.1.1.1:9683'\n") ==
          "t.yaml:2: key 'metrics.listen': '300.1.1.1' is not a numeric IPv4 address; expected PORT (loopback), "
          "ADDRESS:PORT or [IPv6]:PORT with a numeric address");
    CHECK(parse_error("metrics:\n  listen: ''\n").rfind("t.yaml:2: key 'metrics.listen': ", 0) == 0);
}

TEST_CASE("metrics.port_series takes all, fabric, errors or none", "[config][metrics]")
{
    for (auto [text, want] : {std::pair{"all", PortSeries::all}, std::pair{"fabric", PortSeries::fabric},
                              std::pair{"errors", PortSeries::errors}, std::pair{"none", PortSeries::none}}) {
        INFO(text);
        const Config c = parse_config(std::string("metrics:\n  port_series: ") + text + "\n", "t.yaml");
        CHECK(c.metrics.port_series == want);
        CHECK(to_string(want) == text);
    }
    CHECK(parse_error("metrics:\n  port_series: hosts\n") ==
          "t.yaml:2: key 'metrics.port_series': expected all, fabric, errors or none, got 'hosts'");
    CHECK(parse_error("metrics:\n  series: all\n").rfind("t.yaml:2: key 'metrics.series': unknown key", 0) == 0);
}

TEST_CASE("metrics.port_series reloads; metrics.listen needs a restart", "[config][metrics][reload]")
{
    Config next;
    next.metrics.port_series = PortSeries::all;
    CHECK(reload_compatible(Config{}, next, nullptr));
    next.metrics.listen = MetricsListen{"127.0.0.1", 9683};
    std::vector<std::string> why;
    CHECK_FALSE(reload_compatible(Config{}, next, &why));
    REQUIRE(why.size() == 1);
    CHECK(why[0].rfind("metrics.listen: (off) -> 127.0.0.1:9683 needs a restart", 0) == 0);
}
