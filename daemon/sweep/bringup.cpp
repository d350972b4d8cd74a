// The entry points of a sweep (heavy, re-route, resume) and configure(),
// the pipeline of bringup.h's diagram, with publish() at its end. The steps
// it calls are in configure_steps.cpp, what the Sets confirmed in
// confirmed_state.cpp.
#include "daemon/sweep/bringup.h"
#include "daemon/core/atomic_file.h"

#include "daemon/sweep/phase_clock.h"
#include "daemon/sweep/sweep_report.h"
#include "health/link_check.h"
#include "health/isolation.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ibsm::daemon {

namespace {

// An SM whose own port has no link reaches nothing: say so (the scheduler
// logs it), instead of a "subnet" of one port that no packet can leave (a
// switch's port 0 has no link by nature).
std::optional<std::string> sm_port_unlinked(const DiscoveryResult& found)
{
    const auto& f = found.fabric;
    if (f.node(found.sm_port.node).is_switch() || f.remote(found.sm_port)) return std::nullopt;
    return "the SM's own port has no link (PortState DOWN): check its cable and the switch port at its other end, "
           "or run the SM on another port (--port-guid, --ca/--port)";
}

// The fabric's size, as every outcome that read one reports it.
void count_fabric(SweepOutcome& o, const topology::Fabric& f)
{
    o.nodes = f.node_count();
    o.switches = f.switch_count();
    o.cas = f.ca_count();
    o.links = f.link_count();
}

} // namespace

Bringup::Bringup(mad::Transport& transport, BringupSettings settings)
    : transport_(transport), settings_(std::move(settings)), store_(settings_.state_dir), lfts_(settings_.lfts),
      ports_(settings_.ports), vls_(settings_.vls), pkeys_(settings_.pkeys)
{
    load_kept_fields();
}

// PortInfo fields the ports do not keep (program/kept_port_fields.h), kept in
// the state directory: without them a restarted SM would send every port of
// such SMAs (ibsim's: SubnetTimeout, MasterSMSL) a Set to find out again.
// Only a saving: a file that cannot be read is logged and left, and the
// ports are asked once more.
void Bringup::load_kept_fields()
{
    if (settings_.state_dir.empty()) return;
    const auto file = settings_.state_dir / kept_fields_file;
    std::ifstream in(file);
    if (!in) return;
    std::ostringstream text;
    text << in.rdbuf();
    try {
        ports_.set_kept(KeptPortFields::parse(text.str()));
        kept_saved_ = ports_.kept().revision();
    } catch (const std::invalid_argument& e) {
        kept_saved_.reset(); // written at the next sweep, whatever it holds
        spdlog::warn("{}:{}; ignored: ports holding fields the SM cannot set are asked once more, and the file "
                     "is rewritten",
                     file.string(), e.what());
    }
}

void Bringup::save_kept_fields()
{
    if (settings_.state_dir.empty()) return;
    const auto revision = ports_.kept().revision();
    if (kept_saved_ == revision) return;
    const auto file = settings_.state_dir / kept_fields_file;
    try {
        write_file_atomically(file, ports_.kept().text());
        kept_saved_ = revision;
    } catch (const std::exception& e) {
        spdlog::warn("{} (what the ports keep of PortInfo): {}; a restart asks the ports again", file.string(),
                     e.what());
    }
}

void Bringup::reconfigure(const BringupSettings& settings)
{
    // Applied when the next sweep starts, never in the middle of one (LIDs
    // and routes of one sweep must agree on the LMC).
    pending_ = settings;
}

void Bringup::apply_pending()
{
    if (!pending_) return;
    // A reload may change anything routes depend on (engines, their options,
    // QoS): the next routing is a full run.
    route_memory_.forget();
    settings_.chain = pending_->chain;
    settings_.route = pending_->route;
    settings_.lid = pending_->lid;
    settings_.ports.max_operational_vls = pending_->ports.max_operational_vls;
    ports_.set_max_operational_vls(pending_->ports.max_operational_vls);
    settings_.vls.all_switch_pairs = pending_->vls.all_switch_pairs;
    vls_.set_all_switch_pairs(pending_->vls.all_switch_pairs);
    settings_.vls.all_port_tables = pending_->vls.all_port_tables;
    vls_.set_all_port_tables(pending_->vls.all_port_tables);
    settings_.disable_isolated_ports = pending_->disable_isolated_ports;
    settings_.qos = pending_->qos;
    settings_.partitions = pending_->partitions;
    settings_.allow_both_pkeys = pending_->allow_both_pkeys;
    settings_.ports.enforce_in = pending_->ports.enforce_in;
    settings_.ports.enforce_out = pending_->ports.enforce_out;
    ports_.set_partition_enforcement(pending_->ports.enforce_in, pending_->ports.enforce_out);
    pkeys_.set_peer_tables(pending_->pkeys.peer_tables);
    settings_.node_names = pending_->node_names;
    pending_.reset();
}

