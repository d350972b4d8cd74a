// Configuring the subnet: the pipeline of docs/design.md ("The path of an
// event"), run in full by a heavy sweep and over a delta by a re-route:
//
//   heavy:    discover ------------------------------.
//   re-route: refresh the ports an event names ------+-> LIDs -> route -> program -> activate
//                                                                                        |
//                                     publish <- the fabric as the Sets confirmed it <---'
//
// Why: each step is a function returning a named value (assign_lids ->
// LidStep, route -> RouteStep, program -> ProgramStep, activate ->
// ActivateStep; then confirmed_fabric, confirmed_state.h, and publish), so
// configure() reads like the diagram and every phase can be timed and
// counted on its own: one log line per phase with its time and SMP count,
// then `SUBNET UP` with the generation and totals, or the reason it is not
// up.
//
// A re-route starts from the last snapshot (subnet.h): it re-reads only the
// ports an event names over the snapshot's DR paths, discovers only what is
// new behind ports that came up, keeps every LID (new ports get new ones,
// lost ones stay reserved in guid2lid), re-runs the engine chain off the
// loop, and then the programmers send only what differs from what each
// switch and port confirmed: LFT blocks by content, VL tables by hash,
// PortInfo where the desired value differs, activation only for ports in
// INIT/ARMED. The result is the next snapshot.
//
// Route computation, the guid2lid file, the port and VL table plans run on
// worker threads (`compute_`): they take seconds on large fabrics, and the
// event loop must keep answering SMInfo and receiving traps meanwhile. They
// read the sweep's values, which nothing on the loop changes meanwhile.
//
// State kept across sweeps of one process: the programmers' confirmed
// state, the remembered LIDs and the last snapshot; across processes: the
// guid2lid file in the state directory. A state directory that cannot be
// written or a corrupt guid2lid never stops the SM: it is logged with what to
// do, the LIDs stay remembered in memory and the file is retried next time.
#pragma once

#include "daemon/sweep/confirmed_state.h"
#include "daemon/sweep/discovery.h"
#include "daemon/core/sweep_outcome.h"
#include "daemon/program/lft_programmer.h"
#include "daemon/sweep/lid_store.h"
#include "daemon/program/pkey_programmer.h"
#include "daemon/program/port_disabler.h"
#include "daemon/program/port_programmer.h"
#include "daemon/core/subnet.h"
#include "daemon/program/vl_programmer.h"
#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "mad/transport.h"
#include "qos/qos_policy.h"
#include "qos/sl_vl_plan.h"
#include "routing/chain.h"
#include "routing/engine.h"
#include "topology/node_map_file.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct BringupSettings {
    routing::ChainSpec chain;
    // routing.verify_incremental: the incremental gate cross-checked by the
    // full one on every re-route (routing/incremental_gate.h). Reloadable.
    bool verify_incremental = false;
    routing::Options route;
    lidassign::BaseLidOptions lid;
    PortSettings ports;
    LftSettings lfts;
    VlSettings vls;
    std::filesystem::path state_dir;
    // The partition rules (partition/rules.h, effective_rules: the default
    // partition's included) the P_Key tables are programmed from
    // (pkey_programmer.h), before activation, when set; null leaves every
    // port's table as it is. Each sweep resolves them against its fabric.
    // Reloadable: the next sweep sends only the blocks that change.
    std::shared_ptr<const std::vector<partition::Rule>> partitions;
    bool allow_both_pkeys = false;
    PKeySettings pkeys;
    // health.disable_port: the switch-side port of each isolated link is
    // set DISABLED (port_disabler.h). Reloadable.
    bool disable_isolated_ports = false;
    // The QoS policy (qos:; disabled without the section). Before routing
    // it takes its share of the VLs (qos::routing_budget: the engines get
    // the rest as max_vls), after it the SL/VL plan programs the VL tables;
    // both, with the policy compiled against the fabric, go into the
    // snapshot for the SA. Reloadable (the SIGHUP's sweep re-plans).
    config::QosConfig qos;
    // node_name_map: the names the fabric's nodes are shown by (set on
    // every sweep's fabric before it is routed, so log lines, the status,
    // the SA's consumers and the report use them). Null: NodeDescription
    // only. Reloadable.
    std::shared_ptr<const topology::NodeNameMap> node_names;
};

