#include "daemon/bringup.h"

#include "daemon/state_dump.h"
#include "daemon/sweep_report.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <sstream>

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

std::string summary_text(const SweepOutcome& o, const DiscoveryResult& found, const LidAssignment& lids,
                         const BringupSettings& s)
{
    std::ostringstream out;
    const auto now = std::time(nullptr);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
    const auto& sm = found.fabric.port(found.sm_port);
    out << "ibsmd subnet summary (" << when << ")\n"
        << "state:        " << (o.up ? "SUBNET UP" : "NOT UP: " + o.reason) << "\n"
        << "SM port:      " << sm.guid.str() << " LID " << lids.sm_lid.value() << "\n"
        << "fabric:       " << o.nodes << " nodes (" << o.switches << " switches, " << o.cas << " CAs), " << o.links
        << " links\n"
        << "discovery:    " << (found.complete() ? "complete" : "INCOMPLETE") << " (" << found.missing.size()
        << " missing, " << found.duplicates.size() << " duplicate GUIDs)\n"
        << "LIDs:         " << lids.lids.port_count() << " ports, top LID " << lids.lids.top().value() << ", LMC "
        << static_cast<int>(s.lid.lmc) << "\n"
        << "routing:      " << (o.engine.empty() ? "-" : o.engine) << "\n"
        << "LFT blocks sent: " << o.lft_blocks_sent << "\n"
        << "\nphase        seconds       SMPs\n";
    for (const auto& p : o.phases) {
        char line[128];
        std::snprintf(line, sizeof line, "%-10s %9.3f %10llu  ", p.name.c_str(), p.seconds,
                      static_cast<unsigned long long>(p.smps));
        out << line << p.detail << "\n";
    }
    char total[128];
    std::snprintf(total, sizeof total, "%-10s %9.3f %10llu  %.0f SMPs/s\n", "total", o.seconds,
                  static_cast<unsigned long long>(o.smps), o.seconds > 0 ? o.smps / o.seconds : 0.0);
    out << total;
    return out.str();
}

} // namespace

Bringup::Bringup(mad::Transport& transport, BringupSettings settings)
    : transport_(transport), settings_(std::move(settings)), store_(settings_.state_dir), lfts_(settings_.lfts),
      ports_(settings_.ports), vls_(settings_.vls)
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

LidAssignment Bringup::assign_lids(const DiscoveryResult& found) const
{
    LidAssignment a;
    a.previous = store_.load();
    auto result = lidassign::assign_base_lids(found.fabric, a.previous, settings_.lid);
    a.lids = std::move(result.lids);
    a.notes = std::move(result.notes);
    if (auto sm = a.lids.lids_of(found.sm_port)) a.sm_lid = sm->base;
    return a;
}

routing::ChainOutcome Bringup::route(const DiscoveryResult& found, const LidAssignment& lids) const
{
    routing::Options options = settings_.route;
    options.lmc = settings_.lid.lmc;
    options.sm_port_guid = found.fabric.port(found.sm_port).guid;
    return routing::run_chain(routing::default_registry(), settings_.chain, found.fabric, lids.lids, options);
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
                                               ports_.prepare(found, lids.lids, lids.sm_lid);
                                               return vls_.plan(found, ports_.plan(), tables.vls_used);
                                           }));
    report.lfts = std::move(lft_report);
    report.vls = co_await vls_.program(transport_, std::move(vl_plan));
    report.ports = co_await ports_.configure(transport_);
    co_return report;
}

boost::asio::awaitable<PortReport> Bringup::activate()
{
    co_return co_await ports_.activate(transport_);
}

