// ibsmd's configuration as typed values, and the YAML loader that builds it.
//
// Every key is optional: Config{} (no file at all) brings up a fat-tree with
// the ftree engine, MinHop as fallback, LMC 0, on the first usable local port.
// The schema, with its ranges, is documented in systemd/ibsmd.yaml.
//
// Errors: anything wrong in the text (YAML syntax, unknown or duplicate key,
// wrong type, value out of range, conflicting keys) throws ConfigError whose
// what() names file, 1-based line and the full dotted key, e.g.
//   ibsmd.yaml:12: key 'routing.engines': unknown engine 'ftre' (known: ftree, ...)
// Pure apart from load_config_file, which reads the one file it is given.
#pragma once

#include "config/qos_config.h"
#include "mad/types.h"
#include "partition/rules.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::config {

class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Same names and order as spdlog's levels, so the daemon can map them 1:1.
enum class LogLevel { trace, debug, info, warn, error, critical, off };

std::string_view to_string(LogLevel level);
std::optional<LogLevel> parse_log_level(std::string_view name);
// "trace|debug|info|warn|error|critical|off"
std::string known_log_levels_text();

enum class SwitchSl2Vl { automatic, always };

std::string_view to_string(SwitchSl2Vl mode); // "auto" | "always"

struct RoutingConfig {
    // Engines tried in order until one's tables pass the verification gate
    // (see engines.h). The default is safe on every fabric kind: ftree keeps
    // fat-trees non-blocking (it refuses anything that is not one tree);
    // dfsssp-or-nue takes every other fabric deadlock-free within the VLs
    // available (dfsssp where its layers fit and score no worse, else nue);
    // updn, on one VL, should those tables ever fail the gate.
    std::vector<std::string> engines{"ftree", "dfsssp-or-nue", "updn"};
    // When false, MinHop is appended to the chain unless already in it.
    bool no_fallback = false;
    unsigned lmc = 0;
    // Fat-tree roots by node GUID; empty means the engine finds them itself.
    std::vector<Guid> root_guids;
    // Alternative to root_guids: a file with one GUID per line. Only the path
    // is kept here; the daemon reads the file.
    std::optional<std::string> root_guid_file;
    // OpenSM's GUID files, read by the daemon (topology/node_map_file.h
    // format; routing/guid_roles.h says what each engine does with them):
    // compute nodes and I/O nodes by port GUID (ftree, sssp, dfsssp, nue),
    // and the destinations to route first, in order (minhop, sssp, dfsssp, nue).
    std::optional<std::string> cn_guid_file;
    std::optional<std::string> io_guid_file;
    std::optional<std::string> guid_routing_order_file;
    // ftree/sftree: how many times a CA's route to an I/O node of
    // io_guid_file hanging above the leaves may go down and up again
    // (OpenSM's max_reverse_hops; routing/fattree/reverse_hops.h).
    unsigned max_reverse_hops = 0;
    // Cap on data VLs per port (the daemon rounds down to a count PortInfo
    // OperationalVLs can express: 1, 2, 4, 8 or 15).
    unsigned max_vls = 8;
    // SL-to-VL tables of switches that need one SMP per (input, output) port
    // pair (no OptimizedSLtoVLMappingProgramming): `auto` programs them only
    // when the routing engine needs more than one VL, `always` every time.
    SwitchSl2Vl switch_sl2vl = SwitchSl2Vl::automatic;
    // SL-to-VL tables of CA ports and VL arbitration tables of every port:
    // `auto` programs them only when the engine needs more than one VL or a
    // QoS policy weighs VLs (with every SL on VL 0 the tables a port came up
    // with carry its traffic), `always` every time. Same values as above.
    SwitchSl2Vl vl_tables = SwitchSl2Vl::automatic;
    // Per-pair path engines (pathsel, shortest-widest, updn-paths; seed 002):
    // the heuristic that splits each destination's paths into configurations
    // (one LID each) — color-l, color-s, greedy, split-merge-l, split-merge-s
    // — and the order of routing and LID assignment: colour-first (each CA
    // port gets the LMC its configurations need: fewest LIDs, but a re-route
    // may move a port's block) or fixed-lmc (routing.lmc LIDs per port
    // assigned before routing: LIDs never move, a destination needing more
    // makes the engine refuse). Ignored by destination-based engines.
    std::string lid_assignment = "color-l";
    std::string lid_order = "colour-first";
    // A debugging aid: after every re-route the incremental gate judged
    // (routing/incremental_gate.h), run the full gate too and log an error
    // naming the first difference (the full gate's verdict is kept).
    bool verify_incremental = false;

