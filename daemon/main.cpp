// ibsmd: the composition root. Parses the command line and the
// configuration, opens the SM port, wires port -> transport -> bring-up
// (discover -> LIDs -> route -> program -> activate) and the SMInfo
// responder on one io_context, and reports. Modules never construct each
// other; everything is put together here.
#include "config/config.h"
#include "config/describe.h"
#include "daemon/sweep/bringup.h"
#include "daemon/publish/dump_writer.h"
#include "daemon/publish/publisher.h"
#include "daemon/core/events.h"
#include "daemon/service/config_path.h"
#include "daemon/service/log_file_sink.h"
#include "daemon/service/log_setup.h"
#include "daemon/sweep/discovery.h"
#include "daemon/service/options.h"
#include "daemon/service/reload.h"
#include "daemon/program/port_programmer.h"
#include "daemon/service/service_notifier.h"
#include "daemon/sm/sm_election.h"
#include "daemon/sm/sm_info_responder.h"
#include "daemon/service/settings.h"
#include "daemon/service/startup_checks.h"
#include "daemon/publish/status_reporter.h"
#include "daemon/sweep/sweep_report.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "daemon/sweep/trap_receiver.h"
#include "daemon/sa/sa_agent.h"
#include "daemon/sa/sa_inform.h"
#include "daemon/sa/sa_services.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_records.h"
#include "daemon/sa/mcast_service.h"
#include "mad/transport.h"
#include "mad/umad_port.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <csignal>
#include <exception>
#include <functional>
#include <iostream>

namespace {

using namespace ibsm;

int run_discovery(const daemon::Options& opts)
{
    auto [ca_name, port_num] = opts.overrides.port_guid ? mad::find_local_port(*opts.overrides.port_guid)
                                                        : std::pair<std::string, int>(opts.ca_name, opts.port_num);
    mad::UmadPort port(ca_name, port_num, /*claim_sm=*/false);
    const auto& attrs = port.attributes();
    spdlog::info("using {} port {} (port GUID {}){}", attrs.ca_name, attrs.port_num, attrs.port_guid.str(),
                 port.pollable_by_reactor() ? "" : ", simulator descriptor: polled");

    boost::asio::io_context io;
    mad::Transport transport(io, port, mad::TransportOptions{opts.window, opts.timeout, opts.retries});
    transport.set_diagnostic([](const std::string& msg) { spdlog::warn("{}", msg); });
    transport.start();

    std::optional<daemon::DiscoveryResult> result;
    std::exception_ptr failure;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            result = co_await daemon::discover(transport);
            transport.stop();
        },
        [&](std::exception_ptr e) {
            failure = e;
            transport.stop();
        });
    io.run();
    if (failure) std::rethrow_exception(failure);

    daemon::log_discovery(*result, transport.counters());
    if (opts.dump_dir) {
        auto file = daemon::write_topology_dump(*result, *opts.dump_dir);
        spdlog::info("wrote {}", file);
    }
    return result->complete() ? 0 : 2;
}

