// Why: turn the YAML text of ibsmd.yaml into a Config, rejecting anything the
// schema does not describe so a typo never silently falls back to a default.
// Data structures: the schema is the table of known keys per section below
// (also the source of "did you mean" suggestions); each section has one
// function that fills its part of Config.
// Algorithm: load all YAML documents (more than one is an error), check the
// top-level mapping's keys, then walk each section in a fixed order; the first
// problem found throws ConfigError with file:line and dotted key.
#include "config/config.h"

#include "config/engines.h"
#include "config/metrics_listen.h"
#include "config/value_ranges.h"
#include "config/partitions_parse.h"
#include "config/qos_parse.h"
#include "config/yaml_reader.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace ibsm::config {

std::string_view to_string(PartEnforce e)
{
    switch (e) {
    case PartEnforce::both: return "both";
    case PartEnforce::in: return "in";
    case PartEnforce::out: return "out";
    case PartEnforce::off: return "off";
    }
    return "both";
}

std::string_view to_string(HealthAction a)
{
    switch (a) {
    case HealthAction::off: return "off";
    case HealthAction::report: return "report";
    case HealthAction::isolate: return "isolate";
    case HealthAction::no_discover: return "no_discover";
    }
    return "report";
}

namespace {

// The IBA names of health_counter_keys (perfquery's), for the error that
// names the key to write instead.
constexpr std::array<std::string_view, 12> iba_counter_names{
    "SymbolErrorCounter",       "LinkErrorRecoveryCounter", "LinkDownedCounter",
    "PortRcvErrors",            "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",         "PortXmitConstraintErrors", "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
};

using detail::Entry;
using detail::Reader;
using detail::Section;

constexpr std::array<std::string_view, 18> top_keys{
    "routing", "smp",     "sm",      "state_dir", "log",      "sweep",           "dump",             "perf",
    "partitions", "partitions_file", "part_enforce", "allow_both_pkeys", "control", "health", "qos", "security",
    "node_name_map", "metrics"};
constexpr std::array<std::string_view, 15> routing_keys{
    "engines", "no_fallback", "lmc", "root_guids", "root_guid_file", "max_vls", "switch_sl2vl", "vl_tables",
    "lid_assignment", "lid_order", "verify_incremental",
    "cn_guid_file", "io_guid_file", "guid_routing_order_file", "max_reverse_hops",
};
// Spelled as lidassign/path_configs.h and path_lids.h accept them (config/
// does not link lidassign; the daemon maps the names).
constexpr std::array<std::string_view, 5> lid_assignments{"color-l", "color-s", "greedy", "split-merge-l",
                                                          "split-merge-s"};
constexpr std::array<std::string_view, 3> smp_keys{"window", "timeout_ms", "retries"};
constexpr std::array<std::string_view, 10> sm_keys{
    "priority",         "port_guid", "ca",     "port", "subnet_prefix", "subnet_timeout", "packet_life_time",
    "polling_interval_s", "polling_retries", "sm_key",
};
constexpr std::array<std::string_view, 3> log_keys{"level", "file", "max_size_mb"};
constexpr std::array<std::string_view, 4> sweep_keys{
    "interval_s", "retry_interval_s", "debounce_ms", "debounce_max_ms",
};
constexpr std::array<std::string_view, 6> dump_keys{"lfts", "lfts_max_entries", "topology", "summary", "sl", "report"};
constexpr std::array<std::string_view, 1> control_keys{"socket"};
constexpr std::array<std::string_view, 3> perf_keys{"enabled", "interval_s", "window"};
constexpr std::array<std::string_view, 2> metrics_keys{"listen", "port_series"};

// The error counters (health_counter_keys), then the other rules.
constexpr std::array<std::string_view, 22> health_keys = [] {
    std::array<std::string_view, 22> keys{};
    std::size_t i = 0;
    for (auto k : health_counter_keys) keys[i++] = k;
    keys[i++] = "flapping";
    keys[i++] = "unresponsive";
    keys[i++] = "downshift";
    keys[i++] = "disable_port";
    keys[i++] = "reboot";
    keys[i++] = "noisy";
    keys[i++] = "set_errors";
    keys[i++] = "illegal";
    keys[i++] = "isolation_budget_percent";
    keys[i++] = "dry_run";
    return keys;
}();
constexpr std::array<std::string_view, 2> threshold_keys{"per_interval", "action"};
constexpr std::array<std::string_view, 3> flapping_keys{"downs", "window_s", "action"};
constexpr std::array<std::string_view, 3> unresponsive_keys{"timeouts", "sweeps", "action"};
constexpr std::array<std::string_view, 3> count_rule_keys{"count", "window_s", "action"};
constexpr std::array<std::string_view, 3> noisy_keys{"traps", "window_s", "action"};

// Keys of earlier versions: a file written for them fails with what to write now.
constexpr std::array<detail::RetiredKey, 1> retired_keys{{
    {"sweep.light_interval_s",
     "renamed to 'sweep.retry_interval_s' (the delay before trying again while the subnet is not up); "
     "'sweep.interval_s' is the light sweep period"},
}};

struct SchemaSection {
    std::string_view name;
    std::span<const std::string_view> keys;
};
// Sections in the order ibsmd.yaml documents them; state_dir is a top-level leaf.
constexpr std::array<SchemaSection, 11> sections{{
    {"routing", routing_keys},
    {"smp", smp_keys},
    {"sm", sm_keys},
    {"log", log_keys},
    {"sweep", sweep_keys},
    {"dump", dump_keys},
    {"control", control_keys},
    {"perf", perf_keys},
    {"metrics", metrics_keys},
    {"health", health_keys},
    {"security", detail::security_keys},
}};

// Every dotted key, sections included, for suggesting the right section
// for a misplaced key.
std::span<const std::string_view> all_keys()
{
    static const std::vector<std::string> storage = [] {
        std::vector<std::string> out(top_keys.begin(), top_keys.end());
        for (const auto& s : sections)
            for (auto k : s.keys) out.push_back(std::string(s.name) + "." + std::string(k));
        return out;
    }();
    static const std::vector<std::string_view> views(storage.begin(), storage.end());
    return views;
}

unsigned small(std::uint64_t v) { return static_cast<unsigned>(v); }

std::vector<std::string> read_engines(const Reader& r, const Entry& e)
{
    struct Named {
        std::string name;
        int line;
    };
    std::vector<Named> names;
    if (e.value.IsSequence()) {
        for (const auto& item : e.value) {
            const int line = Reader::line_of(item, e.line);
            if (!item.IsScalar() || item.Scalar().empty())
                r.fail(line, e.key, "expected an engine name, got " + detail::describe_node(item));
            names.push_back({item.Scalar(), line});
        }
    } else if (e.value.IsScalar()) {
        for (auto& n : split_engine_list(e.value.Scalar())) names.push_back({std::move(n), e.line});
    } else {
        r.fail(e.line, e.key,
               "expected a list of engine names or a comma-separated string, got " + detail::describe_node(e.value));
    }
    std::vector<std::string> out;
    for (auto& n : names) out.push_back(n.name);
    if (auto problem = check_engine_chain(out))
        r.fail(names.empty() ? e.line : names[problem->index].line, e.key, problem->message);
    return out;
}

std::vector<Guid> read_root_guids(const Reader& r, const Entry& e)
{
    if (!e.value.IsSequence())
        r.fail(e.line, e.key, "expected a list of node GUIDs, got " + detail::describe_node(e.value));
    std::vector<std::pair<Guid, int>> seen;
    for (const auto& item : e.value) {
        const int line = Reader::line_of(item, e.line);
        const Guid g(r.id64(item, line, e.key, "a node GUID"));
        if (g.is_zero()) r.fail(line, e.key, "GUID 0 is not a node GUID");
        for (const auto& [prev, prev_line] : seen)
            if (prev == g)
                r.fail(line, e.key, "GUID " + g.str() + " listed twice (first on line " + std::to_string(prev_line) + ")");
        seen.emplace_back(g, line);
    }
    std::vector<Guid> out;
    for (const auto& [g, line] : seen) out.push_back(g);
    return out;
}

// Two keys that say the same thing two ways: when both are given, the later
// one is the error, naming the earlier and what to do.
void exclusive(const Reader& r, const Entry* a, const Entry* b, const std::string& advice)
{
    if (!a || !b) return;
    const Entry& later = a->key_line > b->key_line ? *a : *b;
    const Entry& earlier = a->key_line > b->key_line ? *b : *a;
    r.fail(later.key_line, later.key,
           "cannot be combined with '" + earlier.key + "' (line " + std::to_string(earlier.key_line) + "); " + advice);
}

void read_routing(const Reader& r, const Entry& at, RoutingConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, routing_keys);
    if (auto* e = s.find("engines")) c.engines = read_engines(r, *e);
    if (auto* e = s.find("no_fallback")) c.no_fallback = r.boolean(*e);
    if (auto* e = s.find("verify_incremental")) c.verify_incremental = r.boolean(*e);
    if (auto* e = s.find("lmc")) c.lmc = small(r.integer(*e, limits::lmc));
    if (auto* e = s.find("root_guids")) c.root_guids = read_root_guids(r, *e);
    if (auto* e = s.find("root_guid_file")) c.root_guid_file = r.text(*e, "a path");
    if (auto* e = s.find("cn_guid_file")) c.cn_guid_file = r.text(*e, "a path");
    if (auto* e = s.find("io_guid_file")) c.io_guid_file = r.text(*e, "a path");
    if (auto* e = s.find("guid_routing_order_file")) c.guid_routing_order_file = r.text(*e, "a path");
    if (auto* e = s.find("max_reverse_hops"))
        c.max_reverse_hops = static_cast<unsigned>(r.integer(*e, limits::max_reverse_hops));
    if (auto* e = s.find("max_vls")) c.max_vls = small(r.integer(*e, limits::max_vls));
    for (auto [key, field] : {std::pair{"switch_sl2vl", &c.switch_sl2vl}, std::pair{"vl_tables", &c.vl_tables}}) {
        auto* e = s.find(key);
        if (!e) continue;
        const std::string mode = r.text(*e, "auto or always");
        if (mode == "auto")
            *field = SwitchSl2Vl::automatic;
        else if (mode == "always")
            *field = SwitchSl2Vl::always;
        else
            r.fail(e->line, e->key, "expected auto or always, got '" + mode + "'");
    }

