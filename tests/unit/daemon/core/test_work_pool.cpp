#include "daemon/core/work_pool.h"

#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ibsm;
using boost::asio::awaitable;

namespace {

// Runs `body` on a fresh io_context to completion; returns the exception
// text if it threw.
template <class Body>
std::string run(Body body)
{
    boost::asio::io_context io;
    std::string error = "not finished";
    boost::asio::co_spawn(io, body(), [&](std::exception_ptr e) {
        error.clear();
        if (!e) return;
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& x) {
            error = x.what();
        }
    });
    io.run();
    return error;
}

// Suspends for `ms` so jobs overlap.
awaitable<void> pause(int ms)
{
    boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, std::chrono::milliseconds(ms));
    co_await t.async_wait(boost::asio::use_awaitable);
}

} // namespace

TEST_CASE("run_jobs starts jobs in order, never more than `width` at once, each exactly once", "[work_pool]")
{
    std::vector<std::size_t> started;
    std::vector<int> runs(40, 0);
    std::size_t running = 0, most = 0;
    auto error = run([&]() -> awaitable<void> {
        co_await daemon::run_jobs(runs.size(), 6, [&](std::size_t i) -> awaitable<void> {
            started.push_back(i);
            most = std::max(most, ++running);
            co_await pause(static_cast<int>(i % 3)); // uneven lengths: jobs finish out of order
            ++runs[i];
            --running;
        });
    });
    CHECK(error.empty());
    REQUIRE(started.size() == 40);
    for (std::size_t i = 0; i < started.size(); ++i) CHECK(started[i] == i);
    for (int r : runs) CHECK(r == 1);
    CHECK(most == 6);
    CHECK(running == 0);
}

TEST_CASE("run_jobs over a list hands each item to the job, and completes at once for no items", "[work_pool]")
{
    std::vector<int> seen;
    std::vector<int> items{7, 8, 9};
    auto error = run([&]() -> awaitable<void> {
        co_await daemon::run_jobs(items, 2, [&](int item) -> awaitable<void> {
            co_await pause(1);
            seen.push_back(item);
        });
        co_await daemon::run_jobs(std::vector<int>{}, 4, [&](int) -> awaitable<void> {
            seen.push_back(-1);
            co_return;
        });
    });
    CHECK(error.empty());
    std::sort(seen.begin(), seen.end());
    CHECK(seen == std::vector<int>{7, 8, 9});
}

TEST_CASE("a job that throws fails run_jobs only after the other jobs have finished", "[work_pool]")
{
    std::vector<int> finished(10, 0);
    auto error = run([&]() -> awaitable<void> {
        co_await daemon::run_jobs(finished.size(), 3, [&](std::size_t i) -> awaitable<void> {
            co_await pause(1);
            if (i == 2) throw std::logic_error("job 2 broke");
            finished[i] = 1;
        });
    });
    CHECK(error == "job 2 broke");
    // The worker that ran job 2 stopped; the others took every other job.
    for (std::size_t i = 0; i < finished.size(); ++i) CHECK(finished[i] == (i == 2 ? 0 : 1));
}
