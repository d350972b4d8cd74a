// The status files' formats (daemon/publish/status.h): state.json reads back to the
// same record, bad files are refused with a reason, metrics.prom follows the
// Prometheus text format, and the text names what an operator looks for.
#include "daemon/publish/status.h"
#include "health/port_health_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

using namespace ibsm::daemon;

namespace {

DaemonStatus sample()
{
    DaemonStatus s;
    s.pid = 4242;
    s.started = 1790000000.5;
    s.updated = 1790000100.25;
    s.sm_port_guid = "0x0002c90300000001";
    s.state = "degraded";
    s.reason = "verification: 2 \"pairs\" unreachable";
    s.generation = 12;
    s.engine = "ftree";
    s.sm_lid = 1;
    s.nodes = 14;
    s.switches = 6;
    s.cas = 8;
    s.links = 16;
    s.lid_ports = 14;
    s.top_lid = 14;
    s.lmc = 1;
    s.last_sweep.kind = "re-route";
    s.last_sweep.outcome = "degraded";
    s.last_sweep.finished = 1790000099;
    s.last_sweep.seconds = 0.18;
    s.last_sweep.smps = 321;
    s.last_sweep.lft_blocks_sent = 7;
    s.last_sweep.phases = {{"refresh", 0.05, 100, "2 switch(es)"}, {"route", 0.1, 0, "engine ftree"}};
    s.counters.heavy_sweeps = 1;
    s.counters.reroutes = 3;
    s.counters.reroutes_unchanged = 1;
    s.counters.light_sweeps = 40;
    s.counters.smps_sent = 9000;
    s.counters.smp_timeouts = 5;
    s.counters.smp_retries = 6;
    s.counters.traps = 9;
    s.traps = {{128, 7, 3}, {144, 2, 0}};
    s.phase_totals = {{"discover", 1.5, 1}, {"refresh", 0.2, 3}};
    s.events = {{1790000098, "trap 128 (link state change) from LID 5"}, {1790000099, "re-route: degraded, generation 12"}};
    return s;
}

// One sample line of the exposition format: name, labels, value.
struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

// A strict reader of what to_prometheus writes: HELP then TYPE before a
// family's samples, families contiguous, each series once, label values
// with \\ \" \n escapes only.
std::vector<Sample> parse_exposition(const std::string& text, std::map<std::string, std::string>& types)
{
    std::vector<Sample> out;
    std::istringstream in(text);
    std::string line, family;
    std::set<std::string> closed, series;
    while (std::getline(in, line)) {
        INFO(line);
        if (line.rfind("# HELP ", 0) == 0) {
            std::string name = line.substr(7, line.find(' ', 7) - 7);
            REQUIRE(closed.count(name) == 0);
            if (!family.empty()) closed.insert(family);
            family = name;
            continue;
        }
        if (line.rfind("# TYPE ", 0) == 0) {
            std::istringstream t(line.substr(7));
            std::string name, type;
            t >> name >> type;
            REQUIRE(name == family);
            REQUIRE((type == "counter" || type == "gauge"));
            types[name] = type;
            continue;
        }
        REQUIRE(!line.empty());
        REQUIRE(line[0] != '#');
        Sample s;
        std::size_t i = 0;
        while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
        s.name = line.substr(0, i);
        REQUIRE(s.name == family);
        REQUIRE(types.count(family));
        if (line[i] == '{') {
            ++i;
            while (line[i] != '}') {
                auto eq = line.find("=\"", i);
                REQUIRE(eq != std::string::npos);
                std::string key = line.substr(i, eq - i), value;
                i = eq + 2;
                for (; line[i] != '"'; ++i) {
                    if (line[i] == '\\') {
                        ++i;
                        REQUIRE((line[i] == '\\' || line[i] == '"' || line[i] == 'n'));
                        value += line[i] == 'n' ? '\n' : line[i];
                    } else {
                        value += line[i];
                    }
                }
                ++i;
                s.labels[key] = value;
                if (line[i] == ',') ++i;
            }
            ++i;
        }
        REQUIRE(line[i] == ' ');
        std::size_t used = 0;
        s.value = std::stod(line.substr(i + 1), &used);
        REQUIRE(i + 1 + used == line.size());
        REQUIRE(series.insert(line.substr(0, i)).second);
        out.push_back(std::move(s));
    }
    return out;
}

double value_of(const std::vector<Sample>& samples, const std::string& name, const std::map<std::string, std::string>& labels = {})
{
    for (const auto& s : samples)
        if (s.name == name && s.labels == labels) return s.value;
    FAIL("no sample " << name);
    return -1;
}

} // namespace

