// The running daemon's state as plain data, and the three forms it takes in
// the state directory: state.json (read back by `ibsm status`), metrics.prom
// (Prometheus text exposition format, for node_exporter's textfile
// collector) and the text `ibsm status` prints and summary.txt ends with.
//
// Why: an operator should not read logs to learn whether the subnet is up,
// which generation is programmed, or how many SMPs timed out. The daemon
// collects this on its loop (status_reporter.h) and hands it to the dump
// writer; `ibsm status` parses the same JSON, so both sides share one
// definition of every field here. Pure: strings in, strings out, no I/O.
//
// Data structures: DaemonStatus is a flat record (identity, subnet state,
// last sweep with its phases, cumulative counters, traps by number, phase
// totals, the last events, newest last, the counter poller's totals and
// every monitored port, worst first). Times are Unix seconds (wall
// clock) so another process can read them.
#pragma once

#include "health/port_health.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::daemon {

struct StatusPhase {
    std::string name;
    double seconds = 0;
    std::uint64_t smps = 0;
    std::string detail;
};

struct StatusPhaseTotal {
    std::string name;
    double seconds = 0; // summed over every sweep that ran the phase
    std::uint64_t runs = 0;
};

struct StatusTrap {
    std::uint16_t number = 0;
    std::uint64_t received = 0;
    std::uint64_t repeats = 0; // folded into a pending event
};

struct StatusEvent {
    double time = 0; // Unix seconds
    std::string text;
};

struct StatusCounters {
    // SweepScheduler (SchedulerStats)
    std::uint64_t heavy_sweeps = 0, reroutes = 0, reroutes_unchanged = 0, light_sweeps = 0, resumes = 0,
                  sweep_failures = 0, events = 0;
    // Transport (mad::TransportCounters); retries = resends (each waits a backoff)
    std::uint64_t smps_sent = 0, smp_requests = 0, smp_timeouts = 0, smp_drops = 0, smp_retries = 0,
                  smp_failed = 0, mads_unsolicited = 0, mads_malformed = 0, mads_unmatched = 0;
    // TrapReceiver
    std::uint64_t traps = 0;
};

// The counter poller (performance management) since the start.
struct StatusPerf {
    bool enabled = false;            // polling configured (a standby SM has it on and does not poll)
    std::uint64_t sweeps = 0, mads = 0, failures = 0;
    double last_sweep = 0;           // end of the last counter sweep, Unix seconds (0: none yet)
    double last_sweep_seconds = 0;
    std::uint64_t last_sweep_mads = 0;
    // Every port the health monitor lists, and how many of them were read
    // (`ports` below names only the notable ones).
    std::uint64_t ports_monitored = 0, ports_read = 0;
};

// M_Key protection (security.mkey) since the start: never a key or secret.
struct StatusMkey {
    std::string mode = "off"; // "off", "per-port", "fixed"
    unsigned protect_bits = 0;
    unsigned lease_period_s = 0;
    std::string fingerprint; // of the secret in use (mkey/keys.h), empty when off
    std::uint64_t violations = 0;          // Bad M_Key traps (256) received
    std::uint64_t incidents = 0;           // ports that refused every key the SM tried
    std::uint64_t rotations = 0;           // started (`ibsm mkey rotate`, a reload)
    std::uint64_t rotations_completed = 0; // every port confirmed its new key
    bool rotating = false;
    std::uint64_t ports_stale = 0;      // still holding an old key, during a rotation
    std::uint64_t ports_lease_wait = 0; // keyed by someone else, waited out for their lease
    bool operator==(const StatusMkey&) const = default;
};

// One drain (daemon/maint/drains.h): what the operator drained, since when,
// and how many link ends it takes out of the routing.
struct StatusDrain {
    std::string kind;      // "switch" or "link"
    std::string node_guid; // "0x..."
    unsigned port = 0;     // link: the port named; switch: 0
    std::string label;
    double since = 0;
    std::uint64_t links = 0;
    bool operator==(const StatusDrain&) const = default;
};

struct DaemonStatus {
    // Identity of the process that wrote it.
    long pid = 0;
    double started = 0; // Unix seconds
    double updated = 0;
    std::string sm_port_guid; // "0x..."
    // "starting" (no sweep finished yet), "up", "degraded", "down",
    // "standby" (another SM is master) or "stopped" (the daemon exited).
    std::string state = "starting";
    std::string reason; // why not up / why degraded / who is master
    std::uint64_t generation = 0;
    std::string engine;
    std::uint32_t sm_lid = 0;
    std::uint64_t nodes = 0, switches = 0, cas = 0, links = 0;
    std::uint64_t lid_ports = 0; // ports holding a LID
    std::uint32_t top_lid = 0;
    unsigned lmc = 0;

    struct LastSweep {
        std::string kind; // "heavy sweep", "re-route", "resume"; empty: none yet
        std::string outcome; // "up", "degraded", "down", "standby", "unchanged", "failed"
        double finished = 0; // Unix seconds
        double seconds = 0;
        std::uint64_t smps = 0;
        std::uint64_t lft_blocks_sent = 0;
        std::vector<StatusPhase> phases;
    } last_sweep;

    // report.html (dump.report): where, of which generation (0: none) and
    // when it was written (Unix seconds).
    struct Report {
        std::string path;
        std::uint64_t generation = 0;
        double written = 0;
    } report;

    // The control socket `ibsm` talks to the daemon over (empty: none).
    std::string control_socket;
    // Where Prometheus scrapes the daemon (metrics.listen): "http://127.0.0.1:9683/metrics"; empty: no endpoint.
    std::string metrics_url;

    StatusCounters counters;
    std::vector<StatusTrap> traps;              // by number, ascending
    std::vector<StatusPhaseTotal> phase_totals; // in first-seen order
    std::vector<StatusEvent> events;            // newest last
    StatusPerf perf;
    StatusMkey mkey;
    std::vector<StatusDrain> drains; // in the order drained
    // The monitored ports worst first (health::sort_worst_first): its
    // counters, far end and health state. In state.json and the status
    // text, the notable ones only (status_reporter.h: notable_ports); in
    // metrics.prom every one.
    std::vector<health::PortHealth> ports;
};

class StatusFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// state.json's object: every field above (format_version 1); the control
// socket's `status` answers it as it is.
nlohmann::ordered_json state_object(const DaemonStatus& s);
// state.json: that object as text.
std::string to_state_json(const DaemonStatus& s);
// The inverse; throws StatusFormatError naming the problem for text that is
// not JSON, another format version, or a field of the wrong type.
DaemonStatus status_from_json(std::string_view text);

struct PortSelection; // port_series.h

// metrics.prom and the HTTP endpoint: HELP/TYPE lines and samples, counters
// named *_total; the per-port series are those `sel` keeps (port_series.h),
// every one of them without it. `rows`, when given, stand for s.ports (the
// shared rows every port has, not copied into the status).
std::string to_prometheus(const DaemonStatus& s);
std::string to_prometheus(const DaemonStatus& s, const PortSelection& sel,
                          const std::vector<health::PortHealth>* rows = nullptr);

// What `ibsm status` prints. `now` (Unix seconds) gives ages; `running`
// says whether the writing process is still alive.
std::string to_status_text(const DaemonStatus& s, double now, bool running);
// The part summary.txt gains: counters, traps and the last events.
std::string status_activity_text(const DaemonStatus& s);

} // namespace ibsm::daemon