    if (auto* e = s.find("lid_assignment")) {
        c.lid_assignment = r.text(*e, "a LID-assignment heuristic");
        if (std::find(lid_assignments.begin(), lid_assignments.end(), c.lid_assignment) == lid_assignments.end())
            r.fail(e->line, e->key,
                   "expected color-l, color-s, greedy, split-merge-l or split-merge-s, got '" + c.lid_assignment + "'");
    }
    if (auto* e = s.find("lid_order")) {
        const std::string order = r.text(*e, "colour-first or fixed-lmc");
        if (order == "colour-first" || order == "color-first")
            c.lid_order = "colour-first";
        else if (order == "fixed-lmc")
            c.lid_order = order;
        else
            r.fail(e->line, e->key, "expected colour-first or fixed-lmc, got '" + order + "'");
    }

    exclusive(r, s.find("root_guids"), s.find("root_guid_file"), "give the roots one way");
}

void read_smp(const Reader& r, const Entry& at, SmpConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, smp_keys);
    if (auto* e = s.find("window")) c.window = small(r.integer(*e, limits::smp_window));
    if (auto* e = s.find("timeout_ms"))
        c.timeout = std::chrono::milliseconds(r.integer(*e, limits::smp_timeout_ms));
    if (auto* e = s.find("retries")) c.retries = small(r.integer(*e, limits::smp_retries));
}

