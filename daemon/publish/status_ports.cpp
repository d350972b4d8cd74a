#include "daemon/publish/status_ports.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ibsm::daemon {
namespace {

using Json = nlohmann::json;
using health::Counter;

std::string number(double v)
{
    if (std::isnan(v)) return "NaN";
    char buf[40];
    // Counts as plain integers ("4000", not "4e+03"), exact below 2^53.
    if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    for (int p = 1; p < 17; ++p) {
        std::snprintf(buf, sizeof buf, "%.*g", p, v);
        if (std::strtod(buf, nullptr) == v) return buf;
    }
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// The metric name of a counter: data counters are exported in bytes.
std::string total_family(Counter c)
{
    if (c == Counter::xmit_data) return "ibsmd_port_xmit_bytes_total";
    if (c == Counter::rcv_data) return "ibsmd_port_rcv_bytes_total";
    return "ibsmd_port_" + std::string(health::counter_name(c)) + "_total";
}

bool is_words(Counter c) { return c == Counter::xmit_data || c == Counter::rcv_data; }

std::string port_labels(const health::PortHealth& r)
{
    // node_name: the node-name-map's name, else the description, so a
    // dashboard can always group by it.
    const std::string& name = r.node_name.empty() ? r.node_desc : r.node_name;
    std::string l = "node_guid=\"" + r.id.node.str() + "\",node_desc=\"" + prom_label_value(r.node_desc) +
                    "\",node_name=\"" + prom_label_value(name) + "\",port=\"" + std::to_string(r.id.port.value()) + "\",remote_guid=\"";
    if (r.remote) l += r.remote->node.str();
    l += "\",remote_port=\"";
    if (r.remote) l += std::to_string(r.remote->port.value());
    return l + "\"";
}

void family(std::string& out, const std::string& name, const char* type, const char* help)
{
    out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

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

std::string port_metrics(const StatusPerf& perf, const std::vector<health::PortHealth>& rows)
{
    std::string out;
    family(out, "ibsmd_perf_sweeps_total", "counter", "Counter sweeps (performance management) run.");
    out += "ibsmd_perf_sweeps_total " + number(double(perf.sweeps)) + "\n";
    family(out, "ibsmd_perf_mads_total", "counter", "PerfMgt requests completed (answered or given up).");
    out += "ibsmd_perf_mads_total " + number(double(perf.mads)) + "\n";
    family(out, "ibsmd_perf_failures_total", "counter", "PerfMgt requests that found no answer or a bad status.");
    out += "ibsmd_perf_failures_total " + number(double(perf.failures)) + "\n";

    std::vector<std::string> labels;
    labels.reserve(rows.size());
    for (const auto& r : rows) labels.push_back(port_labels(r));
    for (std::size_t i = 0; i < health::counter_count; ++i) {
        const auto c = static_cast<Counter>(i);
        const std::string name = total_family(c);
        const std::string help = std::string(is_words(c) ? "Bytes counted by " : "Total of ") +
                                 std::string(health::counter_iba_name(c)) +
                                 " since the port was first read (saturation, clears and resets folded in).";
        family(out, name, "counter", help.c_str());
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const auto& pc = rows[k].counters;
            if (!pc || !pc->supported[i] || !pc->reads) continue;
            const double v = double(pc->total[i]) * (is_words(c) ? 4.0 : 1.0);
            out += name + "{" + labels[k] + "} " + number(v) + "\n";
        }
    }
    struct Gauge {
        const char* name;
        const char* help;
        double health::PortCounters::*field;
    };
    const Gauge gauges[] = {
        {"ibsmd_port_xmit_bytes_per_second", "Bytes sent per second over the last counter interval.",
         &health::PortCounters::xmit_bytes_per_s},
        {"ibsmd_port_rcv_bytes_per_second", "Bytes received per second over the last counter interval.",
         &health::PortCounters::rcv_bytes_per_s},
        {"ibsmd_port_xmit_pkts_per_second", "Packets sent per second over the last counter interval.",
         &health::PortCounters::xmit_pkts_per_s},
        {"ibsmd_port_rcv_pkts_per_second", "Packets received per second over the last counter interval.",
         &health::PortCounters::rcv_pkts_per_s},
        {"ibsmd_port_xmit_wait_ratio",
         "Share of the last interval the port had data to send and no credits (XmitWait, 1 us ticks assumed).",
         &health::PortCounters::xmit_wait_share},
    };
    for (const auto& g : gauges) {
        family(out, g.name, "gauge", g.help);
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const auto& pc = rows[k].counters;
            if (!pc || pc->interval_s <= 0) continue;
            if (g.field == &health::PortCounters::xmit_wait_share && !pc->supported[health::index(Counter::xmit_wait)])
                continue;
            out += std::string(g.name) + "{" + labels[k] + "} " + number((*pc).*(g.field)) + "\n";
        }
    }
    return out;
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
