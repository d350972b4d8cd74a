// metrics.port_series: which port and leaf series each choice keeps, on a
// hand-made fabric of two switches linked to each other and two hosts on
// the first: the switch-to-switch ports keep their transmit rate under
// `fabric`, error counters appear once non-zero, the leaf sums its host
// links, and `none` keeps only the SM's own series.
#include "daemon/publish/port_series.h"
#include "daemon/publish/status.h"

#include <catch2/catch.hpp>

#include <map>
#include <sstream>

using namespace ibsm;
using namespace ibsm::daemon;
using config::PortSeries;
using health::Counter;

namespace {

const Guid s1(0x0002c90200000a01ULL), s2(0x0002c90200000a02ULL);
const Guid h1(0x0002c90300000b01ULL), h2(0x0002c90300000b02ULL);

health::PortHealth row(Guid node, unsigned port, Guid remote, unsigned remote_port, double xmit, double rcv)
{
    health::PortHealth r;
    r.id = {node, PortNum(port)};
    r.remote = health::PortId{remote, PortNum(remote_port)};
    r.node_desc = node == s1 ? "leaf-1" : node == s2 ? "spine-1" : "host";
    health::PortCounters c;
    c.supported.fill(true);
    c.reads = 3;
    c.interval_s = 10;
    c.xmit_bytes_per_s = xmit;
    c.rcv_bytes_per_s = rcv;
    c.xmit_wait_share = xmit / 1000;
    c.total[health::index(Counter::xmit_data)] = 100;
    r.counters = c;
    return r;
}

std::vector<health::PortHealth> fabric_rows()
{
    std::vector<health::PortHealth> rows{
        row(s1, 1, s2, 1, 500, 600), // the switch-to-switch link, both ends
        row(s2, 1, s1, 1, 600, 500),
        row(s1, 2, h1, 1, 100, 10), // host links, leaf end
        row(s1, 3, h2, 1, 200, 20),
        row(h1, 1, s1, 2, 10, 100), // host ends
        row(h2, 1, s1, 3, 20, 200),
    };
    auto h1c = *rows[4].counters;
    h1c.total[health::index(Counter::symbol_errors)] = 5;
    h1c.delta[health::index(Counter::symbol_errors)] = 2;
    rows[4].counters = h1c;
    auto s1c = *rows[3].counters;
    s1c.total[health::index(Counter::rcv_errors)] = 4;
    s1c.delta[health::index(Counter::rcv_errors)] = 3;
    rows[3].counters = s1c;
    auto s2c = *rows[1].counters;
    s2c.total[health::index(Counter::link_downed)] = 1; // no delta: counted once, long ago
    rows[1].counters = s2c;
    return rows;
}

// Samples by family: the label set's node_guid/port (or node_guid for a
// leaf) to the value; also checks each family's HELP/TYPE come first.
std::map<std::string, std::map<std::string, double>> samples(const std::string& text)
{
    std::map<std::string, std::map<std::string, double>> out;
    std::istringstream in(text);
    std::string line, typed;
    while (std::getline(in, line)) {
        if (line.rfind("# TYPE ", 0) == 0) {
            typed = line.substr(7, line.find(' ', 7) - 7);
            out[typed]; // a family declared without samples is there, empty
            continue;
        }
        if (line.empty() || line[0] == '#') continue;
        const auto brace = line.find('{');
        const auto space = line.rfind(' ');
        const std::string name = line.substr(0, std::min(brace, space));
        INFO(line);
        REQUIRE(name == typed);
        std::string key;
        if (brace != std::string::npos && line.find("node_guid=\"") == std::string::npos) {
            key = line.substr(brace, line.rfind('}') - brace + 1); // the SM's own: its labels
        } else if (brace != std::string::npos) {
            const auto g = line.find("node_guid=\"") + 11;
            key = line.substr(g, 18);
            const auto p = line.find(",port=\"");
            if (p != std::string::npos) key += "/" + line.substr(p + 7, line.find('"', p + 7) - p - 7);
        }
        REQUIRE(out[name].emplace(key, std::stod(line.substr(space + 1))).second);
    }
    return out;
}

std::string render(PortSeries series, bool roles = true)
{
    StatusPerf perf;
    perf.sweeps = 3;
    PortSelection sel{series, roles ? switch_guids({s2, s1}) : nullptr};
    return port_metrics(perf, fabric_rows(), sel);
}

std::size_t count(const std::map<std::string, std::map<std::string, double>>& s, const std::string& prefix)
{
    std::size_t n = 0;
    for (const auto& [name, series] : s)
        if (name.rfind(prefix, 0) == 0) n += series.size();
    return n;
}

} // namespace

TEST_CASE("port_series all: every family of every port, and the leaf sums")
{
    const auto s = samples(render(PortSeries::all));
    // 17 totals (XmitWait supported) + 5 rates per port, 6 ports.
    CHECK(count(s, "ibsmd_port_") == 6 * 22);
    CHECK(s.at("ibsmd_port_symbol_errors_total").size() == 6); // zeros included
    CHECK(s.at("ibsmd_port_rcv_bytes_total").size() == 6);
    CHECK(s.at("ibsmd_leaf_host_ports").size() == 1);
    CHECK(s.at("ibsmd_perf_sweeps_total").at("") == 3);
}