void read_sm(const Reader& r, const Entry& at, SmConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, sm_keys);
    if (auto* e = s.find("priority")) c.priority = small(r.integer(*e, limits::sm_priority));
    if (auto* e = s.find("port_guid")) {
        const Guid g(r.id64(e->value, e->line, e->key, "a port GUID"));
        if (g.is_zero()) r.fail(e->line, e->key, "GUID 0 is not a port GUID");
        c.port_guid = g;
    }
    if (auto* e = s.find("ca")) c.ca = r.text(*e, "a CA name (as in ibstat, e.g. mlx5_0)");
    if (auto* e = s.find("port"))
        c.port = PortNum(static_cast<std::uint8_t>(r.integer(*e, limits::sm_port)));
    if (auto* e = s.find("subnet_prefix")) c.subnet_prefix = r.id64(e->value, e->line, e->key, "a subnet prefix");
    if (auto* e = s.find("subnet_timeout")) c.subnet_timeout = small(r.integer(*e, limits::subnet_timeout));
    if (auto* e = s.find("packet_life_time")) c.packet_life_time = small(r.integer(*e, limits::packet_life_time));
    if (auto* e = s.find("polling_interval_s"))
        c.polling_interval = std::chrono::seconds(r.integer(*e, limits::sm_polling_interval_s));
    if (auto* e = s.find("polling_retries")) c.polling_retries = small(r.integer(*e, limits::sm_polling_retries));
    if (auto* e = s.find("sm_key")) c.sm_key = r.id64(e->value, e->line, e->key, "an SM_Key (64 bits)");

    for (auto leaf : {"ca", "port"})
        exclusive(r, s.find("port_guid"), s.find(leaf), "select the port by GUID or by CA and port number");
}

