// ibsmd's composition root (docs/design.md, "Layers and wings"): the one
// place that builds the wings, connects their queues and observers, and
// says what the signals do. Rules live in the wings: the configuration's
// settings and reloads in service/, what an outcome publishes in
// publish/publisher.h. The wiring follows docs/design.md, "The path of an
// event": port -> transport -> inbound router (SMInfo responder, trap
// receiver) -> events <- signals, light sweeps; the sweep scheduler reads
// the events and drives the bring-up, which the election gates; the
// publisher, the systemd notifier and the status follow its outcomes. The
// control socket answers `ibsm` from the status, the snapshot, the queue and
// the log, and streams the events feed, which the scheduler's observers and
// the election fill.
#include "config/describe.h"
#include "daemon/control/control_server.h"
#include "daemon/control/feed_events.h"
#include "health/port_health_json.h"
#include "daemon/control/socket_rules.h"
#include "daemon/publish/publisher.h"
#include "daemon/publish/status_reporter.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_records.h"
#include "daemon/sa/sa_services.h"
#include "daemon/sa/sa_tables.h"
#include "daemon/service/discover_only.h"
#include "daemon/service/log_setup.h"
#include "daemon/service/mkey_rotation.h"
#include "daemon/service/mkey_status.h"
#include "daemon/service/perf_status.h"
#include "daemon/service/reload.h"
#include "daemon/service/run_report.h"
#include "daemon/service/settings.h"
#include "daemon/service/signals.h"
#include "daemon/service/sm_loop.h"
#include "daemon/service/startup_checks.h"
#include "daemon/sm/sm_info_responder.h"
#include "daemon/sweep/mkey_recovery.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>