    bool operator==(const RoutingConfig&) const = default;
};

struct SmpConfig {
    unsigned window = 16;
    std::chrono::milliseconds timeout{100};
    unsigned retries = 3;

    bool operator==(const SmpConfig&) const = default;
};

// Which local port the SM runs on: port_guid, or ca and/or port (a missing ca
// means the first CA, a missing port the first usable port of it); nothing
// set means the first usable port of the first CA. port_guid excludes the other two.
struct SmConfig {
    unsigned priority = 1;
    std::optional<Guid> port_guid;
    std::optional<std::string> ca;
    std::optional<PortNum> port;
    std::uint64_t subnet_prefix = 0xfe80000000000000ULL;
    unsigned subnet_timeout = 18;
    unsigned packet_life_time = 18;
    // Master/standby (IBA 14.4.1, daemon/sm/sm_state.h). SM_Key: SMInfo
    // answers carry it only to a requester that presents it, and other SMs
    // count only when they answer with it (or when it is 0).
    std::uint64_t sm_key = 0;
    // A STANDBY SM asks the master's SMInfo every polling_interval and takes
    // over after polling_retries + 1 polls in a row went unanswered.
    std::chrono::seconds polling_interval{10};
    unsigned polling_retries = 4;

    bool operator==(const SmConfig&) const = default;
};

struct LogConfig {
    LogLevel level = LogLevel::info;
    // Used when ibsmd is not in the foreground. In /var/log/ibsmd/, the
    // directory the systemd unit's LogsDirectory= makes writable.
    std::string file = "/var/log/ibsmd/ibsmd.log";
    // Cap of the log file in MiB (0: none): when a line would take it past
    // the cap, the file becomes FILE.1 (replacing an older one) and a new
    // file starts, so the log takes at most twice the cap.
    unsigned max_size_mb = 256;

    bool operator==(const LogConfig&) const = default;
};

// When the SM looks at the fabric again (docs/design.md, "The long-running SM").
struct SweepConfig {
    // sweep.interval_s: period of the light sweep (one SwitchInfo Get per
    // switch for PortStateChange); 0 disables light sweeps.
    std::chrono::seconds interval{10};
    // sweep.retry_interval_s: while the subnet is not up (or not everything
    // was confirmed), the delay before the next attempt. Was
    // sweep.light_interval_s, which named it wrongly.
    std::chrono::seconds retry_interval{10};
    // sweep.debounce_ms: events arriving within this window of the previous
    // one are folded into one re-route.
    std::chrono::milliseconds debounce{20};
    // sweep.debounce_max_ms: a storm of events cannot postpone routing
    // longer than this after its first event.
    std::chrono::milliseconds debounce_max{1000};

    bool operator==(const SweepConfig&) const = default;
};

// Which files the daemon writes into state_dir after a sweep (guid2lid is
// state, not a dump, and is always written). Written off the event loop and
// only when their content changed.
struct DumpConfig {
    bool lfts = true;     // lfts.dump (dump_fts text; 1.5 GB at 11 664 hosts)
    bool topology = true; // topology.net (ibnetdiscover text with the LIDs)
    bool summary = true;  // summary.txt
    bool sl = true;       // sl.txt, the SL of every pair, when routing uses SLs
    // report.html, the route-quality report of `ibsm report` (report/html.h):
    // off by default, since it runs the whole analysis for every generation.
    bool report = false;
    // lfts.dump is left out (and an older one removed) when the fabric's
    // forwarding tables have more entries than this (switches x LIDs; about
    // 70 bytes of text each): 6 GB and a minute of writing at 27 648 hosts.
    // 0: no limit.
    std::uint64_t lfts_max_entries = 25'000'000;

    bool operator==(const DumpConfig&) const = default;
};