void read_log(const Reader& r, const Entry& at, LogConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, log_keys);
    if (auto* e = s.find("level")) {
        const std::string name = r.text(*e, "a log level (" + known_log_levels_text() + ")");
        auto level = parse_log_level(name);
        if (!level) r.fail(e->line, e->key, "unknown log level '" + name + "' (known: " + known_log_levels_text() + ")");
        c.level = *level;
    }
    if (auto* e = s.find("file")) c.file = r.text(*e, "a path");
    if (auto* e = s.find("max_size_mb")) c.max_size_mb = small(r.integer(*e, limits::log_max_size_mb));
}

// The debounce window may not exceed its cap. The key given later (or the
// only one given) is the error; the other is named with its line, or as the
// default when the file leaves it out.
void check_debounce(const Reader& r, const Section& s, const SweepConfig& c)
{
    if (c.debounce_max >= c.debounce) return;
    const Entry* window = s.find("debounce_ms");
    const Entry* cap = s.find("debounce_max_ms");
    const bool at_cap = cap && (!window || cap->key_line > window->key_line);
    const Entry& here = at_cap ? *cap : *window;
    const Entry* other = at_cap ? window : cap;
    const auto where = [&](std::chrono::milliseconds v) {
        return std::to_string(v.count()) + " ms, " +
               (other ? "line " + std::to_string(other->key_line) : std::string("the default"));
    };
    if (at_cap)
        r.fail(here.key_line, here.key,
               std::to_string(c.debounce_max.count()) + " ms is less than 'sweep.debounce_ms' (" + where(c.debounce) +
                   "); the cap must be at least the debounce window");
    r.fail(here.key_line, here.key,
           std::to_string(c.debounce.count()) + " ms is more than 'sweep.debounce_max_ms' (" + where(c.debounce_max) +
               "); the debounce window cannot exceed its cap");
}

void read_perf(const Reader& r, const Entry& at, PerfConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, perf_keys);
    if (auto* e = s.find("enabled")) c.enabled = r.boolean(*e);
    if (auto* e = s.find("interval_s")) c.interval = std::chrono::seconds(r.integer(*e, limits::perf_interval_s));
    if (auto* e = s.find("window")) c.window = small(r.integer(*e, limits::perf_window));
}

void read_metrics(const Reader& r, const Entry& at, MetricsConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, metrics_keys);
    if (auto* e = s.find("listen")) {
        auto parsed = parse_metrics_listen(r.text(*e, "PORT, ADDRESS:PORT or [IPv6]:PORT"));
        if (auto* why = std::get_if<std::string>(&parsed)) r.fail(e->line, e->key, *why);
        c.listen = std::get<MetricsListen>(std::move(parsed));
    }
    if (auto* e = s.find("port_series")) {
        const auto v = r.text(*e, "all, fabric, errors or none");
        if (v == "all") c.port_series = PortSeries::all;
        else if (v == "fabric") c.port_series = PortSeries::fabric;
        else if (v == "errors") c.port_series = PortSeries::errors;
        else if (v == "none") c.port_series = PortSeries::none;
        else r.fail(e->line, e->key, "expected all, fabric, errors or none, got '" + v + "'");
    }
}

void read_sweep(const Reader& r, const Entry& at, SweepConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, sweep_keys);
    if (auto* e = s.find("interval_s")) c.interval = std::chrono::seconds(r.integer(*e, limits::sweep_interval_s));
    if (auto* e = s.find("retry_interval_s"))
        c.retry_interval = std::chrono::seconds(r.integer(*e, limits::sweep_retry_interval_s));
    if (auto* e = s.find("debounce_ms"))
        c.debounce = std::chrono::milliseconds(r.integer(*e, limits::sweep_debounce_ms));
    if (auto* e = s.find("debounce_max_ms"))
        c.debounce_max = std::chrono::milliseconds(r.integer(*e, limits::sweep_debounce_max_ms));
    check_debounce(r, s, c);
}