boost::asio::awaitable<SweepOutcome> Bringup::sweep()
{
    if (before_heavy_) before_heavy_();
    apply_pending();
    SweepOutcome o;
    o.kind = SweepKind::heavy;
    PhaseClock c1(transport_);
    const auto start = Clock::now();
    const auto smps_before = transport_.counters().requests;
    DiscoveryResult found = co_await discover(transport_, no_discover_);
    const auto& f = found.fabric;
    o.phases.push_back(c1.finish("discover", std::to_string(f.node_count()) + " nodes (" +
                                                 std::to_string(f.switch_count()) + " switches, " +
                                                 std::to_string(f.ca_count()) + " CAs), " +
                                                 std::to_string(f.link_count()) + " links" +
                                                 (found.complete() ? "" : ", INCOMPLETE")));
    if (!found.complete()) log_discovery(found, transport_.counters());
    if (gate_) {
        if (auto why = co_await gate_->after_discovery(found)) {
            o.standby = true;
            o.reason = std::move(*why);
            count_fabric(o, f);
            stamp_totals(o, start, smps_before);
            co_return o;
        }
    }
    // A heavy sweep (a restart, or a re-route that needed one) holds the
    // isolated links' ports as asked too. A port whose state this changes
    // is seen by the next trap or light sweep; the routing leaves an
    // isolated link out either way.
    co_await hold_port_states(found);
    co_return co_await configure(std::move(found), std::move(o), start, smps_before);
}

SweepOutcome Bringup::open_reroute()
{
    apply_pending();
    SweepOutcome o;
    o.kind = SweepKind::reroute;
    if (gate_) {
        if (auto why = gate_->standing_by()) {
            o.standby = true;
            o.reason = std::move(*why);
        }
    }
    return o;
}

boost::asio::awaitable<SweepOutcome> Bringup::reroute(const RefreshRequest& request)
{
    SweepOutcome o = open_reroute();
    if (o.standby) co_return o;
    const SnapshotPtr previous = snapshot_;
    if (!previous) {
        o.needs_heavy = true;
        o.reason = "no configured subnet to re-route yet";
        co_return o;
    }
    const auto start = Clock::now();
    const auto smps_before = transport_.counters().requests;
    // Ports whose isolation asks them disabled or enabled: set first, then
    // re-read with the rest, so the link is seen going down or up.
    RefreshRequest asked = request;
    for (auto n : co_await hold_port_states(previous->found))
        if (std::find(asked.switches.begin(), asked.switches.end(), n) == asked.switches.end())
            asked.switches.push_back(n);
    PhaseClock c1(transport_);
    auto r = co_await refresh(transport_, previous->found, asked);
    o.changes = std::move(r.changes);
    const auto& ch = o.changes;
    o.phases.push_back(c1.finish("refresh", std::to_string(asked.switches.size()) + " switch(es), " +
                                                std::to_string(asked.ports.size()) + " port(s) re-read: " +
                                                std::to_string(ch.links_down) + " link(s) down, " +
                                                std::to_string(ch.links_up) + " up, " + std::to_string(ch.nodes_new) +
                                                " new node(s), " + std::to_string(ch.nodes_lost) + " lost, " +
                                                std::to_string(ch.ports_changed) + " port(s) changed"));
    for (const auto& t : ch.text) spdlog::info("  {}", t);
    auto done = [&] { stamp_totals(o, start, smps_before); };
    if (!r.found.complete()) {
        o.needs_heavy = true;
        const auto& m = r.found.missing;
        o.reason = m.empty() ? "duplicate GUID seen during the refresh"
                             : std::to_string(m.size()) + " refresh queries failed (first: " + m.front().what + " at " +
                                   m.front().path.str() + ": " + m.front().why + ")";
        done();
        co_return o;
    }
    if (!ch.any() && previous->health != SubnetHealth::down && isolated_ == applied_) {
        o.unchanged = true;
        o.up = true;
        o.degraded = previous->health == SubnetHealth::degraded;
        o.generation = previous->generation;
        done();
        co_return o;
    }
    o = co_await configure(std::move(r.found), std::move(o), start, smps_before);
    // A switch that does not confirm its Sets after a re-route is one the
    // refresh did not know was gone (the refresh asks the far ends of links
    // found down, but a switch can vanish where no link was seen to go
    // down, or between the refresh and the Sets). Only a heavy sweep can
    // tell; waiting for the retry timer would leave the fabric broken.
    if (!o.up) o.needs_heavy = true;
    co_return o;
}