namespace {

using namespace ibsm;

// The SM on `port`, once the configuration, the state directory and the log
// are in place: the wings, sources first, then those that read them.
int serve(const daemon::Options& opts, const config::Config& cfg, daemon::BringupSettings settings,
          mad::UmadPort& port, std::shared_ptr<daemon::LogFileSink> log_file)
{
    const Guid self = port.attributes().port_guid;
    boost::asio::io_context io;
    mad::TransportOptions transport_options{cfg.smp.window, cfg.smp.timeout, cfg.smp.retries};
    transport_options.perf_window = cfg.perf.window;
    mad::Transport transport(io, port, transport_options);
    transport.set_diagnostic([](const std::string& msg) { spdlog::warn("{}", msg); });
    daemon::EventQueue events(io.get_executor());
    daemon::TrapReceiver traps(transport, events);
    daemon::SmInfoResponder responder(transport, self, static_cast<std::uint8_t>(cfg.sm.priority & 0xf));
    // SA (class 0x03): handlers register with the agent, which answers from
    // the last generation the switches confirmed (the publisher's).
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
    sa.install();
    responder.install([&](const mad::RawReceive& r) {
        traps.on_trap(r);
        inform.on_trap_mad(r); // Reports to the SA's subscribers
    });
    daemon::SmElection election(transport, responder, events, daemon::election_settings(cfg, self));
    election.install();
    transport.start();

    // M_Key: every SMP takes its target's key from the book; PortInfo Sets
    // key the ports; a port holding a key the SM does not know is waited
    // out for its lease and re-keyed (sweep/mkey_recovery.h).
    auto mkeys = daemon::mkey_settings(cfg);
    if (auto* why = std::get_if<std::string>(&mkeys)) {
        spdlog::error("{}", *why);
        return 1;
    }
    daemon::MkeyBook mkey_book(std::get<daemon::MkeySettings>(mkeys));
    if (mkey_book.settings().enabled)
        spdlog::info("M_Key protection on: {} keys (secret fingerprint {}), protect bits {}, lease {} s",
                     mkey_book.settings().ring.is_fixed() ? "fixed" : "per-port",
                     mkey_book.settings().ring.fingerprint(), mkey_book.settings().protect_bits,
                     mkey_book.settings().lease_period_s);
    transport.set_mkey_source(&mkey_book);
    daemon::MkeyRecovery mkey_recovery(events, mkey_book);

    daemon::Bringup bringup(transport, settings);
    bringup.set_gate(&election);
    bringup.set_mkeys(&mkey_book);
    // Health: isolated links leave the routing at the next re-route (an
    // IsolationEvent); the bring-up keeps them out of every later sweep.
    // The isolations of the last run apply from the first sweep on.
    daemon::HealthMonitor health(cfg.state_dir, daemon::health_policy(cfg));
    health.load();
    bringup.set_isolated_links(health.isolated());
    health.on_isolation_change([&](const std::set<health::PortId>& isolated, const std::string& reason) {
        bringup.set_isolated_links(isolated);
        events.push(daemon::IsolationEvent{reason});
    });
    bringup.on_subnet_up([&] { election.on_subnet_up(); }); // MASTER at SUBNET UP, not after the dumps
    daemon::SweepScheduler scheduler(transport, bringup, events, &traps, daemon::scheduler_settings(cfg));
    scheduler.set_mcast_push([&] { return mcast.push(); }); // the MFTs too are the scheduler's work
    // The SA yields to the SM's own work (sa_agent.h): a sweep, a re-route or
    // SMPs in flight; counter queries (class 0x04) are not the SM's work.
    sa.set_busy_probe([&] {
        return scheduler.busy() || transport.smps_pending() > 0;
    });
    daemon::DumpWriter dumps(cfg.state_dir, cfg.dump);
    dumps.set_health_source([&] { return health.rows(); }); // report.html's link health
    daemon::Publisher publisher(dumps, sa, inform, mcast);
    daemon::ServiceNotifier notifier(io.get_executor()); // systemd: READY, STATUS, RELOADING, WATCHDOG, STOPPING
    daemon::StatusReporter status(io.get_executor(), transport, scheduler, &traps, dumps, self.str());
    daemon::EventFeed feed; // `ibsm events --follow`
    // Counters (class 0x04) of the last generation's ports; the master only.
    daemon::PerfPoller perf(io.get_executor(), transport, election, daemon::perf_settings(cfg));
    status.set_port_source([&] { return health.rows(); }, [&] { return daemon::perf_status(perf); });
    perf.on_sweep([&](const health::CounterTable& table, const daemon::PerfSweepStats&) {
        health.on_counters(table);
        status.on_port_counters();
    });
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
        if (snap) perf.on_snapshot(snap);
        health.on_outcome(o, snap); // before the dumps: report.html draws this generation's link checks
        publisher.on_outcome(o, snap);
        notifier.on_outcome(o, snap);
        status.on_outcome(o, snap); // after the dumps: summary.txt ends with the status
        daemon::control::publish_outcome(feed, o);
    });
    scheduler.on_event([&](const daemon::Event& e) {
        status.on_event(e);
        daemon::control::publish_event(feed, e);
    });
    election.on_state_change([&](mad::SmState from, mad::SmState to, const std::string& why) {
        daemon::control::publish_sm_state(feed, daemon::to_string(from), daemon::to_string(to), why);
    });

    health.on_event([&](std::string_view kind, const nlohmann::json& fields) { feed.publish(kind, fields); });
    // M_Key: violations (trap 256) and incidents in the feed; their counters
    // in the status (publish/status_mkey.h).
    mkey_book.set_incident_handler([&](const daemon::MkeyIncident& i) {
        mkey_recovery.on_incident(i);
        daemon::control::publish_mkey_incident(feed, i, mkey_recovery.waiting_for(i.port));
    });
    traps.on_mkey_violation([&](const daemon::MkeyViolation& v) {
        daemon::control::publish_mkey_violation(feed, v.issuer, v.details, v.source);
    });
    status.set_mkey_source([&] { return daemon::mkey_status(mkey_book, traps, mkey_recovery); });

    // SIGHUP's reader of the configuration (signals below); `ibsm mkey
    // rotate` reads the running configuration's secret file through it too.
    daemon::Reloader reloader(opts, cfg, {bringup, scheduler, dumps, election, health, &perf, &mkey_book});
    // partitions_file is read again at every heavy sweep, as OpenSM does.
    bringup.before_heavy_sweep([&] { reloader.check_partitions_file(); });

    // The control socket (docs/operations.md, "Live control"): the health
    // monitor's rows and commands.
    daemon::control::ControlHandlers control_handlers{
        .status = [&] { return nlohmann::json::parse(daemon::to_state_json(status.live())); },
        .port_rows = [&] { return health.rows(); },
        .port_json = [](const health::PortHealth& row) { return health::to_json(row); },
        .isolate =
            [&](health::PortId port, const std::string& reason) {
                auto r = health.isolate(port, reason);
                return daemon::control::PortActionResult{r.ok, r.text};
            },
        .clear =
            [&](health::PortId port) {
                auto r = health.clear(port);
                return daemon::control::PortActionResult{r.ok, r.text};
            },
        .resweep =
            [&](bool heavy) {
                if (heavy) {
                    events.push(daemon::HeavySweepEvent{"requested by ibsm resweep --heavy"});
                    return std::string("heavy sweep queued");
                }
                events.push(daemon::LightSweepEvent{"requested by ibsm resweep"});
                return std::string("light sweep queued");
            },
        .log_level =
            [](config::LogLevel level) {
                const auto old = daemon::set_log_level(level);
                spdlog::info("log level {} -> {} (ibsm log-level)", config::to_string(old), config::to_string(level));
                return daemon::control::LevelChange{old, level};
            },
        .mkey_rotate =
            [&] {
                const auto d = daemon::rotate_mkeys(mkey_book, reloader.running());
                if (d.start) events.push(daemon::HeavySweepEvent{"M_Key rotation (ibsm mkey rotate)"});
                return daemon::control::PortActionResult{d.start, d.text};
            },
        .mkey_show =
            [&](Guid g) {
                const auto v = mkey_book.view(g);
                return daemon::control::MkeyPortView{v.held.has_value() || v.present, v.held, v.desired, v.present};
            },
    };
    daemon::control::ControlServer control(
        io, daemon::control::socket_path(cfg.control.socket, std::getenv("RUNTIME_DIRECTORY")),
        std::move(control_handlers), feed);
    control.start();
    status.set_control_socket(control.path());
    notifier.start();
    status.start();

    // SIGHUP: the reload's decision, then a heavy sweep whatever it was (as
    // OpenSM's SIGHUP); SIGINT/SIGTERM: a sweep in progress ends at once.
    daemon::SignalHandler signals(io, log_file, cfg.log.file);
    signals.on_reload([&] {
        notifier.reloading();
        reloader.reload();
        events.push(daemon::ReloadEvent{});
    });
    signals.on_stop([&] {
        notifier.stopping();
        control.stop();
        scheduler.stop();
        transport.stop();
    });
    signals.start();

    const int exit_code =
        daemon::run_sm_loop(io, opts.once, {transport, scheduler, election, notifier, status, signals, dumps, &perf});
    daemon::log_totals(transport.counters(), responder.counters(), sa.counters());
    daemon::log_exit(signals.stopped(), exit_code);
    return exit_code;
}