boost::asio::awaitable<SweepOutcome> Bringup::sweep()
{
    apply_pending();
    SweepOutcome o;
    const auto start = Clock::now();
    const auto smps_before = transport_.counters().requests;
    auto finish = [&](bool up, std::string reason) {
        o.up = up;
        o.reason = std::move(reason);
        o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        o.smps = transport_.counters().requests - smps_before;
    };

    // 1. discover
    PhaseClock c1(transport_);
    DiscoveryResult found = co_await discover(transport_);
    const auto& f = found.fabric;
    o.nodes = f.node_count();
    o.switches = f.switch_count();
    o.cas = f.ca_count();
    o.links = f.link_count();
    o.phases.push_back(c1.finish("discover", std::to_string(o.nodes) + " nodes (" + std::to_string(o.switches) +
                                                 " switches, " + std::to_string(o.cas) + " CAs), " +
                                                 std::to_string(o.links) + " links" +
                                                 (found.complete() ? "" : ", INCOMPLETE")));
    if (!found.complete()) log_discovery(found, transport_.counters());

    // 2. LIDs
    PhaseClock c2(transport_);
    LidAssignment lids;
    try {
        lids = assign_lids(found);
    } catch (const lidassign::LidSpaceExhausted& e) {
        finish(false, std::string("LID assignment: ") + e.what());
        spdlog::error("subnet NOT up: {}", o.reason);
        co_return o;
    }
    for (const auto& n : lids.notes)
        spdlog::info("LID note: {} port {}: {}", f.node(n.port.node).guid.str(), n.port.port.value(), n.text);
    o.phases.push_back(c2.finish("lids", std::to_string(lids.lids.port_count()) + " ports, top LID " +
                                             std::to_string(lids.lids.top().value()) + ", " +
                                             std::to_string(lids.previous.size()) + " remembered"));

    // 3. route. The guid2lid file is written (fsync'd: 10-70 ms here) on the
    // second worker thread meanwhile; both finish before anything is
    // programmed, so a LID on the wire is always a LID on disk.
    PhaseClock c3(transport_);
    using namespace boost::asio::experimental::awaitable_operators;
    auto chain = co_await (off_loop([&] { store_.save(found.fabric, lids.lids, lids.previous); }) &&
                           off_loop([&] { return route(found, lids); }));
    for (const auto& r : chain.refusals) spdlog::warn("routing engine {} refused: {}", r.engine, r.reason);
    if (!chain.tables) {
        o.phases.push_back(c3.finish("route", "every engine refused"));
        std::string why = "no routing engine could route the fabric";
        for (const auto& r : chain.refusals) why += "; " + r.engine + ": " + r.reason;
        finish(false, why);
        spdlog::error("subnet NOT up: {}", o.reason);
        co_return o;
    }
    const auto& tables = *chain.tables;
    o.engine = tables.engine;
    o.phases.push_back(c3.finish("route", "engine " + tables.engine + (chain.fell_back ? " (fallback)" : "") +
                                              ", " + std::to_string(tables.lfts.size()) + " switch tables, top LID " +
                                              std::to_string(tables.linear_fdb_top.value())));

    // 4. program
    PhaseClock c4(transport_);
    auto prog = co_await program(found, lids, tables);
    o.lft_blocks_sent = prog.lfts.blocks_sent;
    o.phases.push_back(c4.finish(
        "program", "LFT blocks sent: " + std::to_string(prog.lfts.blocks_sent) + " (read " +
                       std::to_string(prog.lfts.blocks_read) + ", dirty " + std::to_string(prog.lfts.blocks_dirty) +
                       "), SwitchInfo sets " + std::to_string(prog.lfts.switch_info_sent) + ", VL tables read " +
                       std::to_string(prog.vls.gets) + " set " + std::to_string(prog.vls.sets) + " (SL2VL " +
                       std::to_string(prog.vls.sl2vl_sets) + ", VLArb " + std::to_string(prog.vls.vlarb_sets) +
                       "), PortInfo sets " + std::to_string(prog.ports.sets)));
    if (prog.vls.switches_left)
        spdlog::info("SL2VL: {} switch(es) without OptimizedSLtoVLMappingProgramming keep their own tables: engine {} "
                     "needs one VL, so any SL-to-VL map is deadlock-free (routing.switch_sl2vl: always programs "
                     "every input/output port pair)",
                     prog.vls.switches_left, tables.engine);
    log_failures(prog.lfts.failures, prog.lfts.failures.size());
    log_failures(prog.vls.failures, prog.vls.failed);
    log_failures(prog.ports.failures, prog.ports.failed);

    // 5. activate: only on top of complete switch tables
    PortReport act;
    if (prog.complete()) {
        PhaseClock c5(transport_);
        act = co_await activate();
        o.phases.push_back(c5.finish("activate", std::to_string(act.armed) + " ports armed, " +
                                                     std::to_string(act.activated) + " activated, " +
                                                     std::to_string(act.failed) + " failed"));
        log_failures(act.failures, act.failed);
    }

    if (!prog.lfts.complete())
        finish(false, std::to_string(prog.lfts.blocks_dirty) + " LFT block(s) and " +
                          std::to_string(prog.lfts.switch_info_failed) + " SwitchInfo Set(s) not confirmed");
    else if (!prog.vls.complete())
        finish(false, std::to_string(prog.vls.failed) + " SL2VL/VLArb table(s) not confirmed");
    else if (!prog.ports.complete())
        finish(false, std::to_string(prog.ports.failed) + " PortInfo Set(s) failed");
    else if (!act.complete())
        finish(false, std::to_string(act.failed) + " port activation Set(s) failed");
    else
        finish(true, "");

    {
        const auto& c = transport_.counters();
        if (c.timeouts || c.failed || c.unmatched || c.malformed || c.kernel_errors)
            spdlog::info("transport: {} sent, {} timeouts, {} gave up, {} late/unmatched, {} malformed, {} kernel errors",
                         c.sent, c.timeouts, c.failed, c.unmatched, c.malformed, c.kernel_errors);
    }
    if (o.up && on_up_) on_up_();
    if (o.up)
        spdlog::info("SUBNET UP: {} nodes ({} switches, {} CAs), engine {}, {:.3f} s, {} SMPs ({:.0f} SMPs/s), LFT "
                     "blocks sent: {}",
                     o.nodes, o.switches, o.cas, o.engine, o.seconds, o.smps, o.seconds > 0 ? o.smps / o.seconds : 0.0,
                     o.lft_blocks_sent);
    else
        spdlog::error("subnet NOT up: {}", o.reason);

    // The dumps describe what was programmed; they are written after the
    // subnet is up so they do not delay it.
    const auto dump_start = Clock::now();
    o.summary = summary_text(o, found, lids, settings_);
    o.dump_files = co_await off_loop(
        [&] { return write_state_dump(settings_.state_dir, found, lids.lids, tables, o.summary); });
    o.dump_files.insert(o.dump_files.begin(), store_.file().string());
    spdlog::info("wrote {} files to {} in {:.3f} s", o.dump_files.size(), settings_.state_dir.string(),
                 std::chrono::duration<double>(Clock::now() - dump_start).count());
    co_return o;
}

} // namespace ibsm::daemon
