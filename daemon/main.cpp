// ibsmd: the composition root. Parses the command line, opens the SM port,
// wires port -> transport -> discovery on one io_context, and reports.
// Modules never construct each other; everything is put together here.
#include "daemon/discovery.h"
#include "daemon/options.h"
#include "daemon/sweep_report.h"
#include "mad/transport.h"
#include "mad/umad_port.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>

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
        std::cerr << "ibsmd: only --discover-only is implemented in this build (bring-up comes with issue 5)\n";
        return 64;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return 1;
    }
}