boost::asio::awaitable<SweepOutcome> Bringup::resume()
{
    apply_pending();
    SweepOutcome o;
    o.kind = SweepKind::reroute;
    if (!snapshot_ || snapshot_->health != SubnetHealth::down || !snapshot_->tables || !snapshot_->found.complete()) {
        o.needs_heavy = true;
        o.reason = "nothing partial to resume";
        co_return o;
    }
    const auto start = Clock::now();
    const auto smps_before = transport_.counters().requests;
    spdlog::info("resume: programming generation {}'s fabric again, only what is not confirmed",
                 snapshot_->generation);
    co_return co_await configure(snapshot_->found, std::move(o), start, smps_before, /*resuming=*/true);
}

boost::asio::awaitable<SweepOutcome> Bringup::reroute_isolated()
{
    SweepOutcome o = open_reroute();
    if (o.standby) co_return o;
    if (!snapshot_ || !snapshot_->tables || !snapshot_->found.complete()) {
        o.needs_heavy = true;
        o.reason = "no configured subnet to route around isolated links yet";
        co_return o;
    }
    if (settings_.disable_isolated_ports || !lifted_.empty()) {
        // A port's physical state may change: the re-route re-reads it.
        RefreshRequest none;
        co_return co_await reroute(none);
    }
    const auto start = Clock::now();
    const auto smps_before = transport_.counters().requests;
    spdlog::info("re-route of generation {}'s fabric around {} isolated link(s)", snapshot_->generation,
                 isolated_.size());
    co_return co_await configure(snapshot_->found, std::move(o), start, smps_before, /*resuming=*/true);
}

void Bringup::set_isolated_links(std::set<health::PortId> isolated)
{
    for (const auto& id : isolated_)
        if (!isolated.count(id)) lifted_.insert(id);
    for (const auto& id : isolated) lifted_.erase(id);
    isolated_ = std::move(isolated);
}

boost::asio::awaitable<std::vector<topology::NodeId>> Bringup::hold_port_states(const DiscoveryResult& found)
{
    const std::set<health::PortId> none;
    const auto& disable = settings_.disable_isolated_ports ? isolated_ : none;
    if (disable.empty() && lifted_.empty()) co_return std::vector<topology::NodeId>{};
    auto report = co_await disabler_.apply(transport_, found, disable, lifted_);
    lifted_.clear();
    co_return std::move(report.switches);
}

std::set<health::PortId> Bringup::isolation_for(const DiscoveryResult& found) const
{
    // The same rule the policy isolates by, again over this sweep's fabric:
    // a cable pulled since may have made an isolated link the last path to
    // a node.
    std::set<health::PortId> applied;
    for (const auto& id : isolated_) {
        auto p = health::find_port(found.fabric, id);
        if (!p || !found.fabric.remote(*p)) continue; // the link is down or gone: nothing to route around
        auto check = health::check_isolation(found.fabric, found.sm_port, applied, id);
        if (check.allowed)
            applied.insert(id);
        else
            spdlog::warn("isolation of {} port {} suspended for this sweep: {}; it applies again once the fabric "
                         "allows",
                         id.node.str(), id.port.value(), check.reason);
    }
    return applied;
}

