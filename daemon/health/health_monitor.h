// The health monitor: per-port health from counters, link checks and the
// sweeps' findings, the policy's decisions acted on, and the isolated links
// (docs/operations.md, "Health policy").
//
// Why: the poller, the link checks and the sweeps each see one side of a
// port; the operator wants one row per port and one log line per new
// finding, and a bad link out of the routing without cutting anyone off.
// The rules are pure (health/health_policy.h, health/isolation.h); this object
// keeps their inputs over time, acts on their decisions and remembers the
// isolations across restarts (isolation_store.h).
//
// Data structures: the last snapshot (fabric, SM port, link checks) and
// counter table; link-down times per port (flapping) and per-sweep timeout
// flags per port (unresponsive); the unhealthy-node events' times
// (health/unhealthy.h): reboots per node (a node that left a snapshot and
// came back, or whose counters were reset by someone else), traps 129/130/
// 131 per port, bad-status Set answers and undecodable answers per node;
// the nodes that left and when; the isolations (PortId -> rule, reason,
// since) and the switches discovery does not go beyond (node GUID -> rule,
// reason, since); per port the state and reasons of the last evaluation;
// the findings already logged, so each is logged once while it holds.
//
// Algorithm: after each sweep outcome and each counter sweep, the inputs
// are updated and evaluate() runs the policy; new isolations are saved, then
// handed to the isolation sink (the composition root: Bringup's isolated
// links and an IsolationEvent, so the scheduler re-routes around them); new
// no_discover switches go to their own sink (Bringup's discovery, from the
// next heavy sweep). The events the other wings see (traps, bad-status and
// malformed answers) are noted as they come; a trap evaluates the policy
// only when its port's count passes the noisy threshold, at most once a
// second. The isolation budget leaves out drains (rule "drain"); with
// health.dry_run nothing is isolated or skipped, every decision is logged
// with what it would do. The operator's isolate/clear take the same path.
// All on the loop.
#pragma once

#include "daemon/core/subnet.h"
#include "daemon/core/sweep_outcome.h"
#include "daemon/health/isolation_store.h"
#include "health/health_policy.h"
#include "health/port_health.h"
#include "mad/notice.h"
#include "mad/transport.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ibsm::daemon {

// The answer to an isolate or clear: ok or not, and the text saying why.
struct HealthCommandResult {
    bool ok = false;
    std::string text;
};

class HealthMonitor {
public:
    using WallClock = std::function<double()>; // Unix seconds
    using EventSink = std::function<void(std::string_view kind, const nlohmann::json& fields)>;
    using IsolationSink = std::function<void(const std::set<health::PortId>& isolated, const std::string& reason)>;
    using NoDiscoverSink = std::function<void(const std::set<Guid>& nodes, const std::string& reason)>;

    HealthMonitor(std::filesystem::path state_dir, health::HealthPolicy policy, WallClock clock = {});

    // SIGHUP: the next evaluation uses `policy`; isolations stay.
    void set_policy(const health::HealthPolicy& policy);
    // isolation / isolation_cleared / isolation_refused / health_report
    // events, each with node_guid, node_desc, port, remote, rule, reason.
    void on_event(EventSink f) { events_ = std::move(f); }
    void on_isolation_change(IsolationSink f) { isolation_sink_ = std::move(f); }
    // The switches discovery does not go beyond changed (no_discover).
    void on_no_discover_change(NoDiscoverSink f) { no_discover_sink_ = std::move(f); }

    // At start, before the first sweep: the isolations of the state
    // directory (isolated() afterwards; handed to the isolation sink when
    // one is set). A corrupt file is logged with what to do and ignored.
    void load();

    // Every piece of work's outcome and the snapshot then current.
    void on_outcome(const SweepOutcome& o, const SnapshotPtr& snap);
    // Every counter sweep's table (the PMA poller).
    void on_counters(const health::CounterTable& table);
    // Every trap that decodes (the trap receiver): 129/130/131 count for noisy.
    void on_notice(const mad::Notice& notice);
    // The transport's answers gone wrong: a Set answered with a bad status
    // (set_errors), an answer that failed its checks (illegal).
    void on_bad_status(const mad::SmpRequest& sent, const mad::SmpResponse& response);
    void on_malformed_answer(const mad::SmpRequest& sent, const std::string& what);

    // Every linked port of the last snapshot (and every polled one), worst first.
    std::vector<health::PortHealth> rows() const;
    // The operator's commands (and the rules' isolations): refused with the
    // reason when the port is unknown, unlinked, or isolating it would cut a
    // node off.
    HealthCommandResult isolate(health::PortId port, std::string reason);
    HealthCommandResult clear(health::PortId port);

    std::set<health::PortId> isolated() const;
    const Isolations& isolations() const { return isolations_; }
    std::set<Guid> no_discover() const;

private:
    struct PortState {
        health::HealthState state = health::HealthState::ok;
        std::vector<std::string> reasons;
        double since = 0;
    };
    using FindingKey = std::tuple<health::PortId, health::Rule, int>;

    void evaluate();
    void note_timeouts(const std::set<health::PortId>& timed_out, const std::set<health::PortId>& asked);
    void apply_isolation(health::PortId port, Isolation iso);
    void save_and_announce(const std::string& reason);
    void announce_no_discover(const std::string& reason);
    // The node (port 0) an SMP went to: its directed route walked over the
    // last fabric from the SM's node, or its DLID; when the route ends at a
    // port leading nowhere known, that port (the node behind it answered).
    std::optional<health::PortId> target_of(const mad::Smp& smp, Lid dlid) const;
    void note_event(health::EventTimes& times, health::PortId key, double window_s);
    void note_nodes(const SubnetSnapshot& snap, double now);
    nlohmann::json port_fields(health::PortId port) const;
    std::string port_words(health::PortId port) const;
    void publish(std::string_view kind, nlohmann::json fields) const;

    IsolationStore store_;
    health::HealthPolicy policy_;
    WallClock clock_;
    EventSink events_;
    IsolationSink isolation_sink_;
    SnapshotPtr snap_;
    // Shared with the port rows (rows() aliases its entries); replaced,
    // never changed in place.
    std::shared_ptr<const health::CounterTable> counters_ = std::make_shared<const health::CounterTable>();
    health::LinkDownHistory downs_;
    health::TimeoutHistory timeouts_;
    health::EventTimes reboots_, traps_, set_errors_, illegal_;
    std::map<Guid, double> departed_; // nodes that left the fabric, when
    std::set<Guid> present_;          // the nodes of the last snapshot
    double last_trap_evaluation_ = 0;
    Isolations isolations_;
    NoDiscover no_discover_;
    NoDiscoverSink no_discover_sink_;
    std::map<health::PortId, PortState> states_;
    std::set<FindingKey> logged_;
    // Ports whose isolation the operator lifted while the rule still held:
    // reported, not isolated again, until the rule stops holding.
    std::set<std::pair<health::PortId, health::Rule>> spared_;
};

} // namespace ibsm::daemon
