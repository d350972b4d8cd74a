// ibsmd: the composition root. Parses the command line and the
// configuration, opens the SM port, wires port -> transport -> bring-up
// (discover -> LIDs -> route -> program -> activate) and the SMInfo
// responder on one io_context, and reports. Modules never construct each
// other; everything is put together here.
#include "config/config.h"
#include "config/describe.h"
#include "config/overrides.h"
#include "config/reload.h"
#include "daemon/bringup.h"
#include "daemon/dump_writer.h"
#include "daemon/events.h"
#include "daemon/log_file_sink.h"
#include "daemon/discovery.h"
#include "daemon/options.h"
#include "daemon/port_programmer.h"
#include "daemon/sm_election.h"
#include "daemon/sm_info_responder.h"
#include "daemon/sweep_report.h"
#include "daemon/sweep_scheduler.h"
#include "daemon/trap_receiver.h"
#include "daemon/sa_agent.h"
#include "daemon/sa_inform.h"
#include "daemon/sa_services.h"
#include "daemon/sa_paths.h"
#include "daemon/sa_records.h"
#include "daemon/mcast_service.h"
#include "mad/transport.h"
#include "mad/umad_port.h"
#include "routing/root_guids.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

namespace {

using namespace ibsm;

int run_discovery(const daemon::Options& opts)
{
    mad::UmadPort port(opts.ca_name, opts.port_num, /*claim_sm=*/false);
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

std::vector<Guid> read_root_guid_file(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read routing.root_guid_file '" + path + "'");
    return routing::parse_root_guids(in, path);
}

daemon::BringupSettings bringup_settings(const config::Config& cfg)
{
    daemon::BringupSettings s;
    s.chain.engines = cfg.routing.engines;
    s.chain.no_fallback = cfg.routing.no_fallback;
    s.route.root_guids = cfg.routing.root_guids;
    if (cfg.routing.root_guid_file) {
        auto more = read_root_guid_file(*cfg.routing.root_guid_file);
        s.route.root_guids.insert(s.route.root_guids.end(), more.begin(), more.end());
    }
    s.route.max_vls = static_cast<std::uint8_t>(cfg.routing.max_vls);
    s.lid.lmc = static_cast<std::uint8_t>(cfg.routing.lmc);
    s.ports.subnet_prefix = cfg.sm.subnet_prefix;
    s.ports.subnet_timeout = static_cast<std::uint8_t>(cfg.sm.subnet_timeout);
    s.ports.max_operational_vls = daemon::operational_vls_code(cfg.routing.max_vls);
    // Jobs in flight: a few times the window, so completions refill it at once.
    const std::size_t width = std::max<std::size_t>(64, std::size_t{cfg.smp.window} * 4);
    s.ports.width = width;
    s.lfts.width = width;
    s.vls.width = width;
    s.pkeys.width = width;
    s.vls.all_switch_pairs = cfg.routing.switch_sl2vl == config::SwitchSl2Vl::always;
    s.lfts.life_time_value = static_cast<std::uint8_t>(cfg.sm.packet_life_time & 0x1f);
    s.state_dir = cfg.state_dir;
    return s;
}

// The configured partitions (config.h) as the partition model's definitions.
std::vector<partition::Definition> partition_definitions(const config::Config& cfg)
{
    std::vector<partition::Definition> out;
    for (const auto& p : cfg.partitions) {
        partition::Definition d{p.name, p.pkey, p.ipoib, {}};
        for (const auto& m : p.members) d.members.emplace_back(m.port_guid, m.membership == config::Membership::full);
        out.push_back(std::move(d));
    }
    return out;
}

daemon::ElectionSettings election_settings(const config::Config& cfg, Guid port_guid)
{
    daemon::ElectionSettings s;
    s.self.priority = static_cast<std::uint8_t>(cfg.sm.priority & 0xf);
    s.self.guid = port_guid;
    s.self.sm_key = cfg.sm.sm_key;
    s.polling_interval = cfg.sm.polling_interval;
    s.polling_retries = cfg.sm.polling_retries;
    return s;
}

// The service logs to a file that SIGUSR1 reopens; --once and --foreground
// log to the console.
std::shared_ptr<daemon::LogFileSink> setup_logging(const daemon::Options& opts, const config::Config& cfg)
{
    const bool console = opts.once || opts.foreground;
    std::shared_ptr<spdlog::logger> logger;
    std::shared_ptr<daemon::LogFileSink> file_sink;
    if (console) {
        logger = spdlog::stderr_color_mt("ibsmd-sm");
    } else {
        file_sink = std::make_shared<daemon::LogFileSink>(cfg.log.file);
        logger = std::make_shared<spdlog::logger>("ibsmd-sm", file_sink);
        logger->flush_on(spdlog::level::info);
    }
    spdlog::set_default_logger(logger);
    spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(cfg.log.level)));
    spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
    return file_sink;
}