// perf: the counter poller (performance management, IBA 16.1): every
// interval it reads PortCounters (and PortCountersExtended where supported)
// of every linked port, at a lower priority than SMPs. Reloadable.
struct PerfConfig {
    bool enabled = true;                   // perf.enabled
    std::chrono::seconds interval{60};     // perf.interval_s: one counter sweep per interval
    unsigned window = 4;                   // perf.window: PMA requests in flight at most

    bool operator==(const PerfConfig&) const = default;
};

// metrics: what Prometheus reads. `port_series` chooses the per-port series
// of metrics.prom and the HTTP endpoint alike (daemon/publish/port_series.h):
//   all     every family of every linked port (22 per port: small fabrics);
//   fabric  switch-to-switch ports' transmit rate, error counters of any
//           port once non-zero, per-leaf aggregates of the host links
//           (the default: 116 k series at 27 648 hosts, docs/scale.md);
//   errors  error counters once non-zero and the per-leaf aggregates;
//   none    no port or leaf series, only the SM's own.
// Reloadable. `listen` serves them over HTTP (GET /metrics, gzip when asked):
// off when empty; restart-only.
enum class PortSeries : std::uint8_t { all, fabric, errors, none };
std::string_view to_string(PortSeries p); // "all" | "fabric" | "errors" | "none"

struct MetricsListen {
    // A numeric IPv4 or IPv6 address ("127.0.0.1", "::1", "0.0.0.0").
    std::string address;
    std::uint16_t port = 0;
    bool operator==(const MetricsListen&) const = default;
};
// "127.0.0.1:9683", "[::1]:9683".
std::string to_string(const MetricsListen& l);

struct MetricsConfig {
    // metrics.listen: "PORT" (loopback), "ADDRESS:PORT" or "[IPv6]:PORT"; unset: no endpoint.
    std::optional<MetricsListen> listen;
    PortSeries port_series = PortSeries::fabric;
    bool operator==(const MetricsConfig&) const = default;
};

// partitions: OpenSM's partitions.conf rules (partition/rules.h), written
// in YAML (`partitions:`) or read from `partitions_file` (which fills
// `partitions` when the daemon loads the configuration: see
// daemon/service/settings.h). Reloadable: only the ports whose tables
// change are programmed again.
using PartitionConfig = partition::Rule;

// part_enforce: which direction switch ports facing CAs filter by P_Key
// (PortInfo PartitionEnforcementInbound/Outbound), as OpenSM's option.
enum class PartEnforce : std::uint8_t { both, in, out, off };
std::string_view to_string(PartEnforce e);

// control: the daemon's control socket (`ibsm status`, `ports`, `resweep`,
// `log-level`, `events` talk to the running SM over it). Restart-only.
// sockaddr_un::sun_path is 108 bytes with the terminating NUL.
inline constexpr std::size_t max_socket_path = 107;

struct ControlConfig {
    // control.socket: a Unix socket path; empty: $RUNTIME_DIRECTORY/control.sock
    // when systemd sets RUNTIME_DIRECTORY (RuntimeDirectory=ibsmd), else
    // <state_dir>/control.sock (daemon/control/socket_rules.h).
    std::string socket;

    bool operator==(const ControlConfig&) const = default;
};

// health: the health policy (health/health_policy.h; docs/operations.md, "Health
// policy"). Every rule reports by default; `isolate` takes the link out of
// the routing unless that would cut a node off; `no_discover` (the
// unhealthy-node conditions only) stops discovery going beyond a switch.
enum class HealthAction { off, report, isolate, no_discover };
std::string_view to_string(HealthAction a); // "off" | "report" | "isolate" | "no_discover"

// The error counters a threshold may name, in health::Counter order (the
// snake_case names of health::counter_name; config does not link health,
// tests/unit/health checks the two lists agree).
inline constexpr std::array<std::string_view, 12> health_counter_keys{
    "symbol_errors",          "link_error_recovery",         "link_downed",
    "rcv_errors",             "rcv_remote_physical_errors",  "rcv_switch_relay_errors",
    "xmit_discards",          "xmit_constraint_errors",      "rcv_constraint_errors",
    "local_link_integrity_errors", "excessive_buffer_overrun_errors", "vl15_dropped",
};