class Bringup {
public:
    Bringup(mad::Transport& transport, BringupSettings settings);

    // A heavy sweep: discovers everything. Never throws for fabric or state
    // directory problems (they make the outcome not up, with the reason);
    // throws only for bugs, and when the SM's own port does not answer.
    boost::asio::awaitable<SweepOutcome> sweep();

    // A re-route of a delta over the last snapshot (see the header comment).
    // Without a snapshot, or when the refresh cannot be trusted (a query
    // failed, a GUID appeared twice) or a switch or port does not confirm
    // what the re-route sent, the outcome says needs_heavy.
    boost::asio::awaitable<SweepOutcome> reroute(const RefreshRequest& request);

    // After a partial outcome (some Sets unconfirmed, e.g. through packet
    // loss): configures the last snapshot's fabric again without
    // discovering it. The programmers send only what they have not
    // confirmed (LFT blocks, VL tables, PortInfo of ports not yet ACTIVE;
    // a port whose state change did arrive is read back, not refused).
    // Outcome kind reroute; needs_heavy when there is no partial snapshot.
    boost::asio::awaitable<SweepOutcome> resume();

    // Links the routing must leave out (the health policy's and the
    // operator's isolations, one end each): applied from the next sweep on,
    // heavy or re-route, until changed. They stay in the snapshot's fabric
    // (physically up); routing and the verification gate see the fabric
    // without them. An isolation that would cut a node off the SM at that
    // sweep (the fabric changed since it was made) is suspended for that
    // sweep and logged. Isolations no longer in the set are lifted: a port
    // disabled for one is set to Polling by the next sweep.
    void set_isolated_links(std::set<health::PortId> isolated);
    // Switches the heavy sweep's discovery reads but does not go beyond
    // (the health policy's no_discover), from the next heavy sweep.
    void set_no_discover(std::set<Guid> nodes) { no_discover_ = std::move(nodes); }
    // After the isolated links changed: with disable_isolated_ports, first
    // the switch-side ports of newly isolated links are set DISABLED and
    // those of lifted ones back to Polling, and the switches whose ports
    // changed are refreshed as a re-route would (the link is seen down or
    // up like a pulled or plugged cable); otherwise routes the last
    // snapshot's fabric again without discovering it. The LFT programmer
    // sends only the blocks that change. Outcome kind reroute; needs_heavy
    // without a complete snapshot.
    boost::asio::awaitable<SweepOutcome> reroute_isolated();

    // A reloaded configuration for the next sweep: routing chain and
    // options, LMC, OperationalVLs cap, switch SL2VL policy. The state
    // directory, SMP settings and programmer state stay.
    void reconfigure(const BringupSettings& settings);
    // Called when a heavy sweep starts, before pending settings apply (the
    // partitions file is checked there: a change applies in that sweep).
    void before_heavy_sweep(std::function<void()> f) { before_heavy_ = std::move(f); }
    // The settings the next sweep will run with (the pending ones, else
    // those in use): what a reload compares the files it read with.
    const BringupSettings& settings_in_use() const { return pending_ ? *pending_ : settings_; }

    // Called when a sweep has brought the subnet up (or degraded), before
    // anything else is done with the outcome (the SM reports MASTER from then on).
    void on_subnet_up(std::function<void()> f) { on_up_ = std::move(f); }
    // Without a gate the SM always configures (a lone SM, ibsmd --once).
    void set_gate(MastershipGate* gate) { gate_ = gate; }
    // M_Keys (core/mkey_book.h): the PortInfo Sets carry each port's key.
    void set_mkeys(MkeyBook* book) { ports_.set_mkeys(book); }

