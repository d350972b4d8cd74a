#include "daemon/service/sm_loop.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <exception>

namespace ibsm::daemon {

int run_sm_loop(boost::asio::io_context& io, bool once, const SmLoop& sm)
{
    int exit_code = 0;
    std::exception_ptr failure;
    // Whichever way the run ends, nothing may keep the loop alive.
    auto wind_down = [&] {
        if (sm.perf) sm.perf->stop();
        sm.notifier.stopping();
        sm.status.stop();
        if (sm.metrics) sm.metrics->stop();
        sm.signals.cancel();
        sm.transport.stop();
    };
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            if (once) {
                auto o = co_await sm.scheduler.run_once();
                exit_code = !o.up ? 1 : o.degraded ? 2 : 0;
            } else {
                boost::asio::co_spawn(io, sm.election.run(), boost::asio::detached);
                if (sm.perf) boost::asio::co_spawn(io, sm.perf->run(), boost::asio::detached);
                co_await sm.scheduler.run();
                sm.election.stop();
            }
            wind_down();
        },
        [&](std::exception_ptr e) {
            failure = e;
            sm.election.stop();
            wind_down();
            io.stop();
        });
    io.run();
    sm.status.publish_stopped();
    sm.dumps.drain();
    if (failure) std::rethrow_exception(failure);
    return exit_code;
}

} // namespace ibsm::daemon