struct CounterThreshold {
    std::uint64_t per_interval = 0; // a counter interval's increase that fires the rule; 0: off
    HealthAction action = HealthAction::report;
    bool operator==(const CounterThreshold&) const = default;
};

// health.reboot / noisy / set_errors / illegal: `count` events within
// `window` (noisy: more than `count` traps), then `action`.
struct HealthCountRule {
    unsigned count = 0;
    std::chrono::seconds window{0};
    HealthAction action = HealthAction::report;
    bool operator==(const HealthCountRule&) const = default;
};

struct HealthConfig {
    // Indexed as health_counter_keys. Relay errors and constraint errors
    // count packets the fabric drops by design (unknown DLIDs, partition
    // enforcement), VL15 drops happen under SMP bursts: off by default.
    std::array<CounterThreshold, 12> thresholds{{
        {10, HealthAction::report},  {3, HealthAction::report},   {3, HealthAction::report},
        {10, HealthAction::report},  {10, HealthAction::report},  {0, HealthAction::report},
        {100, HealthAction::report}, {0, HealthAction::report},   {0, HealthAction::report},
        {1, HealthAction::report},   {1, HealthAction::report},   {0, HealthAction::report},
    }};
    unsigned flapping_downs = 5;
    std::chrono::seconds flapping_window{60};
    HealthAction flapping_action = HealthAction::report;
    unsigned unresponsive_timeouts = 3;
    unsigned unresponsive_sweeps = 5;
    HealthAction unresponsive_action = HealthAction::report;
    HealthAction downshift_action = HealthAction::report;
    bool disable_port = false;
    // NVIDIA's unhealthy-port conditions, with its defaults (docs/operations.md,
    // "Unhealthy ports").
    HealthCountRule reboot{10, std::chrono::seconds(900), HealthAction::report};
    HealthCountRule noisy{250, std::chrono::seconds(60), HealthAction::report};
    HealthCountRule set_errors{5, std::chrono::seconds(600), HealthAction::off};
    HealthCountRule illegal{1, std::chrono::seconds(600), HealthAction::report};
    // Share of switch-to-switch links the rules may have isolated at once (UFM: 20 %).
    unsigned isolation_budget_percent = 20;
    // Evaluate every rule and report what it would do; do nothing.
    bool dry_run = false;

    bool operator==(const HealthConfig&) const = default;
};

struct Config {
    RoutingConfig routing;
    SmpConfig smp;
    SmConfig sm;
    // guid2lid and the dump files live here.
    std::string state_dir = "/var/lib/ibsmd";
    // infiniband-diags' node-name-map (GUID "name" per line): the names log
    // lines, the status, the events feed, metrics and report.html give
    // nodes. Only the path; the daemon reads the file. Reloadable.
    std::optional<std::string> node_name_map;
    LogConfig log;
    SweepConfig sweep;
    DumpConfig dump;
    PerfConfig perf;
    MetricsConfig metrics;
    std::vector<PartitionConfig> partitions;
    // partitions_file: OpenSM's partitions.conf; empty: none. Its rules
    // replace `partitions` (giving both is an error).
    std::string partitions_file;
    PartEnforce part_enforce = PartEnforce::both;
    // allow_both_pkeys: a port may hold a partition's full and limited key
    // (`both`); otherwise `both` is full, as OpenSM's default.
    bool allow_both_pkeys = false;
    ControlConfig control;
    HealthConfig health;
    QosConfig qos;           // qos: (config/qos_config.h); reloadable
    SecurityConfig security; // security: (M_Key); reloadable
    bool operator==(const Config&) const = default;
};

// The chain the daemon runs: routing.engines, then MinHop unless no_fallback
// is set or MinHop is already in the list.
std::vector<std::string> effective_engine_chain(const RoutingConfig& routing);

// Every leaf key of the schema, dotted ("routing.lmc", "state_dir").
std::vector<std::string> schema_keys();

// Parses YAML text; name_for_errors is the file name errors start with.
// Empty text (or only comments) yields Config{}.
Config parse_config(std::string_view yaml_text, std::string_view name_for_errors);

// Reads and parses one file; errors name the path as given.
Config load_config_file(const std::string& path);

} // namespace ibsm::config
