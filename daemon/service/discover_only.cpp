#include "daemon/service/discover_only.h"

#include "daemon/sweep/discovery.h"
#include "daemon/sweep/sweep_report.h"
#include "mad/transport.h"
#include "mad/umad_port.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <spdlog/spdlog.h>

#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace ibsm::daemon {

int run_discovery(const Options& opts)
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

    std::optional<DiscoveryResult> result;
    std::exception_ptr failure;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            result = co_await discover(transport);
            transport.stop();
        },
        [&](std::exception_ptr e) {
            failure = e;
            transport.stop();
        });
    io.run();
    if (failure) std::rethrow_exception(failure);

    log_discovery(*result, transport.counters());
    if (opts.dump_dir) {
        auto file = write_topology_dump(*result, *opts.dump_dir);
        spdlog::info("wrote {}", file);
    }
    return result->complete() ? 0 : 2;
}

} // namespace ibsm::daemon
