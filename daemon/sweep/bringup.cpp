#include "daemon/sweep/bringup.h"

#include "daemon/sweep/sweep_report.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>
#include <system_error>

namespace ibsm::daemon {

namespace {

using Clock = std::chrono::steady_clock;

class PhaseClock {
public:
    explicit PhaseClock(const mad::Transport& t) : transport_(t), start_(Clock::now()), smps_(t.counters().requests) {}

    PhaseStats finish(std::string name, std::string detail) const
    {
        PhaseStats p{std::move(name), std::chrono::duration<double>(Clock::now() - start_).count(),
                     transport_.counters().requests - smps_, std::move(detail)};
        spdlog::info("phase {:<8} {:8.3f} s {:8} SMPs  {}", p.name, p.seconds, p.smps, p.detail);
        return p;
    }

private:
    const mad::Transport& transport_;
    Clock::time_point start_;
    std::uint64_t smps_;
};

void log_failures(const std::vector<std::string>& failures, std::uint64_t total)
{
    for (const auto& f : failures) spdlog::warn("  {}", f);
    if (total > failures.size()) spdlog::warn("  ... and {} more", total - failures.size());
}

} // namespace

Bringup::Bringup(mad::Transport& transport, BringupSettings settings)
    : transport_(transport), settings_(std::move(settings)), store_(settings_.state_dir), lfts_(settings_.lfts),
      ports_(settings_.ports), vls_(settings_.vls), pkeys_(settings_.pkeys)
{
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
    settings_.chain = pending_->chain;
    settings_.route = pending_->route;
    settings_.lid = pending_->lid;
    settings_.ports.max_operational_vls = pending_->ports.max_operational_vls;
    ports_.set_max_operational_vls(pending_->ports.max_operational_vls);
    settings_.vls.all_switch_pairs = pending_->vls.all_switch_pairs;
    vls_.set_all_switch_pairs(pending_->vls.all_switch_pairs);
    pending_.reset();
}

void Bringup::load_remembered()
{
    if (remembered_) return;
    try {
        remembered_ = store_.load();
        return;
    } catch (const std::exception& e) {
        // A corrupt file must not keep the subnet down, nor be silently
        // overwritten: it is moved aside for the operator, and the LIDs the
        // ports already carry are kept (assign_base_lids' second rule).
        const auto aside = store_.file().string() + ".corrupt-" + std::to_string(std::time(nullptr));
        std::error_code ec;
        std::filesystem::rename(store_.file(), aside, ec);
        spdlog::error("guid2lid unreadable ({}); {}; LIDs are taken from the ports, which keep the ones they have. "
                      "Restore a good copy or leave the new file the SM writes",
                      e.what(), ec ? "could not move it aside: " + ec.message() : "moved to " + aside);
    }
    remembered_.emplace();
    store_dirty_ = true;
}

std::optional<LidAssignment> Bringup::assign_lids(const DiscoveryResult& found, SweepOutcome& o)
{
    load_remembered();
    LidAssignment a;
    a.previous = *remembered_;
    try {
        auto result = lidassign::assign_base_lids(found.fabric, a.previous, settings_.lid);
        a.lids = std::move(result.lids);
        a.notes = std::move(result.notes);
    } catch (const lidassign::LidSpaceExhausted& e) {
        o.reason = std::string("LID assignment: ") + e.what();
        return std::nullopt;
    }
    if (auto sm = a.lids.lids_of(found.sm_port)) a.sm_lid = sm->base;
    return a;
}

void Bringup::remember_lids(const DiscoveryResult& found, const LidAssignment& lids)
{
    for (const auto& ref : lidassign::addressable_ports(found.fabric)) {
        auto l = lids.lids.lids_of(ref);
        if (!l) continue;
        const Guid g = found.fabric.port(ref).guid;
        auto [it, fresh] = remembered_->try_emplace(g, l->base);
        if (!fresh && it->second != l->base) it->second = l->base, fresh = true;
        store_dirty_ = store_dirty_ || fresh;
    }
}

void Bringup::adopt_engine_lids(const DiscoveryResult& found, LidAssignment& lids, const lidassign::LidMap& assigned)
{
    lids.lids = assigned;
    lids.sm_lid = Lid();
    if (auto sm = lids.lids.lids_of(found.sm_port)) lids.sm_lid = sm->base;
    remember_lids(found, lids);
    // Written by the next sweep's LID phase if not now: the blocks are in
    // memory (remembered_), and the write is cheap next to a re-route.
    if (store_dirty_) {
        try {
            store_.save(found.fabric, lids.lids, *remembered_);
            store_dirty_ = false;
        } catch (const std::exception& e) {
            spdlog::error("guid2lid not written ({}); the LID blocks stay remembered in memory", e.what());
        }
    }
}

routing::ChainOutcome Bringup::route(const DiscoveryResult& found, const LidAssignment& lids) const
{
    routing::Options options = settings_.route;
    options.lmc = settings_.lid.lmc;
    // Engines may use only the VLs every linked port can carry: an SL the
    // port programmer would fold onto a lower VL would merge two layers.
    unsigned cap = options.max_vls;
    for (const auto& [ref, pi] : found.port_info)
        if (found.fabric.remote(ref) && pi.vl_cap != 0) cap = std::min(cap, vl_count(pi.vl_cap));
    options.max_vls = static_cast<std::uint8_t>(std::max(1u, cap));
    options.sm_port_guid = found.fabric.port(found.sm_port).guid;
    // A path engine in the colour-first order keeps the persisted blocks
    // where they still fit (lidassign/path_lids.h).
    options.previous_lids = lids.previous;
    // Never throws: it runs beside the guid2lid write in one parallel
    // group, and an exception out of one half would cancel the group while
    // the other half still runs on a worker reading this sweep's values.
    try {
        return routing::run_chain(routing::default_registry(), settings_.chain, found.fabric, lids.lids, options);
    } catch (const std::exception& e) {
        routing::ChainOutcome out;
        out.refusals.push_back(routing::Refusal{"chain", e.what()});
        return out;
    }
}

template <class F>
boost::asio::awaitable<std::invoke_result_t<F>> Bringup::off_loop(F f)
{
    using R = std::invoke_result_t<F>;
    co_return co_await boost::asio::co_spawn(
        compute_.get_executor(), [f = std::move(f)]() mutable -> boost::asio::awaitable<R> { co_return f(); },
        boost::asio::use_awaitable);
}

boost::asio::awaitable<ProgramReport> Bringup::program(const DiscoveryResult& found, const LidAssignment& lids,
                                                       const routing::RoutingTables& tables)
{
    ProgramReport report;
    // The port plan and the VL tables (tens of ms of CPU at thousands of
    // ports) are planned on a worker thread while the LFT blocks are on the
    // wire; nothing on the loop touches ports_ or reads the VL settings
    // meanwhile. Switch tables and the PortInfo of ports that are not being
    // activated (switch port 0, ports already ACTIVE) are independent.
    using namespace boost::asio::experimental::awaitable_operators;
    auto [lft_report, vl_plan] = co_await (lfts_.program(transport_, found, tables) && off_loop([&] {
                                               ports_.prepare(found, lids.lids, lids.sm_lid, &tables.sl);
                                               return vls_.plan(found, ports_.plan(), tables.vls_used);
                                           }));
    report.lfts = std::move(lft_report);
    report.vls = co_await vls_.program(transport_, std::move(vl_plan));
    // P_Key tables before any port goes ACTIVE: IPoIB reads the table when
    // its port comes up.
    if (settings_.partitions) report.pkeys = co_await pkeys_.program(transport_, found, *settings_.partitions);
    report.ports = co_await ports_.configure(transport_);
    co_return report;
}

boost::asio::awaitable<SweepOutcome> Bringup::sweep()
{
    apply_pending();
    SweepOutcome o;
    o.kind = SweepKind::heavy;
    PhaseClock c1(transport_);
    const auto start = Clock::now();
    const auto smps_before = transport_.counters().requests;
    DiscoveryResult found = co_await discover(transport_);
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
            o.nodes = f.node_count();
            o.switches = f.switch_count();
            o.cas = f.ca_count();
            o.links = f.link_count();
            o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
            o.smps = transport_.counters().requests - smps_before;
            co_return o;
        }
    }
    co_return co_await configure(std::move(found), std::move(o), start, smps_before);
}

