#include "daemon/publish/status.h"

#include "daemon/publish/status_drains.h"
#include "daemon/publish/status_mkey.h"
#include "daemon/publish/port_series.h"
#include "daemon/publish/status_ports.h"
#include "health/port_health_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ibsm::daemon {

namespace {

using Json = nlohmann::ordered_json;
constexpr int format_version = 1;

// "2026-11-23T16:50:01Z": unambiguous for another process and another TZ.
std::string iso_utc(double t)
{
    if (t <= 0) return "";
    const std::time_t secs = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// Local wall-clock time for people: "2026-11-23 17:50:01".
std::string local_time(double t)
{
    const std::time_t secs = static_cast<std::time_t>(t);
    std::tm tm{};
    localtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

std::string fixed(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string label_value(std::string_view v) { return prom_label_value(v); }

// Shortest text that reads back as the same double; integers without ".0".
std::string sample_value(double v)
{
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    // Prefer a shorter form when it round-trips.
    for (int p = 1; p < 17; ++p) {
        char s[40];
        std::snprintf(s, sizeof s, "%.*g", p, v);
        if (std::strtod(s, nullptr) == v) return s;
    }
    return buf;
}

class Exposition {
public:
    // One family: HELP and TYPE, then its samples (families stay contiguous).
    Exposition& family(const char* name, const char* type, const char* help)
    {
        name_ = name;
        out_ += "# HELP ";
        out_ += name;
        out_ += ' ';
        out_ += help;
        out_ += "\n# TYPE ";
        out_ += name;
        out_ += ' ';
        out_ += type;
        out_ += '\n';
        return *this;
    }
    Exposition& sample(double v, std::string_view labels = {})
    {
        out_ += name_;
        if (!labels.empty()) {
            out_ += '{';
            out_ += labels;
            out_ += '}';
        }
        out_ += ' ';
        out_ += sample_value(v);
        out_ += '\n';
        return *this;
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
    std::string name_;
};

std::string label(const char* name, std::string_view value)
{
    return std::string(name) + "=\"" + label_value(value) + "\"";
}

template <class T> T field(const Json& j, const char* key)
{
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception& e) {
        throw StatusFormatError(std::string("field '") + key + "': " + e.what());
    }
}

const Json& member(const Json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key)) throw StatusFormatError(std::string("field '") + key + "' missing");
    return j[key];
}

} // namespace

Json state_object(const DaemonStatus& s)
{
    Json j;
    j["format_version"] = format_version;
    j["pid"] = s.pid;
    j["started"] = s.started;
    j["started_utc"] = iso_utc(s.started);
    j["updated"] = s.updated;
    j["updated_utc"] = iso_utc(s.updated);
    j["sm_port_guid"] = s.sm_port_guid;
    j["state"] = s.state;
    j["reason"] = s.reason;
    j["generation"] = s.generation;
    j["engine"] = s.engine;
    j["sm_lid"] = s.sm_lid;
    j["fabric"] = Json{{"nodes", s.nodes}, {"switches", s.switches}, {"cas", s.cas}, {"links", s.links}};
    j["lids"] = Json{{"ports", s.lid_ports}, {"top", s.top_lid}, {"lmc", s.lmc}};
    if (s.report.generation)
        j["report"] = Json{
            {"path", s.report.path}, {"generation", s.report.generation}, {"written", s.report.written}};
    if (!s.control_socket.empty()) j["control"] = Json{{"socket", s.control_socket}};
    if (!s.metrics_url.empty()) j["metrics"] = Json{{"url", s.metrics_url}};
    Json phases = Json::array();
    for (const auto& p : s.last_sweep.phases)
        phases.push_back(Json{{"name", p.name}, {"seconds", p.seconds}, {"smps", p.smps}, {"detail", p.detail}});
    j["last_sweep"] = Json{{"kind", s.last_sweep.kind},
                           {"outcome", s.last_sweep.outcome},
                           {"finished", s.last_sweep.finished},
                           {"seconds", s.last_sweep.seconds},
                           {"smps", s.last_sweep.smps},
                           {"lft_blocks_sent", s.last_sweep.lft_blocks_sent},
                           {"phases", std::move(phases)}};
    const auto& c = s.counters;
    j["counters"] = Json{{"heavy_sweeps", c.heavy_sweeps},
                         {"reroutes", c.reroutes},
                         {"reroutes_unchanged", c.reroutes_unchanged},
                         {"light_sweeps", c.light_sweeps},
                         {"resumes", c.resumes},
                         {"sweep_failures", c.sweep_failures},
                         {"events", c.events},
                         {"smps_sent", c.smps_sent},
                         {"smp_requests", c.smp_requests},
                         {"smp_timeouts", c.smp_timeouts},
                         {"smp_drops", c.smp_drops},
                         {"smp_retries", c.smp_retries},
                         {"smp_failed", c.smp_failed},
                         {"mads_unsolicited", c.mads_unsolicited},
                         {"mads_malformed", c.mads_malformed},
                         {"mads_unmatched", c.mads_unmatched},
                         {"traps", c.traps}};
    Json traps = Json::array();
    for (const auto& t : s.traps)
        traps.push_back(Json{{"number", t.number}, {"received", t.received}, {"repeats", t.repeats}});
    j["traps"] = std::move(traps);
    Json totals = Json::array();
    for (const auto& p : s.phase_totals) totals.push_back(Json{{"name", p.name}, {"seconds", p.seconds}, {"runs", p.runs}});
    j["phase_totals"] = std::move(totals);
    Json events = Json::array();
    for (const auto& e : s.events) events.push_back(Json{{"time", e.time}, {"text", e.text}});
    j["events"] = std::move(events);
    j["perf"] = perf_to_json(s.perf);
    j["mkey"] = mkey_to_json(s.mkey);
    j["drains"] = drains_to_json(s.drains);
    j["ports"] = health::to_json(s.ports);
    return j;
}

std::string to_state_json(const DaemonStatus& s)
{
    // Reasons and events carry node descriptions: bytes that are not UTF-8
    // become U+FFFD.
    return state_object(s).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

DaemonStatus status_from_json(std::string_view text)
{
    Json j;
    try {
        j = Json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw StatusFormatError(std::string("not JSON: ") + e.what());
    }
    if (!j.is_object()) throw StatusFormatError("not a JSON object");
    const int version = field<int>(j, "format_version");
    if (version != format_version)
        throw StatusFormatError("format_version " + std::to_string(version) + ", this ibsm reads " +
                                std::to_string(format_version));
    DaemonStatus s;
    s.pid = field<long>(j, "pid");
    s.started = field<double>(j, "started");
    s.updated = field<double>(j, "updated");
    s.sm_port_guid = field<std::string>(j, "sm_port_guid");
    s.state = field<std::string>(j, "state");
    s.reason = field<std::string>(j, "reason");
    s.generation = field<std::uint64_t>(j, "generation");
    s.engine = field<std::string>(j, "engine");
    s.sm_lid = field<std::uint32_t>(j, "sm_lid");
    const Json& f = member(j, "fabric");
    s.nodes = field<std::uint64_t>(f, "nodes");
    s.switches = field<std::uint64_t>(f, "switches");
    s.cas = field<std::uint64_t>(f, "cas");
    s.links = field<std::uint64_t>(f, "links");
    const Json& l = member(j, "lids");
    s.lid_ports = field<std::uint64_t>(l, "ports");
    s.top_lid = field<std::uint32_t>(l, "top");
    s.lmc = field<unsigned>(l, "lmc");
    // Present only while dump.report has written one.
    if (j.contains("report")) {
        const Json& r = member(j, "report");
        s.report.path = field<std::string>(r, "path");
        s.report.generation = field<std::uint64_t>(r, "generation");
        s.report.written = field<double>(r, "written");
    }
    // Present while the daemon serves a control socket.
    if (j.contains("control")) s.control_socket = field<std::string>(member(j, "control"), "socket");
    if (j.contains("metrics")) s.metrics_url = field<std::string>(member(j, "metrics"), "url");
    const Json& ls = member(j, "last_sweep");
    s.last_sweep.kind = field<std::string>(ls, "kind");
    s.last_sweep.outcome = field<std::string>(ls, "outcome");
    s.last_sweep.finished = field<double>(ls, "finished");
    s.last_sweep.seconds = field<double>(ls, "seconds");
    s.last_sweep.smps = field<std::uint64_t>(ls, "smps");
    s.last_sweep.lft_blocks_sent = field<std::uint64_t>(ls, "lft_blocks_sent");
    for (const Json& p : member(ls, "phases"))
        s.last_sweep.phases.push_back(StatusPhase{field<std::string>(p, "name"), field<double>(p, "seconds"),
                                                  field<std::uint64_t>(p, "smps"), field<std::string>(p, "detail")});
    const Json& c = member(j, "counters");
    auto& k = s.counters;
    k.heavy_sweeps = field<std::uint64_t>(c, "heavy_sweeps");
    k.reroutes = field<std::uint64_t>(c, "reroutes");
    k.reroutes_unchanged = field<std::uint64_t>(c, "reroutes_unchanged");
    k.light_sweeps = field<std::uint64_t>(c, "light_sweeps");
    k.resumes = field<std::uint64_t>(c, "resumes");
    k.sweep_failures = field<std::uint64_t>(c, "sweep_failures");
    k.events = field<std::uint64_t>(c, "events");
    k.smps_sent = field<std::uint64_t>(c, "smps_sent");
    k.smp_requests = field<std::uint64_t>(c, "smp_requests");
    k.smp_timeouts = field<std::uint64_t>(c, "smp_timeouts");
    k.smp_drops = field<std::uint64_t>(c, "smp_drops");
    k.smp_retries = field<std::uint64_t>(c, "smp_retries");
    k.smp_failed = field<std::uint64_t>(c, "smp_failed");
    k.mads_unsolicited = field<std::uint64_t>(c, "mads_unsolicited");
    k.mads_malformed = field<std::uint64_t>(c, "mads_malformed");
    k.mads_unmatched = field<std::uint64_t>(c, "mads_unmatched");
    k.traps = field<std::uint64_t>(c, "traps");
    for (const Json& t : member(j, "traps"))
        s.traps.push_back(StatusTrap{field<std::uint16_t>(t, "number"), field<std::uint64_t>(t, "received"),
                                     field<std::uint64_t>(t, "repeats")});
    for (const Json& p : member(j, "phase_totals"))
        s.phase_totals.push_back(
            StatusPhaseTotal{field<std::string>(p, "name"), field<double>(p, "seconds"), field<std::uint64_t>(p, "runs")});
    for (const Json& e : member(j, "events"))
        s.events.push_back(StatusEvent{field<double>(e, "time"), field<std::string>(e, "text")});
    // Written by daemons that poll counters; older state.json files lack both.
    try {
        if (j.contains("perf")) s.perf = perf_from_json(j["perf"]);
        if (j.contains("ports")) s.ports = health::port_list_from_json(j["ports"]);
    } catch (const nlohmann::json::exception& e) {
        throw StatusFormatError(std::string("field 'perf': ") + e.what());
    } catch (const health::HealthJsonError& e) {
        throw StatusFormatError(e.what());
    }
    try {
        if (j.contains("mkey")) s.mkey = mkey_from_json(j["mkey"]);
    } catch (const nlohmann::json::exception& e) {
        throw StatusFormatError(std::string("field 'mkey': ") + e.what());
    }
    try {
        if (j.contains("drains")) s.drains = drains_from_json(j["drains"]);
    } catch (const nlohmann::json::exception& e) {
        throw StatusFormatError(std::string("field 'drains': ") + e.what());
    }
    return s;
}

std::string to_prometheus(const DaemonStatus& s) { return to_prometheus(s, PortSelection{}); }

std::string to_prometheus(const DaemonStatus& s, const PortSelection& sel, const std::vector<health::PortHealth>* rows)
{
    Exposition x;
    const bool up = s.state == "up" || s.state == "degraded";
    x.family("ibsmd_info", "gauge", "Always 1; labels name the SM port, the state and the routing engine.")
        .sample(1, label("sm_port_guid", s.sm_port_guid) + "," + label("state", s.state) + "," +
                       label("engine", s.engine));
    x.family("ibsmd_start_time_seconds", "gauge", "Start time of the daemon since the Unix epoch.").sample(s.started);
    x.family("ibsmd_subnet_up", "gauge", "1 when the subnet is up (degraded included), else 0.").sample(up ? 1 : 0);
    x.family("ibsmd_subnet_degraded", "gauge", "1 when the subnet is up on a routing that failed verification.")
        .sample(s.state == "degraded" ? 1 : 0);
    x.family("ibsmd_generation", "gauge", "Generation of the configuration last published.").sample(double(s.generation));
    x.family("ibsmd_lids", "gauge", "Ports holding a LID in the last generation.").sample(double(s.lid_ports));
    x.family("ibsmd_top_lid", "gauge", "Highest LID assigned in the last generation.").sample(s.top_lid);
    x.family("ibsmd_nodes", "gauge", "Nodes of the fabric in the last generation, by type.")
        .sample(double(s.switches), label("type", "switch"))
        .sample(double(s.cas), label("type", "ca"));
    x.family("ibsmd_links", "gauge", "Links of the fabric in the last generation.").sample(double(s.links));

    const auto& c = s.counters;
    x.family("ibsmd_sweeps_total", "counter", "Sweeps run, by kind (heavy: full discovery; light: SwitchInfo poll).")
        .sample(double(c.heavy_sweeps), label("kind", "heavy"))
        .sample(double(c.light_sweeps), label("kind", "light"));
    x.family("ibsmd_reroutes_total", "counter", "Re-routes of a delta over the last generation (resumes included).")
        .sample(double(c.reroutes));
    x.family("ibsmd_reroutes_unchanged_total", "counter", "Re-routes that found nothing changed.")
        .sample(double(c.reroutes_unchanged));
    x.family("ibsmd_resumes_total", "counter", "Partial outcomes finished by programming the failed part again.")
        .sample(double(c.resumes));
    x.family("ibsmd_sweep_failures_total", "counter", "Pieces of work that failed with an error.")
        .sample(double(c.sweep_failures));
    x.family("ibsmd_events_total", "counter", "Events (traps, port state changes, signals) folded into work.")
        .sample(double(c.events));
    x.family("ibsmd_smps_sent_total", "counter", "MADs sent, retries and responses included.").sample(double(c.smps_sent));
    x.family("ibsmd_smp_requests_total", "counter", "SMP requests completed (answered or given up).")
        .sample(double(c.smp_requests));
    x.family("ibsmd_smp_timeouts_total", "counter", "SMP attempts that timed out.").sample(double(c.smp_timeouts));
    x.family("ibsmd_smp_drops_total", "counter", "SMP attempts the port reported dropped at once.")
        .sample(double(c.smp_drops));
    x.family("ibsmd_smp_retries_total", "counter", "SMP attempts sent again after a timeout or drop.")
        .sample(double(c.smp_retries));
    x.family("ibsmd_smp_failed_total", "counter", "SMP requests that failed (gave up or bad status).")
        .sample(double(c.smp_failed));
    x.family("ibsmd_mads_received_total", "counter", "MADs received that were not answers to our requests, by kind.")
        .sample(double(c.mads_unsolicited), label("kind", "unsolicited"))
        .sample(double(c.mads_malformed), label("kind", "malformed"))
        .sample(double(c.mads_unmatched), label("kind", "unmatched"));
    x.family("ibsmd_traps_total", "counter", "Traps received, by trap number.");
    for (const auto& t : s.traps) x.sample(double(t.received), label("number", std::to_string(t.number)));
    x.family("ibsmd_trap_repeats_total", "counter", "Trap copies folded into an event already pending, by trap number.");
    for (const auto& t : s.traps) x.sample(double(t.repeats), label("number", std::to_string(t.number)));
    x.family("ibsmd_phase_seconds_total", "counter", "Seconds spent in each sweep phase, summed over sweeps.");
    for (const auto& p : s.phase_totals) x.sample(p.seconds, label("phase", p.name));
    x.family("ibsmd_phase_runs_total", "counter", "Sweeps that ran each phase.");
    for (const auto& p : s.phase_totals) x.sample(double(p.runs), label("phase", p.name));
    x.family("ibsmd_last_sweep_phase_seconds", "gauge", "Seconds of each phase of the last sweep.");
    for (const auto& p : s.last_sweep.phases) x.sample(p.seconds, label("phase", p.name));
    x.family("ibsmd_last_sweep_seconds", "gauge", "Duration of the last sweep or re-route.").sample(s.last_sweep.seconds);
    x.family("ibsmd_last_sweep_smps", "gauge", "SMPs of the last sweep or re-route.").sample(double(s.last_sweep.smps));
    x.family("ibsmd_last_sweep_time_seconds", "gauge", "End of the last sweep since the Unix epoch.")
        .sample(s.last_sweep.finished);
    return x.take() + mkey_metrics(s.mkey) + drains_metrics(s.drains) + port_metrics(s.perf, rows ? *rows : s.ports, sel);
}

std::string status_activity_text(const DaemonStatus& s)
{
    const auto& c = s.counters;
    std::string o;
    o += "sweeps:       " + std::to_string(c.heavy_sweeps) + " heavy, " + std::to_string(c.reroutes) + " re-routes (" +
         std::to_string(c.reroutes_unchanged) + " unchanged, " + std::to_string(c.resumes) + " resumes), " +
         std::to_string(c.light_sweeps) + " light, " + std::to_string(c.sweep_failures) + " failed; " +
         std::to_string(c.events) + " events\n";
    o += "SMPs:         " + std::to_string(c.smps_sent) + " sent, " + std::to_string(c.smp_timeouts) + " timeouts, " +
         std::to_string(c.smp_drops) + " drops, " + std::to_string(c.smp_retries) + " retries, " +
         std::to_string(c.smp_failed) + " failed\n";
    o += "traps:        " + std::to_string(c.traps) + " received";
    for (const auto& t : s.traps) {
        o += (&t == &s.traps.front() ? ": " : ", ");
        o += std::to_string(t.number) + " x" + std::to_string(t.received);
        if (t.repeats) o += " (" + std::to_string(t.repeats) + " repeats)";
    }
    o += "\n";
    o += mkey_status_text(s.mkey);
    o += drains_status_text(s.drains);
    if (!s.phase_totals.empty()) {
        o += "phase totals:";
        for (const auto& p : s.phase_totals) {
            o += (&p == &s.phase_totals.front() ? " " : ", ");
            o += p.name + " " + fixed("%.3f", p.seconds) + " s/" + std::to_string(p.runs);
        }
        o += "\n";
    }
    o += "last events:";
    if (s.events.empty()) o += " none";
    o += "\n";
    for (const auto& e : s.events) o += "  " + local_time(e.time) + "  " + e.text + "\n";
    return o;
}

std::string to_status_text(const DaemonStatus& s, double now, bool running)
{
    std::string o;
    o += "ibsmd (pid " + std::to_string(s.pid) + ", " + (running ? "running" : "NOT RUNNING") + "): ";
    if (s.state == "up")
        o += "SUBNET UP";
    else if (s.state == "degraded")
        o += "SUBNET UP, DEGRADED";
    else if (s.state == "down")
        o += "SUBNET NOT UP";
    else if (s.state == "standby")
        o += "STANDBY";
    else
        o += s.state;
    if (!s.reason.empty()) o += ": " + s.reason;
    o += "\n";
    o += "updated:      " + local_time(s.updated) + " (" + age_text(now - s.updated) + "), started " +
         local_time(s.started) + "\n";
    o += "generation:   " + std::to_string(s.generation) + "\n";
    o += "engine:       " + (s.engine.empty() ? std::string("-") : s.engine) + "\n";
    o += "SM port:      " + s.sm_port_guid + " LID " + std::to_string(s.sm_lid) + "\n";
    o += "fabric:       " + std::to_string(s.nodes) + " nodes (" + std::to_string(s.switches) + " switches, " +
         std::to_string(s.cas) + " CAs), " + std::to_string(s.links) + " links\n";
    o += "LIDs:         " + std::to_string(s.lid_ports) + " ports, top LID " + std::to_string(s.top_lid) + ", LMC " +
         std::to_string(s.lmc) + "\n";
    if (s.report.generation)
        o += "report:       " + s.report.path + " (generation " + std::to_string(s.report.generation) + ", " +
             age_text(now - s.report.written) + ")\n";
    if (!s.control_socket.empty()) o += "control:      " + s.control_socket + "\n";
    if (!s.metrics_url.empty()) o += "metrics:      " + s.metrics_url + "\n";
    const auto& l = s.last_sweep;
    if (l.kind.empty()) {
        o += "last sweep:   none yet\n";
    } else {
        o += "last sweep:   " + l.kind + ", " + l.outcome + ", " + fixed("%.3f", l.seconds) + " s, " +
             std::to_string(l.smps) + " SMPs, " + std::to_string(l.lft_blocks_sent) + " LFT blocks sent, " +
             age_text(now - l.finished) + "\n";
        for (const auto& p : l.phases) {
            char line[96];
            std::snprintf(line, sizeof line, "  %-10s %9.3f s %9llu SMPs  ", p.name.c_str(), p.seconds,
                          static_cast<unsigned long long>(p.smps));
            o += line + p.detail + "\n";
        }
    }
    o += ports_status_text(s.perf, s.ports, now);
    o += status_activity_text(s);
    return o;
}

} // namespace ibsm::daemon