    // The last published generation (null before the first configured sweep).
    SnapshotPtr snapshot() const { return snapshot_; }

private:
    using Clock = std::chrono::steady_clock;

    // What each step of configure() hands to the next. `phase`: the step's
    // log line and summary row, timed from the step's start.
    struct LidStep {
        std::optional<LidAssignment> lids; // nullopt: the LID space is exhausted
        std::string failure;               // why lids is nullopt
        PhaseStats phase;                  // when lids is set
    };
    struct RouteStep {
        LidAssignment lids; // the path engine's own when it assigned them (colour-first)
        std::shared_ptr<const routing::RoutingTables> tables; // null: every engine refused
        // The SL/VL plan for `tables` (null when no tables) and the policy
        // compiled against the fabric (null without qos:).
        std::shared_ptr<const qos::SlVlPlan> sl_vl;
        std::shared_ptr<const qos::QosPolicy> policy;
        std::string failure;                 // why tables is null
        std::optional<std::string> degraded; // no engine's tables passed verification: why
        PhaseStats phase;
    };
    struct ProgramStep {
        ProgramReport report;
        PhaseStats phase;
    };
    struct ActivateStep {
        PortReport report;
        PhaseStats phase;
    };

    // How both re-routes begin: settings of a reload applied, and a standby
    // SM's outcome (standby, with the gate's reason) when another SM is
    // master: a re-route then goes no further.
    SweepOutcome open_reroute();
    // The pipeline (see the header comment). `resuming`: found is the last
    // snapshot's, whose INIT ports are INIT because this process has not
    // activated them yet, not because their link retrained: the VL and
    // P_Key tables they confirmed are kept.
    boost::asio::awaitable<SweepOutcome> configure(DiscoveryResult found, SweepOutcome o, Clock::time_point start,
                                                   std::uint64_t smps_before, bool resuming = false);
    // The steps, in pipeline order (configure_steps.cpp).
    LidStep assign_lids(const DiscoveryResult& found);
    boost::asio::awaitable<RouteStep> route(const DiscoveryResult& found, LidAssignment lids);
    boost::asio::awaitable<ProgramStep> program(const DiscoveryResult& found, const LidAssignment& lids,
                                                const RouteStep& routed, bool resuming, SweepKind kind);
    boost::asio::awaitable<ActivateStep> activate();
    // The next generation, from `fabric` as the ports hold it; returns `o`
    // with its generation and totals (bringup.cpp).
    SweepOutcome publish(SweepOutcome o, DiscoveryResult fabric, std::optional<LidAssignment> lids,
                         std::shared_ptr<const routing::RoutingTables> tables, Clock::time_point start,
                         std::uint64_t smps_before);
    // The QoS policy and SL/VL plan of the sweep in progress, for publish()
    // (null until its route step set them).
    std::shared_ptr<const qos::SlVlPlan> sl_vl_;
    std::shared_ptr<const VlTablesHeld> vl_tables_; // the last VL plan's tables (the SA's records)
    std::shared_ptr<const qos::QosPolicy> policy_;
    // The outcome's totals: time since `start`, SMPs since `smps_before`.
    void stamp_totals(SweepOutcome& o, Clock::time_point start, std::uint64_t smps_before) const;