TEST_CASE("state.json reads back to the record it was written from")
{
    const DaemonStatus s = sample();
    const std::string text = to_state_json(s);
    auto j = nlohmann::json::parse(text);
    CHECK(j["format_version"] == 1);
    CHECK(j["updated_utc"] == "2026-09-21T14:15:00Z");
    const DaemonStatus r = status_from_json(text);
    CHECK(to_state_json(r) == text);
    CHECK(r.pid == 4242);
    CHECK(r.state == "degraded");
    CHECK(r.reason == s.reason);
    CHECK(r.generation == 12);
    CHECK(r.last_sweep.phases.size() == 2);
    CHECK(r.last_sweep.phases[1].detail == "engine ftree");
    CHECK(r.counters.smp_retries == 6);
    REQUIRE(r.traps.size() == 2);
    CHECK(r.traps[0].repeats == 3);
    CHECK(r.phase_totals[1].runs == 3);
    CHECK(r.events.back().text == "re-route: degraded, generation 12");
}

TEST_CASE("state.json names report.html only once one is written, and the status text points at it")
{
    DaemonStatus s = sample();
    CHECK_FALSE(nlohmann::json::parse(to_state_json(s)).contains("report"));
    CHECK(to_status_text(s, s.updated, true).find("report:") == std::string::npos);
    s.report = {"/var/lib/ibsmd/report.html", 11, s.updated - 60};
    const std::string text = to_state_json(s);
    CHECK(nlohmann::json::parse(text)["report"]["generation"] == 11);
    const DaemonStatus r = status_from_json(text);
    CHECK(r.report.path == "/var/lib/ibsmd/report.html");
    CHECK(r.report.generation == 11);
    CHECK(to_state_json(r) == text);
    CHECK(to_status_text(r, s.updated, true).find("report:       /var/lib/ibsmd/report.html (generation 11, 60 s ago)\n") !=
          std::string::npos);
}

TEST_CASE("a state file that is not ours is refused with the reason")
{
    CHECK_THROWS_AS(status_from_json("{"), StatusFormatError);
    CHECK_THROWS_AS(status_from_json("[1, 2]"), StatusFormatError);
    auto j = nlohmann::json::parse(to_state_json(sample()));
    j["format_version"] = 2;
    CHECK_THROWS_WITH(status_from_json(j.dump()), Catch::Contains("format_version 2"));
    j = nlohmann::json::parse(to_state_json(sample()));
    j["generation"] = "twelve";
    CHECK_THROWS_WITH(status_from_json(j.dump()), Catch::Contains("generation"));
    j = nlohmann::json::parse(to_state_json(sample()));
    j.erase("counters");
    CHECK_THROWS_WITH(status_from_json(j.dump()), Catch::Contains("counters"));
}

TEST_CASE("an event text that is not UTF-8 still gives valid JSON")
{
    DaemonStatus s = sample();
    s.events.push_back({1790000100, "node description 'sw\xff'"});
    const auto r = status_from_json(to_state_json(s));
    CHECK(r.events.back().text == "node description 'sw\xef\xbf\xbd'");
}