// --once: configure the subnet and exit (0 up, 2 up but degraded, 1 not up).
// --foreground or the service: the long-running SM.
int run_sm(const daemon::Options& opts)
{
    const config::Config cfg = daemon::effective_config(opts);
    auto settings = daemon::bringup_settings(cfg); // before the log moves to its file: errors reach the console
    daemon::check_state_dir(cfg.state_dir);
    auto log_file = daemon::setup_sm_logging(opts, cfg);
    auto [ca_name, port_num] = daemon::sm_port(cfg);
    mad::UmadPort port(ca_name, port_num, /*claim_sm=*/true);
    daemon::log_start(opts, cfg, port.attributes());
    return serve(opts, cfg, std::move(settings), port, std::move(log_file));
}

} // namespace

int main(int argc, char** argv)
{
    daemon::Options opts;
    {
        auto app = daemon::make_cli(opts);
        if (auto exit_code = cli::parse(*app, argc, argv)) return *exit_code;
    }
    daemon::setup_startup_logging(opts);

    try {
        if (opts.discover_only) return daemon::run_discovery(opts);
        if (opts.print_config) {
            std::cout << config::describe(daemon::effective_config(opts));
            return 0;
        }
        return run_sm(opts);
    } catch (const config::ConfigError& e) {
        daemon::log_fatal(e.what());
        return cli::exit_config;
    } catch (const std::exception& e) {
        daemon::log_fatal(e.what());
        return cli::exit_failure;
    }
}