boost::asio::awaitable<SweepOutcome> Bringup::reroute(const RefreshRequest& request)
{
    apply_pending();
    SweepOutcome o;
    o.kind = SweepKind::reroute;
    if (gate_) {
        if (auto why = gate_->standing_by()) {
            o.standby = true;
            o.reason = std::move(*why);
            co_return o;
        }
    }
    const SnapshotPtr previous = snapshot_;
    if (!previous) {
        o.needs_heavy = true;
        o.reason = "no configured subnet to re-route yet";
        co_return o;
    }
    const auto start = Clock::now();
    const auto smps_before = transport_.counters().requests;
    PhaseClock c1(transport_);
    auto r = co_await refresh(transport_, previous->found, request);
    o.changes = std::move(r.changes);
    const auto& ch = o.changes;
    o.phases.push_back(c1.finish("refresh", std::to_string(request.switches.size()) + " switch(es), " +
                                                std::to_string(request.ports.size()) + " port(s) re-read: " +
                                                std::to_string(ch.links_down) + " link(s) down, " +
                                                std::to_string(ch.links_up) + " up, " + std::to_string(ch.nodes_new) +
                                                " new node(s), " + std::to_string(ch.nodes_lost) + " lost, " +
                                                std::to_string(ch.ports_changed) + " port(s) changed"));
    for (const auto& t : ch.text) spdlog::info("  {}", t);
    auto done = [&] {
        o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        o.smps = transport_.counters().requests - smps_before;
    };
    if (!r.found.complete()) {
        o.needs_heavy = true;
        const auto& m = r.found.missing;
        o.reason = m.empty() ? "duplicate GUID seen during the refresh"
                             : std::to_string(m.size()) + " refresh queries failed (first: " + m.front().what + " at " +
                                   m.front().path.str() + ": " + m.front().why + ")";
        done();
        co_return o;
    }
    if (!ch.any() && previous->health != SubnetHealth::down) {
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

boost::asio::awaitable<SweepOutcome> Bringup::configure(DiscoveryResult found, SweepOutcome o, Clock::time_point start,
                                                       std::uint64_t smps_before, bool resuming)
{
    const auto& f = found.fabric;
    o.nodes = f.node_count();
    o.switches = f.switch_count();
    o.cas = f.ca_count();
    o.links = f.link_count();
    auto publish = [&](std::optional<LidAssignment> lids, std::shared_ptr<const routing::RoutingTables> tables) {
        o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        o.smps = transport_.counters().requests - smps_before;
        auto snap = std::make_shared<SubnetSnapshot>();
        snap->generation = ++generation_;
        o.generation = snap->generation;
        snap->health = !o.up ? SubnetHealth::down : o.degraded ? SubnetHealth::degraded : SubnetHealth::up;
        snap->reason = o.reason;
        snap->engine = o.engine;
        snap->lmc = settings_.lid.lmc;
        snap->partitions = settings_.partitions;
        if (lids) snap->summary = subnet_summary(o, found, *lids, settings_.lid.lmc);
        if (lids) snap->lids = std::move(*lids);
        snap->tables = std::move(tables);
        snap->found = std::move(found);
        snapshot_ = std::move(snap);
    };

    // An SM whose own port has no link reaches nothing: say so (the
    // scheduler logs it), instead of a "subnet" of one port that no packet
    // can leave (a switch's port 0 has no link by nature).
    if (!f.node(found.sm_port.node).is_switch() && !f.remote(found.sm_port)) {
        o.reason = "the SM's own port has no link (PortState DOWN): check its cable and the switch port at its "
                   "other end, or run the SM on another port (--port-guid, --ca/--port)";
        publish(std::nullopt, nullptr);
        co_return o;
    }

    // LIDs
    PhaseClock c2(transport_);
    auto assigned = assign_lids(found, o);
    if (!assigned) {
        spdlog::error("subnet NOT up: {}", o.reason);
        publish(std::nullopt, nullptr);
        co_return o;
    }
    auto& lids = *assigned;
    for (const auto& n : lids.notes)
        spdlog::info("LID note: {} port {}: {}", f.node(n.port.node).guid.str(), n.port.port.value(), n.text);
    remember_lids(found, lids);
    o.phases.push_back(c2.finish("lids", std::to_string(lids.lids.port_count()) + " ports, top LID " +
                                             std::to_string(lids.lids.top().value()) + ", " +
                                             std::to_string(lids.previous.size()) + " remembered"));

    // route. A changed guid2lid is written (fsync'd: 10-70 ms here) on the
    // second worker thread meanwhile; both finish before anything is
    // programmed, so a LID on the wire is on disk whenever the disk allows.
    PhaseClock c3(transport_);
    using namespace boost::asio::experimental::awaitable_operators;
    const bool save = store_dirty_;
    auto [saved, chain] = co_await (off_loop([&]() -> std::string {
                                        if (!save) return {};
                                        try {
                                            store_.save(found.fabric, lids.lids, *remembered_);
                                            return {};
                                        } catch (const std::exception& e) {
                                            return e.what();
                                        }
                                    }) &&
                                    off_loop([&] { return route(found, lids); }));
    if (save && saved.empty()) store_dirty_ = false;
    if (!saved.empty())
        spdlog::error("guid2lid not written ({}); the LIDs stay remembered in memory and the file is written again with "
                      "the next sweep: make {} writable",
                      saved, settings_.state_dir.string());
    for (const auto& r : chain.refusals) spdlog::warn("routing engine {} refused: {}", r.engine, r.reason);
    if (!chain.tables) {
        o.phases.push_back(c3.finish("route", "every engine refused"));
        o.reason = "no routing engine could route the fabric";
        for (const auto& r : chain.refusals) o.reason += "; " + r.engine + ": " + r.reason;
        spdlog::error("subnet NOT up: {}", o.reason);
        publish(std::move(lids), nullptr);
        co_return o;
    }
    if (chain.degraded)
        spdlog::error("routing DEGRADED: no engine's tables passed verification; programming the least bad, {}. "
                      "Fix the fabric or the engine chain (routing.engines)",
                      chain.degraded_reason);
    // A path engine in the colour-first order assigned the LIDs itself (per-port
    // LMC): those are programmed, published and remembered instead.
    for (const auto& n : chain.tables->lid_notes) spdlog::info("LID note: {}: {}", chain.tables->engine, n);
    if (chain.tables->lids) adopt_engine_lids(found, lids, *chain.tables->lids);
    auto tables = std::make_shared<const routing::RoutingTables>(std::move(*chain.tables));
    o.engine = tables->engine;
    o.phases.push_back(c3.finish("route", "engine " + tables->engine + (chain.fell_back ? " (fallback)" : "") +
                                              (chain.degraded ? " DEGRADED" : ", verified") +
                                              ", " + std::to_string(tables->lfts.size()) +
                                              " switch tables, top LID " +
                                              std::to_string(tables->linear_fdb_top.value())));

    // program
    if (!resuming) {
        std::set<std::pair<Guid, std::uint8_t>> fresh;
        for (const auto& [ref, pi] : found.port_info)
            if (pi.port_state == mad::PortState::init) fresh.insert({f.node(ref.node).guid, ref.port.value()});
        vls_.forget(fresh);
        pkeys_.forget(fresh); // a port that came up again may have lost its P_Key table
    }
    PhaseClock c4(transport_);
    auto prog = co_await program(found, lids, *tables);
    o.lft_blocks_sent = prog.lfts.blocks_sent;
    o.phases.push_back(c4.finish(
        "program", "LFT blocks sent: " + std::to_string(prog.lfts.blocks_sent) + " (read " +
                       std::to_string(prog.lfts.blocks_read) + ", dirty " + std::to_string(prog.lfts.blocks_dirty) +
                       "), SwitchInfo sets " + std::to_string(prog.lfts.switch_info_sent) + ", VL tables read " +
                       std::to_string(prog.vls.gets) + " set " + std::to_string(prog.vls.sets) + " (SL2VL " +
                       std::to_string(prog.vls.sl2vl_sets) + ", VLArb " + std::to_string(prog.vls.vlarb_sets) +
                       "), PortInfo sets " + std::to_string(prog.ports.sets) +
                       (settings_.partitions ? ", P_Key blocks sent " + std::to_string(prog.pkeys.blocks_sent) : "")));
    if (prog.vls.switches_left && o.kind == SweepKind::heavy)
        spdlog::info("SL2VL: {} switch(es) without OptimizedSLtoVLMappingProgramming keep their own tables: engine {} "
                     "needs one VL, so any SL-to-VL map is deadlock-free (routing.switch_sl2vl: always programs "
                     "every input/output port pair)",
                     prog.vls.switches_left, tables->engine);
    log_failures(prog.lfts.failures, prog.lfts.failures.size());
    log_failures(prog.vls.failures, prog.vls.failed);
    log_failures(prog.ports.failures, prog.ports.failed);
    log_failures(prog.pkeys.failures, prog.pkeys.failures.size());

    // activate: only on top of complete switch tables
    PortReport act;
    if (prog.complete()) {
        PhaseClock c5(transport_);
        act = co_await ports_.activate(transport_);
        o.phases.push_back(c5.finish("activate", std::to_string(act.armed) + " ports armed, " +
                                                     std::to_string(act.activated) + " activated, " +
                                                     std::to_string(act.failed) + " failed"));
        log_failures(act.failures, act.failed);
    }

    const auto unconfirmed = unconfirmed_reason(prog, act);
    o.up = !unconfirmed;
    if (unconfirmed) o.reason = *unconfirmed;
    o.partial = !o.up && found.complete();
    if (o.up && chain.degraded) {
        o.degraded = true;
        o.reason = chain.degraded_reason;
    }

    log_transport_trouble(transport_.counters());

    // What the ports confirmed becomes the snapshot's state, so the next
    // re-route compares against what the fabric holds.
    found = confirmed_fabric(std::move(found), ports_.plan(), o.up, prog.lfts, *tables,
                             settings_.lfts.life_time_value, lids.lids);
    if (o.up && on_up_) on_up_();
    publish(std::move(lids), std::move(tables));
    co_return o;
}

} // namespace ibsm::daemon