// --once: configure the subnet and exit (0 up, 2 up but degraded, 1 not up).
// --foreground or the service: the long-running SM of DESIGN.md. The wiring
// reads like its diagram: port -> transport -> inbound router (SMInfo
// responder, trap receiver) -> events <- signals, light sweeps; the sweep
// scheduler reads the events and drives the bring-up pipeline; observers
// (SMInfo state, dumps) follow its outcomes.
int run_sm(const daemon::Options& opts)
{
    config::Config cfg = daemon::effective_config(opts);
    auto settings = daemon::bringup_settings(cfg); // before the log moves to its file: errors reach the console
    daemon::check_state_dir(cfg.state_dir);
    auto log_file = daemon::setup_sm_logging(opts, cfg);

    // sm.port_guid excludes sm.ca/sm.port (the config checks that).
    auto [ca_name, port_num] = daemon::sm_port(cfg);
    mad::UmadPort port(ca_name, port_num, /*claim_sm=*/true);
    const auto& attrs = port.attributes();
    spdlog::info("ibsmd: SM on {} port {} (port GUID {}), engines {}, LMC {}, state dir {}", attrs.ca_name,
                 attrs.port_num, attrs.port_guid.str(), fmt::join(cfg.routing.engines, ","), cfg.routing.lmc,
                 cfg.state_dir);
    {
        auto file = daemon::config_file_to_read(opts, daemon::default_config_file());
        spdlog::info("configuration: {}", file ? file->string() : std::string("built-in defaults"));
    }

    // Queues and sources first, then the modules that read them.
    boost::asio::io_context io;
    mad::Transport transport(io, port, mad::TransportOptions{cfg.smp.window, cfg.smp.timeout, cfg.smp.retries});
    transport.set_diagnostic([](const std::string& msg) { spdlog::warn("{}", msg); });
    daemon::EventQueue events(io.get_executor());
    daemon::TrapReceiver traps(transport, events);
    daemon::SmInfoResponder responder(transport, attrs.port_guid, static_cast<std::uint8_t>(cfg.sm.priority & 0xf));
    // SA (class 0x03): record handlers register with the agent; it answers
    // from the last generation the switches confirmed (published below).
    daemon::SaAgent sa(io, transport);
    daemon::register_fabric_records(sa, [&] { return responder.current(); });
    daemon::register_path_records(sa);
    daemon::ServiceRecords services;
    services.register_with(sa);
    daemon::InformRegistry inform(sa);
    inform.register_with(sa);
    // Partitions and multicast (issue 15): the P_Key tables the bring-up
    // programs, and the MCMemberRecord handler with the switches' multicast
    // tables it keeps in step with the groups.
    auto partitions = std::make_shared<const partition::Partitions>(daemon::partition_definitions(cfg), attrs.port_guid);
    settings.partitions = partitions;
    settings.ports.enforce_partitions = true;
    daemon::McastService mcast(io, transport, *partitions, daemon::mcast_settings(cfg, settings.lfts.width));
    mcast.install(sa);
    sa.install();
    responder.install([&](const mad::RawReceive& r) {
        traps.on_trap(r);
        inform.on_trap_mad(r); // Reports to the SA's subscribers
    });
    // Master/standby: the election answers other SMs' SMInfo Sets, decides
    // after each heavy sweep's discovery whether this SM configures, and
    // polls the master while standing by (pushing a heavy sweep to take over).
    daemon::SmElection election(transport, responder, events, daemon::election_settings(cfg, attrs.port_guid));
    election.install();
    transport.start();

    daemon::Bringup bringup(transport, settings);
    bringup.set_gate(&election);
    daemon::SweepScheduler scheduler(transport, bringup, events, &traps, daemon::scheduler_settings(cfg));
    // The SA yields to the SM's own work (sa_agent.h): a sweep or re-route
    // in progress (route computation included), or SMPs in flight.
    sa.set_busy_probe([&] {
        return scheduler.busy() || transport.inflight() + transport.queued() + transport.delayed() > 0;
    });
    daemon::DumpWriter dumps(cfg.state_dir, cfg.dump);
    // MASTER from the moment the subnet is up, not after the dump files.
    bringup.on_subnet_up([&] { election.on_subnet_up(); });
    // Each generation to its readers: dumps, SA, InformInfo, multicast (publish/publisher.h).
    daemon::Publisher publisher(dumps, sa, inform, mcast);
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
        publisher.on_outcome(o, snap);
    });
    // systemd (Type=notify): READY, STATUS, RELOADING, WATCHDOG, STOPPING.
    daemon::ServiceNotifier notifier(io.get_executor());
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
        notifier.on_outcome(o, snap);
    });
    notifier.start();
    // state.json, metrics.prom and summary.txt's tail (ibsm status), after the dumps.
    daemon::StatusReporter status(io.get_executor(), transport, scheduler, &traps, dumps, attrs.port_guid.str());
    scheduler.on_event([&](const daemon::Event& e) { status.on_event(e); });
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) { status.on_outcome(o, snap); });
    status.start();

    // SIGHUP: re-read the configuration (service/reload.h); a heavy sweep
    // follows whatever the decision, as OpenSM's SIGHUP does.
    daemon::Reloader reloader(opts, cfg, {bringup, scheduler, dumps, election});

    boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    signals.add(SIGUSR1);
    bool stopping = false;
    std::function<void()> wait_signal = [&]() {
        signals.async_wait([&](const boost::system::error_code& ec, int sig) {
            if (ec) return;
            if (sig == SIGHUP) {
                spdlog::info("SIGHUP: reloading the configuration");
                notifier.reloading();
                reloader.reload();
                events.push(daemon::ReloadEvent{});
            } else if (sig == SIGUSR1) {
                if (log_file) {
                    log_file->reopen();
                    spdlog::info("SIGUSR1: log file {} reopened", cfg.log.file);
                } else {
                    spdlog::info("SIGUSR1: logging to the console, no log file to reopen");
                }
            } else {
                spdlog::info("signal {} received: stopping", sig);
                stopping = true;
                notifier.stopping();
                scheduler.stop();
                transport.stop(); // a sweep in progress ends at once
                return;
            }
            wait_signal();
        });
    };
    wait_signal();

    int exit_code = 0;
    std::exception_ptr failure;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            if (opts.once) {
                auto o = co_await scheduler.run_once();
                exit_code = !o.up ? 1 : o.degraded ? 2 : 0;
            } else {
                boost::asio::co_spawn(io, election.run(), boost::asio::detached);
                co_await scheduler.run();
                election.stop();
            }
            notifier.stopping();
            status.stop();
            signals.cancel();
            transport.stop();
        },
        [&](std::exception_ptr e) {
            failure = e;
            notifier.stopping();
            election.stop();
            status.stop();
            signals.cancel();
            transport.stop();
            io.stop();
        });
    io.run();
    status.publish_stopped();
    dumps.drain();
    if (failure) std::rethrow_exception(failure);
    // What reached the SM unasked over its life: each kind was logged once
    // when first seen; these are the totals.
    const auto& tc = transport.counters();
    const auto& rc = responder.counters();
    spdlog::info("inbound MADs: {} requests/traps (SMInfo Gets answered {}, traps {}, other {} of which {} answered "
                 "'unsupported'), {} malformed, {} unmatched responses",
                 tc.unsolicited, rc.sm_info_answered, rc.traps, rc.ignored, rc.unsupported_answered, tc.malformed,
                 tc.unmatched);
    const auto& sc = sa.counters();
    spdlog::info("SA: {} MADs received, {} answered ({} with an error status, {} malformed), {} RMPP transfers "
                 "({} completed, {} aborted, {} segments), {} Reports ({} acknowledged, {} given up)",
                 sc.received, sc.answered, sc.errors, sc.malformed, sc.rmpp_transfers, sc.rmpp_completed,
                 sc.rmpp_aborted, sc.rmpp_segments, sc.reports_sent, sc.reports_acked, sc.reports_failed);
    spdlog::info("ibsmd: exiting ({})", stopping      ? "signal"
                                        : exit_code == 0 ? "ok"
                                        : exit_code == 2 ? "subnet up but degraded"
                                                         : "subnet not up");
    return exit_code;
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
        if (opts.discover_only) return run_discovery(opts);
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