void read_dump(const Reader& r, const Entry& at, DumpConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, dump_keys);
    if (auto* e = s.find("lfts")) c.lfts = r.boolean(*e);
    if (auto* e = s.find("lfts_max_entries")) c.lfts_max_entries = r.integer(*e, limits::dump_lfts_max_entries);
    if (auto* e = s.find("topology")) c.topology = r.boolean(*e);
    if (auto* e = s.find("summary")) c.summary = r.boolean(*e);
    if (auto* e = s.find("sl")) c.sl = r.boolean(*e);
    if (auto* e = s.find("report")) c.report = r.boolean(*e);
}

// A Unix socket path must be absolute (the daemon's working directory is
// not the operator's) and fit sockaddr_un's 108 bytes with its NUL.
void read_control(const Reader& r, const Entry& at, ControlConfig& c)
{
    const Section s = r.section(at.value, at.key, at.line, control_keys);
    if (auto* e = s.find("socket")) {
        std::string path = r.text(*e, "a path");
        if (!path.empty() && path.front() != '/')
            r.fail(e->line, e->key, "expected an absolute path, got '" + path + "'");
        if (path.size() > max_socket_path)
            r.fail(e->line, e->key,
                   "path of " + std::to_string(path.size()) + " bytes; a Unix socket path holds at most " +
                       std::to_string(max_socket_path));
        c.socket = std::move(path);
    }
}

// no_discover only where `node_rule` (reboot, noisy, set_errors, illegal):
// the other rules judge a link, not a node discovery could stop at.
HealthAction read_action(const Reader& r, const Entry& e, bool node_rule = false)
{
    const std::string expected = node_rule ? "off, report, isolate or no_discover" : "off, report or isolate";
    const std::string name = r.text(e, expected);
    for (auto a : {HealthAction::off, HealthAction::report, HealthAction::isolate})
        if (name == to_string(a)) return a;
    if (name == to_string(HealthAction::no_discover)) {
        if (node_rule) return HealthAction::no_discover;
        r.fail(e.line, e.key,
               "no_discover judges a node: only health.reboot, noisy, set_errors and illegal take it; expected " +
                   expected);
    }
    r.fail(e.line, e.key, "expected " + expected + ", got '" + name + "'");
}

// health.reboot: {count: 10, window_s: 900, action: report}; noisy names its count `traps`.
void read_count_rule(const Reader& r, const Entry& e, std::string_view count_key, HealthCountRule& rule)
{
    const Section s = r.section(e.value, e.key, e.line,
                                count_key == "traps" ? std::span<const std::string_view>(noisy_keys)
                                                     : std::span<const std::string_view>(count_rule_keys));
    if (auto* x = s.find(count_key)) rule.count = small(r.integer(*x, limits::health_event_count));
    if (auto* x = s.find("window_s")) rule.window = std::chrono::seconds(r.integer(*x, limits::health_event_window_s));
    if (auto* x = s.find("action")) rule.action = read_action(r, *x, true);
}

// `symbol_errors: 10` (report) or `symbol_errors: {per_interval: 10, action: isolate}`.
CounterThreshold read_threshold(const Reader& r, const Entry& e, CounterThreshold t)
{
    if (e.value.IsScalar()) {
        t.per_interval = r.integer(e, limits::health_per_interval);
        return t;
    }
    const Section s = r.section(e.value, e.key, e.line, threshold_keys);
    if (auto* x = s.find("per_interval")) t.per_interval = r.integer(*x, limits::health_per_interval);
    if (auto* x = s.find("action")) t.action = read_action(r, *x);
    return t;
}