    // What the steps use.
    void load_remembered();
    void remember_lids(const DiscoveryResult& found, const LidAssignment& lids);
    // The LIDs a path engine assigned (colour-first): they replace those of
    // `lids`, are remembered and saved.
    LidAssignment adopt_engine_lids(const DiscoveryResult& found, LidAssignment lids,
                                    const lidassign::LidMap& assigned);
    // Writes guid2lid; the error, empty when written. Runs on a worker
    // thread beside the routing: it reads remembered_ and leaves store_dirty_
    // to the caller.
    std::string save_lids(const DiscoveryResult& found, const lidassign::LidMap& lids);
    // The VLs every linked port can carry (routing.max_vls capped by VLCap;
    // with QoS also by the OperationalVLs code the ports get).
    unsigned vl_cap(const DiscoveryResult& found) const;
    // `qos`: the policy the routing shares the VLs with (disabled: none),
    // `budget` its share, `cap` the VLs the ports carry.
    // Runs on a worker thread; the only one to touch route_memory_ then.
    routing::ChainOutcome run_chain(const DiscoveryResult& found, const LidAssignment& lids,
                                    const config::QosConfig& qos, const qos::RoutingBudget& budget, unsigned cap);
    // After routing: the SL/VL plan and the compiled policy (route()).
    void plan_qos(RouteStep& step, const config::QosConfig& qos, unsigned cap) const;
    // The partitions over `found` (null without rules); what changed since
    // the rules the last sweep ran on goes to the log and `o`.
    std::shared_ptr<const partition::Partitions> resolve_partitions(const DiscoveryResult& found, SweepOutcome& o);
    boost::asio::awaitable<ProgramReport> run_programmers(const DiscoveryResult& found, const LidAssignment& lids,
                                                          std::shared_ptr<const routing::RoutingTables> tables,
                                                          const qos::SlVlPlan& sl_vl, const qos::QosPolicy* policy);
    void forget_relinked(const DiscoveryResult& found);
    // Runs f() on the worker thread; resumes the caller on its own executor.
    template <class F>
    boost::asio::awaitable<std::invoke_result_t<F>> off_loop(F f);
    void apply_pending();
    // The isolations this sweep applies over `found` (bringup.cpp).
    std::set<health::PortId> isolation_for(const DiscoveryResult& found) const;
    // The Sets of PortDisabler over `found` (the last snapshot's); the
    // switches whose ports changed state.
    boost::asio::awaitable<std::vector<topology::NodeId>> hold_port_states(const DiscoveryResult& found);

    mad::Transport& transport_;
    BringupSettings settings_;
    std::optional<BringupSettings> pending_;
    std::function<void()> before_heavy_;
    LidStore store_;
    // The port programmer's KeptPortFields in the state directory (bringup.cpp).
    static constexpr const char* kept_fields_file = "port_fields_kept";
    void load_kept_fields();
    void save_kept_fields();
    // The records' revision the file holds (as last read or written);
    // none: the file is to be written (unreadable).
    std::optional<std::uint64_t> kept_saved_ = 0;
    // Every port GUID -> base LID this process has handed out or read from
    // guid2lid: the file's content, kept in memory so a state directory
    // that fails does not lose LIDs.
    std::optional<lidassign::GuidLidMap> remembered_;
    bool store_dirty_ = false;
    LftProgrammer lfts_;
    PortProgrammer ports_;
    VlProgrammer vls_;
    PKeyProgrammer pkeys_;
    // This sweep's partitions (resolve_partitions), the rules the last
    // resolution ran on and that resolution.
    std::shared_ptr<const partition::Partitions> partitions_, last_partitions_;
    std::shared_ptr<const std::vector<partition::Rule>> last_rules_;
    SnapshotPtr snapshot_;
    std::uint64_t generation_ = 0;
    // Asked for (set_isolated_links) and applied by the sweep in progress or
    // the last one: only configure() changes applied_, on the loop, before
    // the routing reads it on a worker.
    std::set<health::PortId> isolated_, applied_;
    // The last verified routing, its fabric (isolated links left out), LIDs
    // and the engine's state: the next route step re-routes the delta from it,
    // and the gate re-traces only what changed (routing/chain_memory.h).
    // Forgotten when a reload's settings apply. Touched only by run_chain,
    // on the compute pool, one route step at a time.
    routing::ChainMemory route_memory_;
    std::set<Guid> no_discover_;
    // Isolations lifted since the last re-route: their disabled ports go
    // back to Polling.
    std::set<health::PortId> lifted_;
    PortDisabler disabler_;
    boost::asio::thread_pool compute_{2}; // routing and the guid2lid file side by side
    std::function<void()> on_up_;
    MastershipGate* gate_ = nullptr;
};

} // namespace ibsm::daemon