TEST_CASE("metrics.prom: every family typed once, counters end in _total, values and labels as recorded")
{
    DaemonStatus s = sample();
    s.engine = "ft\"ree\\x"; // escaped in label values
    std::map<std::string, std::string> types;
    const auto samples = parse_exposition(to_prometheus(s), types);
    for (const auto& [name, type] : types) {
        INFO(name);
        CHECK((type == "counter") == (name.size() > 6 && name.substr(name.size() - 6) == "_total"));
    }
    CHECK(value_of(samples, "ibsmd_subnet_up") == 1);
    CHECK(value_of(samples, "ibsmd_subnet_degraded") == 1);
    CHECK(value_of(samples, "ibsmd_generation") == 12);
    CHECK(value_of(samples, "ibsmd_lids") == 14);
    CHECK(value_of(samples, "ibsmd_nodes", {{"type", "switch"}}) == 6);
    CHECK(value_of(samples, "ibsmd_sweeps_total", {{"kind", "heavy"}}) == 1);
    CHECK(value_of(samples, "ibsmd_sweeps_total", {{"kind", "light"}}) == 40);
    CHECK(value_of(samples, "ibsmd_reroutes_total") == 3);
    CHECK(value_of(samples, "ibsmd_smps_sent_total") == 9000);
    CHECK(value_of(samples, "ibsmd_smp_timeouts_total") == 5);
    CHECK(value_of(samples, "ibsmd_smp_retries_total") == 6);
    CHECK(value_of(samples, "ibsmd_traps_total", {{"number", "128"}}) == 7);
    CHECK(value_of(samples, "ibsmd_trap_repeats_total", {{"number", "128"}}) == 3);
    CHECK(value_of(samples, "ibsmd_traps_total", {{"number", "144"}}) == 2);
    CHECK(value_of(samples, "ibsmd_phase_seconds_total", {{"phase", "discover"}}) == 1.5);
    CHECK(value_of(samples, "ibsmd_phase_runs_total", {{"phase", "refresh"}}) == 3);
    CHECK(value_of(samples, "ibsmd_last_sweep_phase_seconds", {{"phase", "route"}}) == 0.1);
    CHECK(value_of(samples, "ibsmd_start_time_seconds") == 1790000000.5);
    CHECK(value_of(samples, "ibsmd_info",
                   {{"sm_port_guid", "0x0002c90300000001"}, {"state", "degraded"}, {"engine", "ft\"ree\\x"}}) == 1);
}

TEST_CASE("the status text says whether the daemon runs and what state the subnet is in")
{
    const DaemonStatus s = sample();
    const std::string t = to_status_text(s, s.updated + 3, true);
    CHECK(t.find("ibsmd (pid 4242, running): SUBNET UP, DEGRADED: verification") == 0);
    CHECK(t.find("generation:   12\n") != std::string::npos);
    CHECK(t.find("engine:       ftree\n") != std::string::npos);
    CHECK(t.find("LIDs:         14 ports, top LID 14, LMC 1\n") != std::string::npos);
    CHECK(t.find("(3 s ago)") != std::string::npos);
    CHECK(t.find("last sweep:   re-route, degraded, 0.180 s, 321 SMPs, 7 LFT blocks sent") != std::string::npos);
    CHECK(t.find("  refresh        0.050 s       100 SMPs  2 switch(es)\n") != std::string::npos);
    CHECK(t.find("SMPs:         9000 sent, 5 timeouts, 0 drops, 6 retries, 0 failed\n") != std::string::npos);
    CHECK(t.find("traps:        9 received: 128 x7 (3 repeats), 144 x2\n") != std::string::npos);
    CHECK(t.find("  trap 128 (link state change) from LID 5\n") != std::string::npos);
    CHECK(to_status_text(s, s.updated, false).find("NOT RUNNING") != std::string::npos);
    DaemonStatus fresh;
    CHECK(to_status_text(fresh, 10, true).find("last sweep:   none yet") != std::string::npos);
    CHECK(status_activity_text(fresh).find("last events: none\n") != std::string::npos);
}

