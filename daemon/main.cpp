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
#include "daemon/discovery.h"
#include "daemon/options.h"
#include "daemon/port_programmer.h"
#include "daemon/sm_info_responder.h"
#include "daemon/sweep_report.h"
#include "mad/transport.h"
#include "mad/umad_port.h"
#include "routing/root_guids.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/sinks/basic_file_sink.h>
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
    s.vls.all_switch_pairs = cfg.routing.switch_sl2vl == config::SwitchSl2Vl::always;
    s.lfts.life_time_value = static_cast<std::uint8_t>(cfg.sm.packet_life_time & 0x1f);
    s.state_dir = cfg.state_dir;
    return s;
}

void setup_logging(const daemon::Options& opts, const config::Config& cfg)
{
    const bool console = opts.once || opts.foreground;
    std::shared_ptr<spdlog::logger> logger;
    if (console) {
        logger = spdlog::stderr_color_mt("ibsmd-sm");
    } else {
        logger = spdlog::basic_logger_mt("ibsmd-sm", cfg.log.file);
        logger->flush_on(spdlog::level::info);
    }
    spdlog::set_default_logger(logger);
    spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(cfg.log.level)));
    spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
}

// The file (or the defaults) with the command line on top.
config::Config effective_config(const daemon::Options& opts)
{
    config::Config cfg = opts.config_file ? config::load_config_file(*opts.config_file) : config::Config{};
    cfg = config::apply_overrides(std::move(cfg), opts.overrides);
    if (opts.lmc) cfg.routing.lmc = *opts.lmc;
    return cfg;
}

// --once, --foreground or the service: configure the subnet; unless --once,
// stay master (answering SMInfo) until SIGTERM/SIGINT, re-sweeping while the
// subnet is not up.
int run_sm(const daemon::Options& opts)
{
    config::Config cfg = effective_config(opts);
    setup_logging(opts, cfg);
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

    boost::asio::io_context io;
    mad::Transport transport(io, port, mad::TransportOptions{cfg.smp.window, cfg.smp.timeout, cfg.smp.retries});
    transport.set_diagnostic([](const std::string& msg) { spdlog::warn("{}", msg); });
    daemon::SmInfoResponder responder(transport, attrs.port_guid, static_cast<std::uint8_t>(cfg.sm.priority & 0xf));
    responder.install();
    transport.start();

    daemon::Bringup bringup(transport, settings);
    // MASTER from the moment the subnet is up, not after the dump files.
    bringup.on_subnet_up([&] { responder.set_state(mad::SmState::master); });
    boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    boost::asio::steady_timer idle(io);
    bool stopping = false;
    bool resweep = false;
    int exit_code = 0;
    std::exception_ptr failure;

    // SIGHUP: re-read the configuration; routing.* and log.level apply at
    // once (a new sweep re-routes), anything else is refused and named.
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
            spdlog::info("reload: configuration unchanged");
            return;
        }
        cfg = next;
        spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(cfg.log.level)));
        bringup.reconfigure(bringup_settings(cfg));
        spdlog::info("reload: new configuration applied (engines {}), re-sweeping", fmt::join(cfg.routing.engines, ","));
        resweep = true;
        idle.cancel();
    };
    std::function<void()> wait_signal = [&]() {
        signals.async_wait([&](const boost::system::error_code& ec, int sig) {
            if (ec) return;
            if (sig == SIGHUP) {
                reload();
                wait_signal();
                return;
            }
            spdlog::info("signal {} received: stopping", sig);
            stopping = true;
            idle.cancel();
            transport.stop();
        });
    };
    wait_signal();

    const auto retry = cfg.sweep.retry_interval; // 1..86400 s
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            for (;;) {
                auto outcome = co_await bringup.sweep();
                if (opts.once) {
                    exit_code = outcome.up ? 0 : 1;
                    break;
                }
                if (stopping) break;
                // Monitoring (traps, light sweeps) is a later issue: while
                // up, idle answering SMInfo; while not, try again.
                idle.expires_after(outcome.up ? std::chrono::steady_clock::duration::max() / 2 : retry);
                boost::system::error_code ec;
                if (!resweep) co_await idle.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
                resweep = false;
                if (stopping) break;
            }
        },
        [&](std::exception_ptr e) {
            failure = e;
            signals.cancel();
            transport.stop();
            io.stop();
        });
    io.run();
    if (failure) std::rethrow_exception(failure);
    spdlog::info("ibsmd: exiting ({})", exit_code == 0 ? "ok" : "subnet not up");
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