TEST_CASE("port_series fabric: switch-to-switch transmit rates, errors once non-zero, per-leaf sums")
{
    const auto s = samples(render(PortSeries::fabric));
    const std::string S1 = s1.str(), S2 = s2.str(), H1 = h1.str();
    // The transmit rate of both ends of the switch-to-switch link, of no host link.
    CHECK(s.at("ibsmd_port_xmit_bytes_per_second") == std::map<std::string, double>{{S1 + "/1", 500}, {S2 + "/1", 600}});
    for (const char* gone : {"ibsmd_port_rcv_bytes_per_second", "ibsmd_port_xmit_bytes_total",
                             "ibsmd_port_rcv_pkts_total", "ibsmd_port_xmit_wait_ratio", "ibsmd_port_xmit_wait_total"})
        CHECK(s.count(gone) == 0);
    // Error counters: only the non-zero ones, whatever the port's kind.
    CHECK(s.at("ibsmd_port_symbol_errors_total") == std::map<std::string, double>{{H1 + "/1", 5}});
    CHECK(s.at("ibsmd_port_rcv_errors_total") == std::map<std::string, double>{{S1 + "/3", 4}});
    CHECK(s.at("ibsmd_port_link_downed_total") == std::map<std::string, double>{{S2 + "/1", 1}});
    CHECK(s.at("ibsmd_port_vl15_dropped_total").empty()); // the family is declared, no series
    CHECK(count(s, "ibsmd_port_") == 2 + 3);
    // The leaf (s1) sums its two host links; the spine has no host link.
    CHECK(s.at("ibsmd_leaf_host_ports") == std::map<std::string, double>{{S1, 2}});
    CHECK(s.at("ibsmd_leaf_host_errors") == std::map<std::string, double>{{S1, 2 + 3}});
    CHECK(s.at("ibsmd_leaf_host_xmit_bytes_per_second") == std::map<std::string, double>{{S1, 300}});
    CHECK(s.at("ibsmd_leaf_host_rcv_bytes_per_second") == std::map<std::string, double>{{S1, 30}});
    CHECK(s.at("ibsmd_leaf_host_xmit_wait_ratio_max") == std::map<std::string, double>{{S1, 0.2}});
    const std::string text = render(PortSeries::fabric);
    CHECK(text.find("ibsmd_leaf_host_ports{node_guid=\"" + S1 + "\",node_desc=\"leaf-1\",node_name=\"leaf-1\"} 2\n") !=
          std::string::npos);
}

TEST_CASE("port_series errors: no rates at all; none: only the poller's totals")
{
    const auto e = samples(render(PortSeries::errors));
    CHECK(e.count("ibsmd_port_xmit_bytes_per_second") == 0);
    CHECK(count(e, "ibsmd_port_") == 3);
    CHECK(e.at("ibsmd_leaf_host_ports").size() == 1);
    const auto n = samples(render(PortSeries::none));
    CHECK(count(n, "ibsmd_port_") == 0);
    CHECK(count(n, "ibsmd_leaf_") == 0);
    CHECK(n.at("ibsmd_perf_sweeps_total").at("") == 3);
}

TEST_CASE("port_series fabric before any generation: no port is switch-to-switch, errors still appear")
{
    const auto s = samples(render(PortSeries::fabric, /*roles=*/false));
    CHECK(s.at("ibsmd_port_xmit_bytes_per_second").empty());
    CHECK(count(s, "ibsmd_port_") == 3);
    CHECK(count(s, "ibsmd_leaf_") == 0);
}

TEST_CASE("a series appears on the first error and stays")
{
    auto rows = fabric_rows();
    PortSelection sel{PortSeries::fabric, switch_guids({s1, s2})};
    auto before = samples(port_metrics({}, rows, sel));
    CHECK(before.at("ibsmd_port_xmit_discards_total").empty());
    auto c = *rows[0].counters;
    c.total[health::index(Counter::xmit_discards)] = 1;
    c.delta[health::index(Counter::xmit_discards)] = 1;
    rows[0].counters = c;
    auto after = samples(port_metrics({}, rows, sel));
    CHECK(after.at("ibsmd_port_xmit_discards_total") == std::map<std::string, double>{{s1.str() + "/1", 1}});
    c.delta[health::index(Counter::xmit_discards)] = 0; // a quiet interval: the total stays
    rows[0].counters = c;
    CHECK(samples(port_metrics({}, rows, sel)).at("ibsmd_port_xmit_discards_total").size() == 1);
}

TEST_CASE("to_prometheus with a selection keeps the SM's own series")
{
    DaemonStatus st;
    st.state = "up";
    st.generation = 4;
    st.ports = fabric_rows();
    const std::string text = to_prometheus(st, PortSelection{PortSeries::none, nullptr});
    CHECK(text.find("ibsmd_generation 4\n") != std::string::npos);
    CHECK(text.find("ibsmd_port_") == std::string::npos);
    const auto rows = fabric_rows();
    const std::string all = to_prometheus(DaemonStatus{}, PortSelection{PortSeries::all, nullptr}, &rows);
    CHECK(samples(all).at("ibsmd_port_rcv_bytes_total").size() == 6);
}
