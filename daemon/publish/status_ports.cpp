#include "daemon/publish/status_ports.h"

#include <cstdio>
#include <cstdlib>

namespace ibsm::daemon {
namespace {

using Json = nlohmann::json;
using health::Counter;

std::string describe_port(const health::PortHealth& r)
{
    std::string s = r.id.node.str() + "/" + std::to_string(r.id.port.value());
    const std::string& name = r.node_name.empty() ? r.node_desc : r.node_name;
    if (!name.empty()) s += " \"" + name + "\"";
    return s;
}

} // namespace

std::string age_text(double seconds)
{
    if (seconds < 0) seconds = 0;
    char buf[32];
    if (seconds < 120)
        std::snprintf(buf, sizeof buf, "%.0f s ago", seconds);
    else if (seconds < 7200)
        std::snprintf(buf, sizeof buf, "%.0f min ago", seconds / 60);
    else
        std::snprintf(buf, sizeof buf, "%.1f h ago", seconds / 3600);
    return buf;
}

std::string prom_label_value(std::string_view v)
{
    std::string out;
    for (char c : v) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

Json perf_to_json(const StatusPerf& p)
{
    return Json{{"enabled", p.enabled},           {"sweeps", p.sweeps},
                {"mads", p.mads},                 {"failures", p.failures},
                {"last_sweep", p.last_sweep},     {"last_sweep_seconds", p.last_sweep_seconds},
                {"last_sweep_mads", p.last_sweep_mads}, {"ports_monitored", p.ports_monitored},
                {"ports_read", p.ports_read}};
}

StatusPerf perf_from_json(const Json& j)
{
    StatusPerf p;
    p.enabled = j.at("enabled").get<bool>();
    p.sweeps = j.at("sweeps").get<std::uint64_t>();
    p.mads = j.at("mads").get<std::uint64_t>();
    p.failures = j.at("failures").get<std::uint64_t>();
    p.last_sweep = j.at("last_sweep").get<double>();
    p.last_sweep_seconds = j.at("last_sweep_seconds").get<double>();
    p.last_sweep_mads = j.at("last_sweep_mads").get<std::uint64_t>();
    p.ports_monitored = j.value("ports_monitored", std::uint64_t{0});
    p.ports_read = j.value("ports_read", std::uint64_t{0});
    return p;
}

std::string ports_status_text(const StatusPerf& perf, const std::vector<health::PortHealth>& rows, double now,
                              std::size_t worst)
{
    std::string o = "counters:     ";
    if (!perf.enabled) return o + "polling off (perf.enabled)\n";
    o += std::to_string(perf.ports_monitored) + " ports monitored (" + std::to_string(perf.ports_read) + " read), ";
    if (perf.sweeps == 0) {
        o += "no counter sweep yet\n";
    } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f s", perf.last_sweep_seconds);
        o += std::to_string(perf.sweeps) + " counter sweeps, last " + age_text(now - perf.last_sweep) + " (" + buf +
             ", " + std::to_string(perf.last_sweep_mads) + " MADs), " + std::to_string(perf.failures) +
             " MADs failed in all\n";
    }
    std::size_t shown = 0;
    for (const auto& r : rows) {
        if (shown == worst) break;
        std::string why;
        if (r.state != health::HealthState::ok) why += std::string(health::state_name(r.state));
        if (r.link && r.link->downshifted) why += (why.empty() ? "" : ", ") + std::string("downshifted");
        if (const auto& c = r.counters) {
            for (std::size_t i = 0; i < health::error_counter_count; ++i) {
                if (!c->total[i]) continue;
                why += (why.empty() ? "" : ", ") + std::string(health::counter_name(static_cast<Counter>(i))) + " " +
                       std::to_string(c->total[i]);
                if (c->delta[i]) why += " (+" + std::to_string(c->delta[i]) + ")";
            }
            if (c->failure_history & 1) why += (why.empty() ? "" : ", ") + std::string("no answer last sweep");
        }
        if (why.empty()) break; // worst first: the rest are healthy too
        if (shown == 0) o += "worst ports:\n";
        o += "  " + describe_port(r) + ": " + why + "\n";
        ++shown;
    }
    if (shown == 0 && perf.ports_read > 0) o += "worst ports:  none (no errors counted)\n";
    return o;
}

} // namespace ibsm::daemon