boost::asio::awaitable<SweepOutcome> Bringup::configure(DiscoveryResult found, SweepOutcome o, Clock::time_point start,
                                                       std::uint64_t smps_before, bool resuming)
{
    // The names this sweep's log lines and snapshot give nodes (a reloaded
    // map, or none, takes effect here).
    static const topology::NodeNameMap no_names;
    topology::apply_node_names(found.fabric, settings_.node_names ? *settings_.node_names : no_names);
    count_fabric(o, found.fabric);
    applied_ = isolation_for(found);
    sl_vl_.reset();
    vl_tables_.reset();
    policy_.reset();
    if (auto why = sm_port_unlinked(found)) {
        o.reason = std::move(*why);
        co_return publish(std::move(o), std::move(found), std::nullopt, nullptr, start, smps_before);
    }

    partitions_ = resolve_partitions(found, o);
    auto assigned = assign_lids(found);
    if (!assigned.lids) {
        o.reason = std::move(assigned.failure);
        spdlog::error("subnet NOT up: {}", o.reason);
        co_return publish(std::move(o), std::move(found), std::nullopt, nullptr, start, smps_before);
    }
    o.phases.push_back(std::move(assigned.phase));

    auto routed = co_await route(found, std::move(*assigned.lids));
    o.phases.push_back(std::move(routed.phase));
    sl_vl_ = routed.sl_vl;
    policy_ = routed.policy;
    if (!routed.tables) {
        o.reason = std::move(routed.failure);
        spdlog::error("subnet NOT up: {}", o.reason);
        co_return publish(std::move(o), std::move(found), std::move(routed.lids), nullptr, start, smps_before);
    }
    o.engine = routed.tables->engine;

    auto programmed = co_await program(found, routed.lids, routed, resuming, o.kind);
    o.lft_blocks_sent = programmed.report.lfts.blocks_sent;
    o.pkey_blocks_sent = programmed.report.pkeys.blocks_sent;
    o.port_info_sets = programmed.report.ports.sets;
    o.phases.push_back(std::move(programmed.phase));

    // activate: only on top of complete switch tables
    ActivateStep activated;
    if (programmed.report.complete()) {
        activated = co_await activate();
        o.port_info_sets += activated.report.sets;
        o.phases.push_back(std::move(activated.phase));
    }

    const auto unconfirmed = unconfirmed_reason(programmed.report, activated.report);
    o.up = !unconfirmed;
    if (unconfirmed) o.reason = *unconfirmed;
    o.partial = !o.up && found.complete();
    if (o.up && routed.degraded) {
        o.degraded = true;
        o.reason = *routed.degraded;
    }
    log_transport_trouble(transport_.counters());
    save_kept_fields();

    // What the ports confirmed becomes the snapshot's state, so the next
    // re-route compares against what the fabric holds.
    auto held = confirmed_fabric(std::move(found), ports_.plan(), o.up, programmed.report.lfts, *routed.tables,
                                 settings_.lfts.life_time_value, routed.lids.lids);
    ports_.release_plan();
    if (o.up && on_up_) on_up_();
    co_return publish(std::move(o), std::move(held), std::move(routed.lids), std::move(routed.tables), start,
                      smps_before);
}

SweepOutcome Bringup::publish(SweepOutcome o, DiscoveryResult fabric, std::optional<LidAssignment> lids,
                              std::shared_ptr<const routing::RoutingTables> tables, Clock::time_point start,
                              std::uint64_t smps_before)
{
    stamp_totals(o, start, smps_before);
    auto snap = std::make_shared<SubnetSnapshot>();
    snap->generation = ++generation_;
    o.generation = snap->generation;
    snap->health = !o.up ? SubnetHealth::down : o.degraded ? SubnetHealth::degraded : SubnetHealth::up;
    snap->reason = o.reason;
    snap->engine = o.engine;
    snap->lmc = settings_.lid.lmc;
    snap->partitions = partitions_;
    if (partitions_) snap->pkey_tables = pkeys_.held();
    snap->isolated = applied_;
    snap->qos_policy = policy_;
    if (tables) snap->sl_vl = sl_vl_;
    if (tables) snap->vl_tables = vl_tables_;
    if (lids) snap->summary = subnet_summary(o, fabric, *lids, settings_.lid.lmc);
    if (lids) snap->lids = std::move(*lids);
    snap->tables = std::move(tables);
    snap->found = std::move(fabric);
    // From the PortInfo this sweep read and the ports confirmed: no SMP of
    // its own, so every generation carries it; a heavy sweep (which read
    // every port) tells the log, a re-route does not repeat it.
    snap->link_checks = health::check_links(snap->found.fabric, snap->found.port_info,
                                            health::LinkCheckOptions{settings_.ports.max_operational_vls});
    if (o.kind == SweepKind::heavy) {
        const auto log = link_check_log(snap->found.fabric, snap->link_checks);
        spdlog::info("{}", log.summary);
        for (const auto& w : log.warnings) spdlog::warn("link check: {}", w);
    }
    snapshot_ = std::move(snap);
    return o;
}

void Bringup::stamp_totals(SweepOutcome& o, Clock::time_point start, std::uint64_t smps_before) const
{
    o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    o.smps = transport_.counters().requests - smps_before;
}

} // namespace ibsm::daemon