// The file (or the defaults) with the command line on top.
config::Config effective_config(const daemon::Options& opts)
{
    config::Config cfg = opts.config_file ? config::load_config_file(*opts.config_file) : config::Config{};
    cfg = config::apply_overrides(std::move(cfg), opts.overrides);
    if (opts.lmc) cfg.routing.lmc = *opts.lmc;
    return cfg;
}

daemon::SchedulerSettings scheduler_settings(const config::Config& cfg)
{
    daemon::SchedulerSettings s;
    s.debounce = cfg.sweep.debounce;
    s.debounce_max = cfg.sweep.debounce_max;
    s.light_interval = cfg.sweep.interval;
    s.retry_interval = cfg.sweep.retry_interval;
    s.light_width = std::max<std::size_t>(16, std::size_t{cfg.smp.window} * 2);
    return s;
}

// --once: configure the subnet and exit (0 up, 2 up but degraded, 1 not up).
// --foreground or the service: the long-running SM of DESIGN.md. The wiring
// reads like its diagram: port -> transport -> inbound router (SMInfo
// responder, trap receiver) -> events <- signals, light sweeps; the sweep
// scheduler reads the events and drives the bring-up pipeline; observers
// (SMInfo state, dumps) follow its outcomes.
int run_sm(const daemon::Options& opts)
{
    config::Config cfg = effective_config(opts);
    auto log_file = setup_logging(opts, cfg);
    auto settings = bringup_settings(cfg);

    // sm.port_guid excludes sm.ca/sm.port (the config checks that).
    auto [ca_name, port_num] = cfg.sm.port_guid ? mad::find_local_port(*cfg.sm.port_guid)
                                                : std::pair<std::string, int>(cfg.sm.ca.value_or(""),
                                                                              cfg.sm.port ? cfg.sm.port->value() : 0);
    mad::UmadPort port(ca_name, port_num, /*claim_sm=*/true);
    const auto& attrs = port.attributes();
    spdlog::info("ibsmd: SM on {} port {} (port GUID {}), engines {}, LMC {}, state dir {}", attrs.ca_name,
                 attrs.port_num, attrs.port_guid.str(), fmt::join(cfg.routing.engines, ","), cfg.routing.lmc,
                 cfg.state_dir);

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
    auto partitions = std::make_shared<const partition::Partitions>(partition_definitions(cfg), attrs.port_guid);
    settings.partitions = partitions;
    settings.ports.enforce_partitions = true;
    daemon::McastSettings mcast_settings;
    mcast_settings.subnet_prefix = cfg.sm.subnet_prefix;
    mcast_settings.sm_key = cfg.sm.sm_key;
    mcast_settings.packet_life_time = static_cast<std::uint8_t>(cfg.sm.packet_life_time & 0x3f);
    mcast_settings.mft.width = settings.lfts.width;
    daemon::McastService mcast(io, transport, *partitions, mcast_settings);
    mcast.install(sa);
    sa.install();
    responder.install([&](const mad::RawReceive& r) {
        traps.on_trap(r);
        inform.on_trap_mad(r); // Reports to the SA's subscribers
    });
    // Master/standby: the election answers other SMs' SMInfo Sets, decides
    // after each heavy sweep's discovery whether this SM configures, and
    // polls the master while standing by (pushing a heavy sweep to take over).
    daemon::SmElection election(transport, responder, events, election_settings(cfg, attrs.port_guid));
    election.install();
    transport.start();

    daemon::Bringup bringup(transport, settings);
    bringup.set_gate(&election);
    daemon::SweepScheduler scheduler(transport, bringup, events, &traps, scheduler_settings(cfg));
    daemon::DumpWriter dumps(cfg.state_dir, cfg.dump);
    // MASTER from the moment the subnet is up, not after the dump files.
    bringup.on_subnet_up([&] { election.on_subnet_up(); });
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
        if (!o.unchanged && snap && snap->generation == o.generation) dumps.publish(snap);
        if (o.standby)
            sa.publish(nullptr); // another SM runs the subnet and its SA
        else if (o.up && snap && snap->generation == o.generation) {
            auto before = sa.snapshot();
            sa.publish(snap);
            inform.on_snapshot(before, snap); // traps 64/65 to subscribers
        }
        if (!o.standby && !o.unchanged && o.up && snap && snap->generation == o.generation) mcast.on_snapshot(snap);
    });

    // SIGHUP: re-read the configuration; routing.*, sweep.*, dump.*,
    // log.level, sm.priority and sm.polling_* apply at once, anything else is refused and named. A heavy
    // sweep follows either way (as OpenSM's SIGHUP does).
    auto reload = [&]() {
        config::Config next;
        try {
            next = effective_config(opts);
        } catch (const std::exception& e) {
            spdlog::error("reload refused, keeping the running configuration: {}", e.what());
            return;
        }
        std::vector<std::string> why_not;
        if (!config::reload_compatible(cfg, next, &why_not)) {
            for (const auto& w : why_not) spdlog::error("reload refused: {}", w);
            return;
        }
        if (next == cfg) {
            spdlog::info("reload: configuration unchanged, re-sweeping");
            return;
        }
        cfg = next;
        spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(cfg.log.level)));
        bringup.reconfigure(bringup_settings(cfg));
        scheduler.set_settings(scheduler_settings(cfg));
        dumps.set_config(cfg.dump);
        election.set_priority(static_cast<std::uint8_t>(cfg.sm.priority & 0xf));
        election.set_polling(cfg.sm.polling_interval, cfg.sm.polling_retries);
        spdlog::info("reload: new configuration applied (engines {}), re-sweeping", fmt::join(cfg.routing.engines, ","));
    };
    scheduler.on_reload(reload);

    boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    signals.add(SIGUSR1);
    bool stopping = false;
    std::function<void()> wait_signal = [&]() {
        signals.async_wait([&](const boost::system::error_code& ec, int sig) {
            if (ec) return;
            if (sig == SIGHUP) {
                spdlog::info("SIGHUP: reloading the configuration");
                reload();
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
            signals.cancel();
            transport.stop();
        },
        [&](std::exception_ptr e) {
            failure = e;
            election.stop();
            signals.cancel();
            transport.stop();
            io.stop();
        });
    io.run();
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
    try {
        opts = daemon::parse_options(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const daemon::UsageError& e) {
        std::cerr << "ibsmd: " << e.what() << "\n" << daemon::usage();
        return 64;
    }
    if (opts.help) {
        std::cout << daemon::usage();
        return 0;
    }
    auto logger = spdlog::stderr_color_mt("ibsmd");
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::from_str(opts.log_level));
    spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");

    try {
        if (opts.discover_only) return run_discovery(opts);
        if (opts.print_config) {
            std::cout << config::describe(effective_config(opts));
            return 0;
        }
        return run_sm(opts);
    } catch (const config::ConfigError& e) {
        spdlog::error("{}", e.what());
        return 78; // EX_CONFIG
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return 1;
    }
}