void read_health(const Reader& r, const Entry& at, HealthConfig& c)
{
    // An IBA counter name where the snake_case one belongs gets the name to write.
    if (at.value.IsMap())
        for (const auto& kv : at.value) {
            if (!kv.first.IsScalar()) continue;
            const std::string key = kv.first.Scalar();
            if (std::find(health_keys.begin(), health_keys.end(), key) != health_keys.end()) continue;
            for (std::size_t i = 0; i < iba_counter_names.size(); ++i)
                if (key == iba_counter_names[i])
                    r.fail(Reader::line_of(kv.first, at.line), at.key + "." + key,
                           "'" + key + "' is the IBA name; write '" + std::string(health_counter_keys[i]) + "'");
        }
    const Section s = r.section(at.value, at.key, at.line, health_keys);
    for (std::size_t i = 0; i < health_counter_keys.size(); ++i)
        if (auto* e = s.find(health_counter_keys[i])) c.thresholds[i] = read_threshold(r, *e, c.thresholds[i]);
    if (auto* e = s.find("flapping")) {
        const Section f = r.section(e->value, e->key, e->line, flapping_keys);
        if (auto* x = f.find("downs")) c.flapping_downs = small(r.integer(*x, limits::health_flapping_downs));
        if (auto* x = f.find("window_s"))
            c.flapping_window = std::chrono::seconds(r.integer(*x, limits::health_flapping_window_s));
        if (auto* x = f.find("action")) c.flapping_action = read_action(r, *x);
    }
    if (auto* e = s.find("unresponsive")) {
        const Section u = r.section(e->value, e->key, e->line, unresponsive_keys);
        if (auto* x = u.find("sweeps")) c.unresponsive_sweeps = small(r.integer(*x, limits::health_unresponsive_sweeps));
        if (auto* x = u.find("timeouts"))
            c.unresponsive_timeouts = small(r.integer(*x, limits::health_unresponsive_timeouts));
        if (auto* x = u.find("action")) c.unresponsive_action = read_action(r, *x);
        if (c.unresponsive_timeouts > c.unresponsive_sweeps) {
            const Entry* bad = u.find("timeouts") ? u.find("timeouts") : u.find("sweeps");
            r.fail(bad->key_line, bad->key,
                   std::to_string(c.unresponsive_timeouts) + " timeouts cannot happen in the last " +
                       std::to_string(c.unresponsive_sweeps) + " sweeps; make timeouts at most sweeps");
        }
    }
    if (auto* e = s.find("downshift")) c.downshift_action = read_action(r, *e);
    if (auto* e = s.find("disable_port")) c.disable_port = r.boolean(*e);
    if (auto* e = s.find("reboot")) read_count_rule(r, *e, "count", c.reboot);
    if (auto* e = s.find("noisy")) read_count_rule(r, *e, "traps", c.noisy);
    if (auto* e = s.find("set_errors")) read_count_rule(r, *e, "count", c.set_errors);
    if (auto* e = s.find("illegal")) read_count_rule(r, *e, "count", c.illegal);
    if (auto* e = s.find("isolation_budget_percent"))
        c.isolation_budget_percent = small(r.integer(*e, limits::health_isolation_budget_percent));
    if (auto* e = s.find("dry_run")) c.dry_run = r.boolean(*e);
}

// Where each document of a YAML stream starts, and where its first node is.
// yaml-cpp 0.7 (Debian 12) never consumes a ',' at the top level of a
// document (",", "\"x\",", "[a],"): YAML::LoadAll then returns empty
// documents without end and runs out of memory (found by
// tests/fuzz/fuzz_config). Counting documents with the event parser,
// stopping at the second, bounds the work; only a single document is then
// loaded.
class DocumentStarts final : public YAML::EventHandler {
public:
    struct Start {
        YAML::Mark at;
        YAML::Mark first_node;
        bool has_node = false;
    };
    std::vector<Start> docs;