namespace {

DaemonStatus with_ports()
{
    DaemonStatus s;
    s.perf.enabled = true;
    s.perf.sweeps = 3;
    s.perf.ports_monitored = 2; // the reporter counts them from every row
    s.perf.ports_read = 1;
    s.perf.mads = 120;
    s.perf.failures = 2;
    s.perf.last_sweep = 1700000000.5;
    s.perf.last_sweep_seconds = 0.25;
    s.perf.last_sweep_mads = 40;
    ibsm::health::PortHealth r;
    r.id = {ibsm::Guid(0x0002c90200000001ULL), ibsm::PortNum(7)};
    r.node_desc = "leaf \"A\" \\ rack 1";
    r.remote = ibsm::health::PortId{ibsm::Guid(0x0002c90300000100ULL), ibsm::PortNum(1)};
    r.lid = ibsm::Lid(5);
    ibsm::health::PortCounters c;
    c.supported.fill(true);
    c.supported[ibsm::health::index(ibsm::health::Counter::xmit_wait)] = false;
    c.total[ibsm::health::index(ibsm::health::Counter::symbol_errors)] = 9;
    c.delta[ibsm::health::index(ibsm::health::Counter::symbol_errors)] = 2;
    c.total[ibsm::health::index(ibsm::health::Counter::xmit_data)] = 1000; // words
    c.interval_s = 10;
    c.xmit_bytes_per_s = 400;
    c.reads = 3;
    c.resets_seen = 1;
    c.failure_history = 0b10;
    c.extended = true;
    r.counters = c;
    s.ports.push_back(r);
    ibsm::health::PortHealth quiet;
    quiet.id = {ibsm::Guid(0x0002c90200000002ULL), ibsm::PortNum(1)};
    s.ports.push_back(quiet); // never read: no counters, no samples
    return s;
}

} // namespace

TEST_CASE("state.json keeps the monitored ports and the poller's totals")
{
    const DaemonStatus s = with_ports();
    const DaemonStatus back = status_from_json(to_state_json(s));
    REQUIRE(back.ports.size() == 2);
    const auto& r = back.ports[0];
    CHECK(r.id == s.ports[0].id);
    CHECK(r.node_desc == s.ports[0].node_desc);
    CHECK(r.remote == s.ports[0].remote);
    CHECK(r.lid == ibsm::Lid(5));
    REQUIRE(r.counters);
    CHECK(r.counters->total == s.ports[0].counters->total);
    CHECK(r.counters->delta == s.ports[0].counters->delta);
    CHECK(r.counters->supported == s.ports[0].counters->supported);
    CHECK(r.counters->resets_seen == 1);
    CHECK(r.counters->failure_history == 0b10);
    CHECK_FALSE(back.ports[1].counters);
    CHECK_FALSE(back.ports[1].remote);
    CHECK(back.perf.sweeps == 3);
    CHECK(back.perf.failures == 2);
    CHECK(back.perf.last_sweep_mads == 40);
}

TEST_CASE("metrics.prom: per-port families in bytes, escaped labels, XmitWait only where supported")
{
    const std::string prom = to_prometheus(with_ports());
    // node_name: no node-name-map here, so the description.
    const std::string labels = "{node_guid=\"0x0002c90200000001\",node_desc=\"leaf \\\"A\\\" \\\\ rack 1\","
                               "node_name=\"leaf \\\"A\\\" \\\\ rack 1\",port=\"7\","
                               "remote_guid=\"0x0002c90300000100\",remote_port=\"1\"}";
    CHECK(prom.find("ibsmd_port_symbol_errors_total" + labels + " 9\n") != std::string::npos);
    CHECK(prom.find("ibsmd_port_xmit_bytes_total" + labels + " 4000\n") != std::string::npos);
    CHECK(prom.find("ibsmd_port_xmit_bytes_per_second" + labels + " 400\n") != std::string::npos);
    CHECK(prom.find("ibsmd_port_xmit_wait_total{") == std::string::npos);
    CHECK(prom.find("ibsmd_port_xmit_wait_ratio{") == std::string::npos);
    CHECK(prom.find("0x0002c90200000002") == std::string::npos); // never read: no samples
    CHECK(prom.find("ibsmd_perf_sweeps_total 3\n") != std::string::npos);
    CHECK(prom.find("ibsmd_perf_mads_total 120\n") != std::string::npos);
    CHECK(prom.find("# TYPE ibsmd_port_xmit_wait_ratio gauge\n") != std::string::npos);
}

