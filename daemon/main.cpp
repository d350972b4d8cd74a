// ibsmd's composition root (docs/design.md, "Layers and wings"): builds the
// wings, sources first, and connects their queues and observers; every rule
// lives in a wing (settings, control commands, signals: service/; the
// outcome's readers and their order: publish/publisher.h). The wiring
// follows docs/design.md, "The path of an event".
#include "daemon/control/control_server.h"
#include "daemon/control/feed_events.h"
#include "daemon/publish/publisher.h"
#include "daemon/publish/status_reporter.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_records.h"
#include "daemon/sa/sa_services.h"
#include "daemon/sa/sa_tables.h"
#include "daemon/service/control_handlers.h"
#include "daemon/service/isolation_wiring.h"
#include "daemon/service/metrics_endpoint.h"
#include "daemon/service/mkey_status.h"
#include "daemon/service/perf_status.h"
#include "daemon/service/program.h"
#include "daemon/service/run_report.h"
#include "daemon/service/settings.h"
#include "daemon/service/signal_actions.h"
#include "daemon/service/sm_loop.h"
#include "daemon/sm/sm_info_responder.h"
#include "daemon/sweep/mkey_recovery.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <functional>

namespace {

using namespace ibsm;
using std::bind_front;

int serve(daemon::SmStart& start)
{
    auto& [opts, cfg, settings, mkeys, port, log_file] = start;
    const Guid self = port.attributes().port_guid;
    boost::asio::io_context io;
    mad::Transport transport(io, port, daemon::transport_options(cfg));
    transport.set_diagnostic([](const std::string& msg) { spdlog::warn("{}", msg); });
    daemon::EventQueue events(io.get_executor());
    daemon::TrapReceiver traps(transport, events);
    daemon::SmInfoResponder responder(transport, self, daemon::sm_priority(cfg));
    // SA (class 0x03): every record family registers with the agent.
    daemon::SaAgent sa(io, transport, daemon::sa_settings(cfg));
    daemon::register_fabric_records(sa, [&] { return responder.current(); });
    daemon::register_path_records(sa);
    daemon::register_table_records(sa);
    daemon::ServiceRecords services;
    services.register_with(sa);
    daemon::InformRegistry inform(sa);
    inform.register_with(sa);
    // Multicast groups (MCMemberRecord) whose forwarding tables follow the
    // joins; each generation's partitions bring theirs.
    daemon::McastService mcast(events, transport, daemon::mcast_settings(cfg, settings.lfts.width));
    mcast.install(sa);
    mcast.set_notices([&inform](const mad::Notice& n) { inform.forward(n); }); // traps 66/67
    sa.install();
    responder.install([&](const mad::RawReceive& r) {
        traps.on_trap(r);
        inform.on_trap_mad(r); // Reports to the SA's subscribers
    });
    daemon::SmElection election(transport, responder, events, daemon::election_settings(cfg, self));
    election.install();
    transport.start();

    daemon::MkeyBook mkey_book(mkeys); // every SMP's key
    transport.set_mkey_source(&mkey_book);
    daemon::MkeyRecovery mkey_recovery(events, mkey_book);
    daemon::Bringup bringup(transport, settings);
    bringup.set_gate(&election);
    bringup.set_mkeys(&mkey_book);
    daemon::HealthMonitor health(cfg.state_dir, daemon::health_policy(cfg));
    health.load(); // the last run's isolations, from the first sweep on
    daemon::Drains drains(cfg.state_dir); // `ibsm drain`: the operator's, through the same isolation path
    drains.load();
    daemon::connect_isolations(bringup, health, drains, events);
    // The events the health policy's unhealthy-node rules count.
    traps.on_notice(bind_front(&daemon::HealthMonitor::on_notice, &health));
    transport.set_answer_observer({bind_front(&daemon::HealthMonitor::on_bad_status, &health),
                                   bind_front(&daemon::HealthMonitor::on_malformed_answer, &health)});
    bringup.on_subnet_up(bind_front(&daemon::SmElection::on_subnet_up, &election));
    daemon::SweepScheduler scheduler(transport, bringup, events, &traps, daemon::scheduler_settings(cfg));
    scheduler.set_mcast_push(bind_front(&daemon::McastService::push, &mcast));
    sa.set_work_probe(bind_front(&daemon::SweepScheduler::busy, &scheduler));
    daemon::DumpWriter dumps(cfg.state_dir, cfg.dump);
    auto port_rows = [&] { return daemon::port_rows(health, drains); };
    dumps.set_health_source(port_rows); // report.html's link health
    daemon::ServiceNotifier notifier(io.get_executor());
    daemon::StatusReporter status(io.get_executor(), transport, scheduler, &traps, dumps, self.str());
    daemon::EventFeed feed; // `ibsm events --follow`
    daemon::PerfPoller perf(io.get_executor(), transport, election, daemon::perf_settings(cfg));
    status.set_port_source(port_rows, [&] { return daemon::perf_status(perf); });
    status.set_drain_source([&] { return daemon::drain_status(drains); });
    status.set_mkey_source([&] { return daemon::mkey_status(mkey_book, traps, mkey_recovery); });
    perf.on_sweep([&](const health::CounterTable& table, const daemon::PerfSweepStats&) {
        health.on_counters(table);
        status.on_port_counters();
    });
    daemon::Publisher publisher(dumps, sa, inform, mcast,
                                {.counters = [&](auto&, const auto& snap) { if (snap) perf.on_snapshot(snap); },
                                 .health = [&](const auto& o, const auto& snap) {
                                     health.on_outcome(o, snap);
                                     drains.on_outcome(o, snap);
                                 },
                                 .notifier = bind_front(&daemon::ServiceNotifier::on_outcome, &notifier),
                                 .status = bind_front(&daemon::StatusReporter::on_outcome, &status),
                                 .feed = [&](const auto& o, auto&) { daemon::control::publish_outcome(feed, o); }});
    scheduler.on_outcome(bind_front(&daemon::Publisher::on_outcome, &publisher));
    // The events feed's other sources.
    scheduler.on_event([&](const daemon::Event& e) {
        status.on_event(e);
        daemon::control::publish_event(feed, e);
    });
    election.on_state_change([&](mad::SmState from, mad::SmState to, const std::string& why) {
        daemon::control::publish_sm_state(feed, daemon::to_string(from), daemon::to_string(to), why);
    });
    health.on_event(bind_front(&daemon::EventFeed::publish, &feed));
    drains.on_event(bind_front(&daemon::EventFeed::publish, &feed));
    mkey_recovery.handle_incidents(mkey_book, bind_front(&daemon::control::publish_mkey_incident, std::ref(feed)));
    traps.on_mkey_violation([&](const daemon::MkeyViolation& v) {
        daemon::control::publish_mkey_violation(feed, v.issuer, v.details, v.source);
    });

    daemon::Reloader reloader(opts, cfg, {bringup, scheduler, dumps, election, health, &perf, &mkey_book, &status});
    // partitions_file is read again at every heavy sweep, as OpenSM does.
    bringup.before_heavy_sweep([&] { reloader.check_partitions_file(); });
    daemon::control::ControlServer control(
        io, daemon::control_socket(cfg, std::getenv("RUNTIME_DIRECTORY")),
        daemon::control_handlers({[&] { return status.live(); }, health, events, mkey_book, reloader.running(), &drains}),
        feed);
    control.start();
    status.set_control_socket(control.path());
    const auto metrics_endpoint = daemon::start_metrics(io, cfg, status); // metrics.listen: null when off
    notifier.start();
    status.start();
    daemon::SignalHandler signals(io, log_file, cfg.log.file);
    signals.on_reload(daemon::ReloadSequence{notifier, reloader, events});
    signals.on_stop(daemon::StopSequence{notifier, control, scheduler, transport});
    signals.start();

    const int exit_code =
        daemon::run_sm_loop(io, opts.once, {transport, scheduler, election, notifier, status, signals, dumps, &perf,
                                          metrics_endpoint.get()});
    daemon::log_totals(transport.counters(), responder.counters(), sa.counters());
    daemon::log_exit(signals.stopped(), exit_code);
    return exit_code;
}

} // namespace

int main(int argc, char** argv) { return daemon::run_ibsmd(argc, argv, serve); }