    void OnDocumentStart(const YAML::Mark& mark) override { docs.push_back(Start{mark, mark, false}); }
    void OnDocumentEnd() override {}
    // An empty document's null node sits at the end of the input: its
    // '---' is the better line to name.
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override
    {
        node(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        node(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        node(mark);
    }
    void OnMapEnd() override {}

private:
    void node(const YAML::Mark& mark)
    {
        if (!docs.empty() && !docs.back().has_node) {
            docs.back().first_node = mark;
            docs.back().has_node = true;
        }
    }
};


} // namespace

std::vector<std::string> schema_keys()
{
    std::vector<std::string> out;
    for (const auto& s : sections)
        for (auto k : s.keys) out.push_back(std::string(s.name) + "." + std::string(k));
    out.emplace_back("state_dir");
    out.emplace_back("node_name_map");
    out.emplace_back("partitions");
    out.emplace_back("partitions_file");
    out.emplace_back("part_enforce");
    out.emplace_back("allow_both_pkeys");
    out.emplace_back("qos");
    return out;
}

std::vector<std::string> effective_engine_chain(const RoutingConfig& routing)
{
    std::vector<std::string> chain = routing.engines;
    if (routing.no_fallback) return chain;
    for (const auto& e : chain)
        if (e == fallback_engine) return chain;
    chain.emplace_back(fallback_engine);
    return chain;
}

Config parse_config(std::string_view yaml_text, std::string_view name_for_errors)
{
    const Reader r(name_for_errors, all_keys(), retired_keys);
    const std::string text(yaml_text);
    DocumentStarts starts;
    YAML::Node root;
    try {
        std::istringstream in(text);
        YAML::Parser parser(in);
        while (starts.docs.size() < 2 && parser.HandleNextDocument(starts)) {
        }
        if (starts.docs.size() > 1) {
            const auto& second = starts.docs[1];
            const auto at = static_cast<std::size_t>(second.at.pos);
            // A second document starts at '---' (or after '...'); anything
            // else is a token the first document could not take.
            if (at < text.size() && text.compare(at, 3, "---") != 0)
                r.fail(second.at.line + 1, "",
                       std::string("YAML syntax error: unexpected '") + text[at] +
                           "' (ibsmd reads a single YAML document)");
            r.fail(second.has_node ? second.first_node.line + 1 : second.at.line + 1, "",
                   "more than one YAML document ('---'); ibsmd reads a single document");
        }
        if (starts.docs.empty()) return Config{};
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        const int line = e.mark.is_null() ? 1 : e.mark.line + 1;
        r.fail(line, "", "YAML syntax error: " + e.msg);
    }

    Config c;
    r.check_quotes_closed(root, yaml_text);
    const Section top = r.section(root, "", Reader::line_of(root, 1), top_keys);
    if (auto* e = top.find("routing")) read_routing(r, *e, c.routing);
    if (auto* e = top.find("smp")) read_smp(r, *e, c.smp);
    if (auto* e = top.find("sm")) read_sm(r, *e, c.sm);
    if (auto* e = top.find("state_dir")) c.state_dir = r.text(*e, "a path");
    if (auto* e = top.find("node_name_map")) c.node_name_map = r.text(*e, "a path");
    if (auto* e = top.find("log")) read_log(r, *e, c.log);
    if (auto* e = top.find("sweep")) read_sweep(r, *e, c.sweep);
    if (auto* e = top.find("dump")) read_dump(r, *e, c.dump);
    if (auto* e = top.find("perf")) read_perf(r, *e, c.perf);
    if (auto* e = top.find("metrics")) read_metrics(r, *e, c.metrics);
    if (auto* e = top.find("partitions")) c.partitions = detail::read_partitions(r, *e);
    if (auto* e = top.find("partitions_file")) {
        c.partitions_file = r.text(*e, "a path");
        if (!c.partitions.empty())
            r.fail(e->line, e->key,
                   "give the partitions either in 'partitions' or in a partitions_file, not in both (the file's "
                   "statements may be written as 'partitions' entries)");
    }
    if (auto* e = top.find("part_enforce")) {
        const auto v = r.text(*e, "both, in, out or off");
        if (v == "both") c.part_enforce = PartEnforce::both;
        else if (v == "in") c.part_enforce = PartEnforce::in;
        else if (v == "out") c.part_enforce = PartEnforce::out;
        else if (v == "off") c.part_enforce = PartEnforce::off;
        else r.fail(e->line, e->key, "expected both, in, out or off, got '" + v + "'");
    }
    if (auto* e = top.find("allow_both_pkeys")) c.allow_both_pkeys = r.boolean(*e);
    if (auto* e = top.find("control")) read_control(r, *e, c.control);
    if (auto* e = top.find("health")) read_health(r, *e, c.health);
    // After routing (VLs below max_vls) and partitions (named in groups and rules).
    if (auto* e = top.find("qos")) c.qos = detail::read_qos(r, *e, c.partitions, c.routing.max_vls);
    if (auto* e = top.find("security")) c.security = detail::read_security(r, *e);
    return c;
}

Config load_config_file(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ConfigError(path + ": cannot read: is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(path + ": cannot open: " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw ConfigError(path + ": read error: " + std::strerror(errno));
    return parse_config(text.str(), path);
}

} // namespace ibsm::config
