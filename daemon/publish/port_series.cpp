#include "daemon/publish/port_series.h"

#include "daemon/publish/status_ports.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace ibsm::daemon {
namespace {

using health::Counter;
using health::PortCounters;
using health::PortHealth;
using config::PortSeries;

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

// node_name: the node-name-map's name, else the description, so a
// dashboard can always group by it.
std::string node_labels(Guid node, const std::string& desc, const std::string& mapped)
{
    const std::string& name = mapped.empty() ? desc : mapped;
    return "node_guid=\"" + node.str() + "\",node_desc=\"" + prom_label_value(desc) + "\",node_name=\"" +
           prom_label_value(name) + "\"";
}

std::string port_labels(const PortHealth& r)
{
    std::string l = node_labels(r.id.node, r.node_desc, r.node_name) + ",port=\"" +
                    std::to_string(r.id.port.value()) + "\",remote_guid=\"";
    if (r.remote) l += r.remote->node.str();
    l += "\",remote_port=\"";
    if (r.remote) l += std::to_string(r.remote->port.value());
    return l + "\"";
}

void family(std::string& out, const std::string& name, const char* type, const std::string& help)
{
    out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

struct Roles {
    const std::vector<Guid>* switches;
    bool is_switch(Guid g) const { return switches && std::binary_search(switches->begin(), switches->end(), g); }
    bool fabric_port(const PortHealth& r) const
    {
        return r.remote && is_switch(r.id.node) && is_switch(r.remote->node);
    }
    // The switch end of a host link (none: neither end is a switch).
    std::optional<Guid> leaf_of(const PortHealth& r) const
    {
        if (is_switch(r.id.node)) return r.id.node;
        if (r.remote && is_switch(r.remote->node)) return r.remote->node;
        return std::nullopt;
    }
};

// Which series of a row the choice keeps.
struct Keep {
    bool error_zero;   // error totals also while 0
    bool traffic;      // traffic totals and every rate
    bool xmit_rate;    // the transmit rate alone
};

Keep keep(PortSeries s, bool fabric_port)
{
    switch (s) {
    case PortSeries::all: return {true, true, true};
    case PortSeries::fabric: return {false, false, fabric_port};
    case PortSeries::errors:
    case PortSeries::none: return {false, false, false};
    }
    return {false, false, false};
}

struct Leaf {
    std::string labels;
    std::uint64_t ports = 0;
    double xmit = 0, rcv = 0, wait_max = 0;
    std::uint64_t errors = 0;
    bool rates = false, wait = false;
};

std::string leaf_metrics(const std::vector<PortHealth>& rows, const Roles& roles)
{
    std::map<Guid, Leaf> leaves;
    for (const auto& r : rows) {
        if (roles.fabric_port(r)) continue;
        const auto leaf = roles.leaf_of(r);
        if (!leaf) continue;
        Leaf& l = leaves[*leaf];
        const auto& pc = r.counters;
        if (pc && pc->reads)
            for (std::size_t i = 0; i < health::error_counter_count; ++i) l.errors += pc->delta[i];
        if (r.id.node != *leaf) continue; // the host's end: its errors only
        if (l.labels.empty()) l.labels = node_labels(r.id.node, r.node_desc, r.node_name);
        ++l.ports;
        if (!pc || pc->interval_s <= 0) continue;
        l.rates = true;
        l.xmit += pc->xmit_bytes_per_s;
        l.rcv += pc->rcv_bytes_per_s;
        if (pc->supported[health::index(Counter::xmit_wait)]) {
            l.wait = true;
            l.wait_max = std::max(l.wait_max, pc->xmit_wait_share);
        }
    }
    // A leaf seen only from its hosts' ends (its own ports not monitored):
    // named by GUID alone.
    for (auto& [guid, l] : leaves)
        if (l.labels.empty()) l.labels = node_labels(guid, "", "");

    std::string out;
    family(out, "ibsmd_leaf_host_ports", "gauge", "Linked ports of a leaf switch that face hosts (not switches).");
    for (const auto& [g, l] : leaves) out += "ibsmd_leaf_host_ports{" + l.labels + "} " + number(double(l.ports)) + "\n";
    family(out, "ibsmd_leaf_host_errors", "gauge",
           "Error counter increments on a leaf's host links (both ends) over the last counter interval.");
    for (const auto& [g, l] : leaves) out += "ibsmd_leaf_host_errors{" + l.labels + "} " + number(double(l.errors)) + "\n";
    family(out, "ibsmd_leaf_host_xmit_bytes_per_second", "gauge",
           "Bytes per second a leaf sent to its hosts over the last counter interval.");
    for (const auto& [g, l] : leaves)
        if (l.rates) out += "ibsmd_leaf_host_xmit_bytes_per_second{" + l.labels + "} " + number(l.xmit) + "\n";
    family(out, "ibsmd_leaf_host_rcv_bytes_per_second", "gauge",
           "Bytes per second a leaf received from its hosts over the last counter interval.");
    for (const auto& [g, l] : leaves)
        if (l.rates) out += "ibsmd_leaf_host_rcv_bytes_per_second{" + l.labels + "} " + number(l.rcv) + "\n";
    family(out, "ibsmd_leaf_host_xmit_wait_ratio_max", "gauge",
           "Largest share of the last interval a leaf's host-facing port waited for credits (XmitWait).");
    for (const auto& [g, l] : leaves)
        if (l.wait) out += "ibsmd_leaf_host_xmit_wait_ratio_max{" + l.labels + "} " + number(l.wait_max) + "\n";
    return out;
}

} // namespace

std::shared_ptr<const std::vector<Guid>> switch_guids(const std::vector<Guid>& unsorted)
{
    auto v = unsorted;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return std::make_shared<const std::vector<Guid>>(std::move(v));
}

std::string port_metrics(const StatusPerf& perf, const std::vector<PortHealth>& rows, const PortSelection& sel)
{
    std::string out;
    family(out, "ibsmd_perf_sweeps_total", "counter", "Counter sweeps (performance management) run.");
    out += "ibsmd_perf_sweeps_total " + number(double(perf.sweeps)) + "\n";
    family(out, "ibsmd_perf_mads_total", "counter", "PerfMgt requests completed (answered or given up).");
    out += "ibsmd_perf_mads_total " + number(double(perf.mads)) + "\n";
    family(out, "ibsmd_perf_failures_total", "counter", "PerfMgt requests that found no answer or a bad status.");
    out += "ibsmd_perf_failures_total " + number(double(perf.failures)) + "\n";
    if (sel.series == PortSeries::none) return out;

    const Roles roles{sel.switches.get()};
    std::vector<Keep> kept;
    kept.reserve(rows.size());
    for (const auto& r : rows) kept.push_back(keep(sel.series, roles.fabric_port(r)));
    // Labels on first use: most rows yield no sample under `fabric`.
    std::vector<std::string> labels(rows.size());
    auto labels_of = [&](std::size_t k) -> const std::string& {
        if (labels[k].empty()) labels[k] = port_labels(rows[k]);
        return labels[k];
    };

    for (std::size_t i = 0; i < health::counter_count; ++i) {
        const auto c = static_cast<Counter>(i);
        const bool error = health::is_error_counter(c);
        if (!error && sel.series != PortSeries::all) continue;
        const std::string name = total_family(c);
        family(out, name, "counter",
               std::string(is_words(c) ? "Bytes counted by " : "Total of ") + std::string(health::counter_iba_name(c)) +
                   " since the port was first read (saturation, clears and resets folded in).");
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const auto& pc = rows[k].counters;
            if (!pc || !pc->supported[i] || !pc->reads) continue;
            if (error ? !kept[k].error_zero && pc->total[i] == 0 : !kept[k].traffic) continue;
            const double v = double(pc->total[i]) * (is_words(c) ? 4.0 : 1.0);
            out += name + "{" + labels_of(k) + "} " + number(v) + "\n";
        }
    }
    struct Gauge {
        const char* name;
        const char* help;
        double PortCounters::*field;
    };
    const Gauge gauges[] = {
        {"ibsmd_port_xmit_bytes_per_second", "Bytes sent per second over the last counter interval.",
         &PortCounters::xmit_bytes_per_s},
        {"ibsmd_port_rcv_bytes_per_second", "Bytes received per second over the last counter interval.",
         &PortCounters::rcv_bytes_per_s},
        {"ibsmd_port_xmit_pkts_per_second", "Packets sent per second over the last counter interval.",
         &PortCounters::xmit_pkts_per_s},
        {"ibsmd_port_rcv_pkts_per_second", "Packets received per second over the last counter interval.",
         &PortCounters::rcv_pkts_per_s},
        {"ibsmd_port_xmit_wait_ratio",
         "Share of the last interval the port had data to send and no credits (XmitWait, 1 us ticks assumed).",
         &PortCounters::xmit_wait_share},
    };
    for (const auto& g : gauges) {
        const bool xmit_rate = g.field == &PortCounters::xmit_bytes_per_s;
        if (sel.series != PortSeries::all && !(xmit_rate && sel.series == PortSeries::fabric)) continue;
        family(out, g.name, "gauge", g.help);
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const auto& pc = rows[k].counters;
            if (!pc || pc->interval_s <= 0) continue;
            if (!(xmit_rate ? kept[k].xmit_rate : kept[k].traffic)) continue;
            if (g.field == &PortCounters::xmit_wait_share && !pc->supported[health::index(Counter::xmit_wait)])
                continue;
            out += std::string(g.name) + "{" + labels_of(k) + "} " + number((*pc).*(g.field)) + "\n";
        }
    }
    return out + leaf_metrics(rows, roles);
}

} // namespace ibsm::daemon
