// The signals ibsmd answers (daemon/service/signals.h), raised in-process:
// SIGHUP runs the reload action and the handler waits again, SIGUSR1 on the
// console reopens nothing, SIGTERM runs the stop action and ends the waiting.
#include "daemon/service/signals.h"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>

using namespace ibsm;

namespace {

// Runs `io` until `done` holds (or two seconds pass).
template <typename Pred>
bool run_until(boost::asio::io_context& io, Pred done)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!done() && std::chrono::steady_clock::now() < end) {
        io.run_one_for(std::chrono::milliseconds(10));
        io.restart();
    }
    return done();
}

} // namespace

TEST_CASE("signals: SIGHUP reloads and waits again, SIGUSR1 on the console reopens nothing, SIGTERM stops",
          "[service][signals]")
{
    boost::asio::io_context io;
    daemon::SignalHandler signals(io, nullptr, "/nowhere/ibsmd.log");
    int reloads = 0, stops = 0;
    signals.on_reload([&] { ++reloads; });
    signals.on_stop([&] { ++stops; });
    signals.start();

    std::raise(SIGHUP);
    CHECK(run_until(io, [&] { return reloads == 1; }));
    std::raise(SIGUSR1);
    std::raise(SIGHUP);
    CHECK(run_until(io, [&] { return reloads == 2; }));
    CHECK_FALSE(signals.stopped());

    std::raise(SIGTERM);
    CHECK(run_until(io, [&] { return stops == 1; }));
    CHECK(signals.stopped());
    CHECK(reloads == 2);
    // No wait is left after a stop: the loop runs out of work.
    io.restart();
    CHECK(io.poll() == 0);
}
