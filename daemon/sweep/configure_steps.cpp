// The steps of Bringup::configure (bringup.h): assign LIDs, route, program,
// activate. configure() (bringup.cpp) runs them in order and publishes.
//
// Why apart: configure() reads as the pipeline; each step's details (what
// runs off the loop, what is logged, which state it keeps across sweeps)
// live here, one member function per step.
//
// Data structures: each step returns a named result (LidStep, RouteStep,
// ProgramStep, ActivateStep) with its PhaseStats; what they keep across
// sweeps is Bringup's: the remembered GUID -> LID map (guid2lid's content)
// and the programmers' confirmed state.
//
// Algorithm: LIDs from guid2lid and the ports (lidassign); routing and the
// guid2lid write side by side on worker threads; the LFT blocks on the wire
// beside the port-side tables (the port and VL plans computed off the loop
// while the P_Key blocks go, then VL tables and switch ports' PortInfo),
// then CA ports' PortInfo; activation fabric-wide (port_programmer.h).
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/phase_clock.h"
#include "daemon/sweep/qos_facts.h"
#include "health/isolation.h"
#include "mad/port_codes.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <system_error>

namespace ibsm::daemon {

namespace {

void log_failures(const std::vector<std::string>& failures, std::uint64_t total)
{
    for (const auto& f : failures) spdlog::warn("  {}", f);
    if (total > failures.size()) spdlog::warn("  ... and {} more", total - failures.size());
}

std::string program_detail(const ProgramReport& r, bool partitions)
{
    return "LFT blocks sent: " + std::to_string(r.lfts.blocks_sent) + " (read " + std::to_string(r.lfts.blocks_read) +
           ", dirty " + std::to_string(r.lfts.blocks_dirty) + "), SwitchInfo sets " +
           std::to_string(r.lfts.switch_info_sent) + ", VL tables read " + std::to_string(r.vls.gets) + " set " +
           std::to_string(r.vls.sets) + " (SL2VL " + std::to_string(r.vls.sl2vl_sets) + ", VLArb " +
           std::to_string(r.vls.vlarb_sets) + "), PortInfo sets " + std::to_string(r.ports.sets) +
           (partitions ? ", P_Key blocks sent " + std::to_string(r.pkeys.blocks_sent) + " (read " +
                             std::to_string(r.pkeys.blocks_read) + ")"
                       : "");
}

} // namespace

template <class F>
boost::asio::awaitable<std::invoke_result_t<F>> Bringup::off_loop(F f)
{
    using R = std::invoke_result_t<F>;
    co_return co_await boost::asio::co_spawn(
        compute_.get_executor(), [f = std::move(f)]() mutable -> boost::asio::awaitable<R> { co_return f(); },
        boost::asio::use_awaitable);
}

// ---- assign LIDs

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

Bringup::LidStep Bringup::assign_lids(const DiscoveryResult& found)
{
    PhaseClock clock(transport_);
    load_remembered();
    LidAssignment a;
    a.previous = *remembered_;
    try {
        auto result = lidassign::assign_base_lids(found.fabric, a.previous, settings_.lid);
        a.lids = std::move(result.lids);
        a.notes = std::move(result.notes);
    } catch (const lidassign::LidSpaceExhausted& e) {
        return LidStep{std::nullopt, std::string("LID assignment: ") + e.what(), {}};
    }
    if (auto sm = a.lids.lids_of(found.sm_port)) a.sm_lid = sm->base;
    const auto& f = found.fabric;
    for (const auto& n : a.notes)
        spdlog::info("LID note: {} port {}: {}", f.node(n.port.node).guid.str(), n.port.port.value(), n.text);
    remember_lids(found, a);
    auto phase = clock.finish("lids", std::to_string(a.lids.port_count()) + " ports, top LID " +
                                          std::to_string(a.lids.top().value()) + ", " +
                                          std::to_string(a.previous.size()) + " remembered");
    return LidStep{std::move(a), {}, std::move(phase)};
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

std::string Bringup::save_lids(const DiscoveryResult& found, const lidassign::LidMap& lids)
{
    try {
        store_.save(found.fabric, lids, *remembered_);
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

LidAssignment Bringup::adopt_engine_lids(const DiscoveryResult& found, LidAssignment lids,
                                         const lidassign::LidMap& assigned)
{
    lids.lids = assigned;
    lids.sm_lid = Lid();
    if (auto sm = lids.lids.lids_of(found.sm_port)) lids.sm_lid = sm->base;
    remember_lids(found, lids);
    // Written by the next sweep's LID phase if not now: the blocks are in
    // memory (remembered_), and the write is cheap next to a re-route.
    if (store_dirty_) {
        const auto error = save_lids(found, lids.lids);
        if (error.empty())
            store_dirty_ = false;
        else
            spdlog::error("guid2lid not written ({}); the LID blocks stay remembered in memory", error);
    }
    return lids;
}

// ---- route

unsigned Bringup::vl_cap(const DiscoveryResult& found) const
{
    // Engines may use only the VLs every linked port can carry: an SL the
    // port programmer would fold onto a lower VL would merge two layers.
    unsigned cap = settings_.route.max_vls;
    // A VLCap code that is reserved (0, 6..15: mad::vl_count answers 0)
    // says nothing about the port and does not limit.
    for (const auto& [ref, pi] : found.port_info)
        if (const unsigned vls = mad::vl_count(pi.vl_cap); vls != 0 && found.fabric.remote(ref))
            cap = std::min(cap, vls);
    // QoS VLs above the OperationalVLs the ports are given (1, 2, 4, 8 or
    // 15: routing.max_vls 3 operates 2) would fold onto others.
    if (settings_.qos.enabled) cap = std::min(cap, mad::vl_count(settings_.ports.max_operational_vls));
    return std::max(1u, cap);
}

routing::ChainOutcome Bringup::run_chain(const DiscoveryResult& found, const LidAssignment& lids,
                                         const config::QosConfig& qos, const qos::RoutingBudget& budget,
                                         unsigned cap)
{
    routing::Options options = settings_.route;
    options.lmc = settings_.lid.lmc;
    options.max_vls = static_cast<std::uint8_t>(std::max(1u, budget.layers));
    if (qos.enabled) {
        options.budget_refusal = [budget, cap](const std::string& engine, unsigned needed) {
            return qos::budget_refusal(engine, needed, budget, cap);
        };
        // The gate sees each routing SL on every VL the QoS tables give it.
        // A routing the plan cannot take (more layers than the budget, which
        // the gate refuses anyway) is checked with every SL on every VL, the
        // strictest reading.
        options.vl_masks = [qos, cap](unsigned vls_used) {
            auto plan = qos::plan_sl_vl(qos, vls_used, cap);
            if (auto* p = std::get_if<qos::SlVlPlan>(&plan)) return p->vl_mask_of_routing_sl;
            std::array<std::uint16_t, 16> all{};
            all.fill(0x7fff);
            return all;
        };
    }
    options.sm_port_guid = found.fabric.port(found.sm_port).guid;
    // A path engine in the colour-first order keeps the persisted blocks
    // where they still fit (lidassign/path_lids.h).
    options.previous_lids = lids.previous;
    // Never throws: it runs beside the guid2lid write in one parallel
    // group, and an exception out of one half would cancel the group while
    // the other half still runs on a worker reading this sweep's values.
    route_memory_.gate.cross_check = settings_.verify_incremental;
    try {
        // Isolated links leave the routing like pulled cables: the engines
        // and the gate see the fabric without them.
        // The chain re-routes the delta from the last routing where it can.
        if (!applied_.empty())
            return routing::run_chain(routing::default_registry(), settings_.chain,
                                      health::without_isolated(found.fabric, applied_), lids.lids, options,
                                      &route_memory_);
        return routing::run_chain(routing::default_registry(), settings_.chain, found.fabric, lids.lids, options,
                                  &route_memory_);
    } catch (const std::exception& e) {
        route_memory_.forget();
        routing::ChainOutcome out;
        out.refusals.push_back(routing::Refusal{"chain", e.what()});
        return out;
    }
}

boost::asio::awaitable<Bringup::RouteStep> Bringup::route(const DiscoveryResult& found, LidAssignment lids)
{
    // A changed guid2lid is written (fsync'd: 10-70 ms here) on the second
    // worker thread meanwhile; both finish before anything is programmed,
    // so a LID on the wire is on disk whenever the disk allows.
    PhaseClock clock(transport_);
    using namespace boost::asio::experimental::awaitable_operators;
    const bool save = store_dirty_;
    // The routing's share of the VLs. A policy that fit routing.max_vls at
    // start but not this fabric's ports (a VLCap below it) is not applied:
    // the fabric is routed and programmed as without one, and the log says so.
    const unsigned cap = vl_cap(found);
    const config::QosConfig none;
    const config::QosConfig* qos = &settings_.qos;
    std::string why;
    auto budget = qos::routing_budget(*qos, cap, &why);
    if (!budget) {
        spdlog::error("qos policy NOT applied: {} (the ports' VLCap allows {}); routing and VL tables as without qos:",
                      why, cap);
        qos = &none;
        budget = qos::routing_budget(none, cap, nullptr);
    } else if (qos->enabled) {
        spdlog::info("qos: {}", budget->explain);
    }
    auto [save_error, chain] =
        co_await (off_loop([&] { return save ? save_lids(found, lids.lids) : std::string(); }) &&
                  off_loop([&] { return run_chain(found, lids, *qos, *budget, cap); }));
    if (save && save_error.empty()) store_dirty_ = false;
    if (!save_error.empty())
        spdlog::error("guid2lid not written ({}); the LIDs stay remembered in memory and the file is written again with "
                      "the next sweep: make {} writable",
                      save_error, settings_.state_dir.string());
    for (const auto& r : chain.refusals) spdlog::warn("routing engine {} refused: {}", r.engine, r.reason);
    for (std::size_t i = 0; i < chain.gate_runs.size() && i < chain.verdicts.size(); ++i)
        if (!chain.gate_runs[i].mismatch.empty())
            spdlog::error("incremental gate MISMATCH on engine {}'s tables: {}; the full gate's verdict is kept and "
                          "the next routing is gated in full. This is a bug in ibsmd: report it with this log",
                          chain.verdicts[i].engine, chain.gate_runs[i].mismatch);
    RouteStep step;
    if (qos->enabled)
        step.policy = std::make_shared<const qos::QosPolicy>(*qos, qos_port_facts(found, partitions_.get()));
    if (!chain.tables) {
        step.lids = std::move(lids);
        step.phase = clock.finish("route", "every engine refused");
        step.failure = "no routing engine could route the fabric";
        for (const auto& r : chain.refusals) step.failure += "; " + r.engine + ": " + r.reason;
        co_return step;
    }
    if (chain.degraded) {
        spdlog::error("routing DEGRADED: no engine's tables passed verification; programming the least bad, {}. "
                      "Fix the fabric or the engine chain (routing.engines)",
                      chain.degraded_reason);
        step.degraded = chain.degraded_reason;
    }
    // A path engine in the colour-first order assigned the LIDs itself (per-port
    // LMC): those are programmed, published and remembered instead.
    for (const auto& n : chain.tables->lid_notes) spdlog::info("LID note: {}: {}", chain.tables->engine, n);
    for (const auto& n : chain.tables->notes) spdlog::info("routing note: {}: {}", chain.tables->engine, n);
    step.lids = chain.tables->lids ? adopt_engine_lids(found, std::move(lids), *chain.tables->lids) : std::move(lids);
    const std::string gate_how = chain.gate_run() ? ", " + chain.gate_run()->describe() : std::string();
    step.tables = chain.tables; // the chain's memory holds the same tables
    const auto& t = *step.tables;
    plan_qos(step, *qos, cap);
    step.phase = clock.finish("route", "engine " + t.engine + (chain.fell_back ? " (fallback)" : "") +
                                           (chain.degraded ? " DEGRADED" : ", verified") + ", " +
                                           std::to_string(t.lfts.size()) + " switch tables, top LID " +
                                           std::to_string(t.linear_fdb_top.value()) + "; " + chain.route_how + gate_how);
    co_return step;
}

void Bringup::plan_qos(RouteStep& step, const config::QosConfig& qos, unsigned cap) const
{
    const auto& t = *step.tables;
    auto plan = qos::plan_sl_vl(qos, t.vls_used, cap);
    if (auto* why = std::get_if<std::string>(&plan)) {
        // Only degraded tables get here (the gate refuses more layers than
        // the budget): program them as without a policy, said loudly.
        spdlog::error("qos tables NOT applied to engine {}'s routing: {}", t.engine, *why);
        plan = qos::plan_sl_vl(config::QosConfig{}, t.vls_used, cap);
    }
    step.sl_vl = std::make_shared<const qos::SlVlPlan>(std::get<qos::SlVlPlan>(std::move(plan)));
    if (step.sl_vl->from_policy)
        spdlog::info("qos: SL/VL plan for engine {}: {} routing layer(s) in each of {} VL band(s), {} VL(s)", t.engine,
                     step.sl_vl->layers, step.sl_vl->vls / std::max(1u, step.sl_vl->layers), step.sl_vl->vls);
}

// ---- partitions

std::shared_ptr<const partition::Partitions> Bringup::resolve_partitions(const DiscoveryResult& found, SweepOutcome& o)
{
    if (!settings_.partitions) return nullptr;
    const auto& f = found.fabric;
    std::vector<partition::EndPort> ports;
    for (auto id : f.node_ids()) {
        const auto& node = f.node(id);
        if (node.is_switch()) {
            ports.push_back({node.guid, partition::PortKind::switch_node});
            continue;
        }
        const auto kind = node.type == topology::NodeType::router ? partition::PortKind::router : partition::PortKind::ca;
        for (std::uint8_t p = 1; p <= node.num_ports(); ++p) {
            const auto& port = f.port(topology::PortRef{id, PortNum(p)});
            if (port.known && !port.guid.is_zero()) ports.push_back({port.guid, kind});
        }
    }
    Guid sm_port;
    if (found.sm_port.node.value < f.node_count()) {
        const auto& node = f.node(found.sm_port.node);
        sm_port = node.is_switch() ? node.guid : f.port(found.sm_port).guid;
    }
    auto p = std::make_shared<const partition::Partitions>(*settings_.partitions, ports,
                                                           partition::Settings{sm_port, settings_.allow_both_pkeys});
    if (last_rules_ != settings_.partitions) {
        if (last_partitions_) {
            o.partition_changes = partition::changes(*last_partitions_, *p, ports);
            for (const auto& c : o.partition_changes) spdlog::info("partitions: {}", c.text());
            if (o.partition_changes.empty()) spdlog::info("partitions: new rules, no port's membership changes");
        }
        for (const auto& info : p->partitions())
            spdlog::info("partition {} ({}): {} full, {} limited member port(s){}", info.name, hex16(info.pkey),
                         info.full, info.limited,
                         info.groups.empty() ? "" : ", " + std::to_string(info.groups.size()) + " multicast group(s)");
        last_rules_ = settings_.partitions;
    }
    last_partitions_ = p;
    return p;
}

// ---- program

void Bringup::forget_relinked(const DiscoveryResult& found)
{
    // A port in INIT went through link-up again (a relinked cable, a reset
    // device): its VL tables may be lost, and its P_Key table too.
    std::set<std::pair<Guid, std::uint8_t>> fresh;
    for (const auto& [ref, pi] : found.port_info)
        if (pi.port_state == mad::PortState::init) fresh.insert({found.fabric.node(ref.node).guid, ref.port.value()});
    vls_.forget(fresh);
    pkeys_.forget(fresh);
}

boost::asio::awaitable<ProgramReport> Bringup::run_programmers(const DiscoveryResult& found, const LidAssignment& lids,
                                                               std::shared_ptr<const routing::RoutingTables> shared,
                                                               const qos::SlVlPlan& sl_vl, const qos::QosPolicy* policy)
{
    const routing::RoutingTables& tables = *shared;
    ProgramReport report;
    // Two strands share the transport's window, so neither drains it
    // waiting for the other: the LFT blocks (then SwitchInfo), and the
    // port-side tables: the port plan and the VL tables (tens of ms of CPU
    // at thousands of ports), planned on a worker thread while the P_Key
    // blocks go out, then VL tables, then the PortInfo of switch ports not
    // being activated (port 0's LID, ACTIVE ports' settings). Nothing on the
    // loop touches ports_ or reads the VL settings meanwhile. Kept in order:
    // VL and P_Key tables before any PortInfo Set (a switch port enforces
    // partitions only once its P_Key table holds its CA's keys, and
    // OperationalVLs changes after the SL2VL tables); CA ports' PortInfo
    // (their LID, MasterSMLID) after the LFT blocks that route those LIDs;
    // activation after all of it (P_Keys before ACTIVE: IPoIB reads the
    // table when its port comes up).
    ports_.learn_keys(found);
    // Switch ports whose CA's keys overflow the enforcement table do not
    // enforce (pkey_programmer.h); the plan below needs to know which.
    ports_.set_unenforced(partitions_ ? pkeys_.unenforced(found, *partitions_)
                                      : std::set<std::pair<Guid, std::uint8_t>>{});
    using namespace boost::asio::experimental::awaitable_operators;
    std::shared_ptr<const VlTablesHeld> held;
    auto pkey_tables = [&]() -> boost::asio::awaitable<PKeyReport> {
        if (!partitions_) co_return PKeyReport{};
        co_return co_await pkeys_.program(transport_, found, *partitions_);
    };
    auto port_side = [&]() -> boost::asio::awaitable<void> {
        auto [vl_plan, pkey_report] = co_await (off_loop([&] {
                                                    ports_.prepare(found, lids.lids, lids.sm_lid, &tables.sl, &sl_vl,
                                                                   policy);
                                                    auto planned = vls_.plan(found, ports_.plan(), sl_vl, policy);
                                                    held = std::make_shared<const VlTablesHeld>(
                                                        held_vl_tables(planned.writes));
                                                    return planned;
                                                }) &&
                                                pkey_tables());
        report.pkeys = std::move(pkey_report);
        report.vls = co_await vls_.program(transport_, std::move(vl_plan));
        report.ports = co_await ports_.configure(transport_, PortSide::switches);
    };
    auto lft_report = co_await (lfts_.program(transport_, found, std::move(shared)) && port_side());
    report.lfts = std::move(lft_report);
    report.ports.add(co_await ports_.configure(transport_, PortSide::end_ports));
    // Published only with an up outcome, i.e. once every table is confirmed.
    vl_tables_ = std::move(held);
    co_return report;
}

boost::asio::awaitable<Bringup::ProgramStep> Bringup::program(const DiscoveryResult& found, const LidAssignment& lids,
                                                              const RouteStep& routed, bool resuming, SweepKind kind)
{
    const auto& tables = *routed.tables;
    if (!resuming) forget_relinked(found);
    PhaseClock clock(transport_);
    ProgramStep step;
    step.report = co_await run_programmers(found, lids, routed.tables, *routed.sl_vl, routed.policy.get());
    const auto& r = step.report;
    step.phase = clock.finish("program", program_detail(r, partitions_ != nullptr));
    if (r.vls.switches_left && kind == SweepKind::heavy)
        spdlog::info("SL2VL: {} switch(es) without OptimizedSLtoVLMappingProgramming keep their own tables: engine {} "
                     "needs one VL and no qos table moves an SL off VL 0 between switches, so any SL-to-VL map is "
                     "deadlock-free (routing.switch_sl2vl: always programs every input/output port pair)",
                     r.vls.switches_left, tables.engine);
    if (r.vls.ports_left && kind == SweepKind::heavy)
        spdlog::info("VL tables: {} port(s) keep their own SL2VL and VLArb tables: engine {} needs one VL and no qos "
                     "policy weighs VLs, so every path's SL 0 rides the VL the port maps it to "
                     "(routing.vl_tables: always programs them)",
                     r.vls.ports_left, tables.engine);
    log_failures(r.lfts.failures, r.lfts.failures.size());
    log_failures(r.vls.failures, r.vls.failed);
    log_failures(r.ports.failures, r.ports.failed);
    log_failures(r.pkeys.failures, r.pkeys.failures.size());
    co_return step;
}

// ---- activate

boost::asio::awaitable<Bringup::ActivateStep> Bringup::activate()
{
    PhaseClock clock(transport_);
    ActivateStep step;
    step.report = co_await ports_.activate(transport_);
    const auto& a = step.report;
    step.phase = clock.finish("activate", std::to_string(a.armed) + " ports armed, " + std::to_string(a.activated) +
                                              " activated, " + std::to_string(a.failed) + " failed");
    log_failures(a.failures, a.failed);
    co_return step;
}

} // namespace ibsm::daemon