TEST_CASE("metrics.prom and ibsm status: the node-name-map's name in node_name, beside node_desc")
{
    DaemonStatus s = with_ports();
    s.ports[0].node_name = "rack1-leaf-A";
    const std::string prom = to_prometheus(s);
    CHECK(prom.find("ibsmd_port_symbol_errors_total{node_guid=\"0x0002c90200000001\",node_desc=\"leaf \\\"A\\\" "
                    "\\\\ rack 1\",node_name=\"rack1-leaf-A\",port=\"7\",") != std::string::npos);
    const DaemonStatus back = status_from_json(to_state_json(s));
    CHECK(back.ports[0].node_name == "rack1-leaf-A");
    CHECK(to_status_text(s, 1700000010.5, true).find("  0x0002c90200000001/7 \"rack1-leaf-A\": symbol_errors 9 (+2)\n") !=
          std::string::npos);
}

TEST_CASE("ibsm status names the ports monitored and the worst ones")
{
    const std::string text = to_status_text(with_ports(), 1700000010.5, true);
    CHECK(text.find("counters:     2 ports monitored (1 read), 3 counter sweeps, last 10 s ago (0.250 s, 40 MADs), "
                    "2 MADs failed in all\n") != std::string::npos);
    CHECK(text.find("  0x0002c90200000001/7 \"leaf \"A\" \\ rack 1\": symbol_errors 9 (+2)\n") != std::string::npos);
    DaemonStatus off;
    CHECK(to_status_text(off, 0, true).find("counters:     polling off") != std::string::npos);
}

TEST_CASE("state.json's ports are the one JSON form of a port row; a bad row names its path")
{
    const auto j = nlohmann::json::parse(to_state_json(with_ports()));
    CHECK(j["ports"][0] == ibsm::health::to_json(with_ports().ports[0]));
    auto bad = j;
    bad["ports"][1]["port"] = "one";
    try {
        status_from_json(bad.dump());
        FAIL("a malformed port row was accepted");
    } catch (const StatusFormatError& e) {
        CHECK(std::string(e.what()) == "ports[1].port: expected an unsigned integer");
    }
}

TEST_CASE("M_Key: state.json keeps the counters, metrics.prom has ibsmd_mkey_*, ibsm status one line", "[mkey]")
{
    DaemonStatus s = sample();
    CHECK(status_from_json(to_state_json(s)).mkey == StatusMkey{}); // off unless set
    s.mkey = StatusMkey{"per-port", 2, 60, "0123456789abcdef", 4, 3, 2, 1, true, 5, 1};
    const auto back = status_from_json(to_state_json(s));
    CHECK(back.mkey == s.mkey);

    std::map<std::string, std::string> types;
    const auto samples = parse_exposition(to_prometheus(s), types);
    CHECK(types["ibsmd_mkey_violations_total"] == "counter");
    CHECK(types["ibsmd_mkey_ports_lease_wait"] == "gauge");
    CHECK(value_of(samples, "ibsmd_mkey_enabled") == 1);
    CHECK(value_of(samples, "ibsmd_mkey_violations_total") == 4);
    CHECK(value_of(samples, "ibsmd_mkey_incidents_total") == 3);
    CHECK(value_of(samples, "ibsmd_mkey_rotations_total") == 2);
    CHECK(value_of(samples, "ibsmd_mkey_rotations_completed_total") == 1);
    CHECK(value_of(samples, "ibsmd_mkey_rotating") == 1);
    CHECK(value_of(samples, "ibsmd_mkey_ports_stale") == 5);
    CHECK(value_of(samples, "ibsmd_mkey_ports_lease_wait") == 1);

    const std::string t = to_status_text(s, s.updated + 3, true);
    CHECK(t.find("M_Key:        per-port, protect bits 2, lease 60 s, secret fingerprint 0123456789abcdef; 4 "
                 "violations, 3 incidents, 2 rotations (rotating: 5 ports hold an old key), 1 ports waiting out "
                 "their lease\n") != std::string::npos);
    s.mkey = StatusMkey{};
    CHECK(to_status_text(s, s.updated + 3, true).find("M_Key:        off; 0 violations, 0 incidents, 0 rotations\n") !=
          std::string::npos);

    auto j = nlohmann::json::parse(to_state_json(s));
    j["mkey"]["violations"] = "many";
    CHECK_THROWS_WITH(status_from_json(j.dump()), Catch::Contains("field 'mkey'"));
}
