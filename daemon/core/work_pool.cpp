#include "daemon/core/work_pool.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <exception>
#include <memory>

namespace ibsm::daemon {

boost::asio::awaitable<void> run_jobs(std::size_t count, std::size_t width, JobFn job)
{
    if (count == 0) co_return;
    auto executor = co_await boost::asio::this_coro::executor;

    struct Shared {
        JobFn job;
        std::size_t count;
        std::size_t next = 0;
        std::size_t workers = 0;
        std::exception_ptr failure;
        boost::asio::steady_timer done;
        Shared(JobFn j, std::size_t n, boost::asio::any_io_executor ex)
            : job(std::move(j)), count(n), done(ex, boost::asio::steady_timer::time_point::max())
        {
        }
    };
    auto shared = std::make_shared<Shared>(std::move(job), count, executor);
    const std::size_t n = std::max<std::size_t>(1, std::min(width, count));
    shared->workers = n;
    for (std::size_t w = 0; w < n; ++w) {
        boost::asio::co_spawn(
            executor,
            [shared]() -> boost::asio::awaitable<void> {
                while (shared->next < shared->count) co_await shared->job(shared->next++);
            },
            [shared](std::exception_ptr e) {
                if (e && !shared->failure) shared->failure = e;
                if (--shared->workers == 0) shared->done.cancel();
            });
    }
    boost::system::error_code ec;
    if (shared->workers > 0) co_await shared->done.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    if (shared->failure) std::rethrow_exception(shared->failure);
}

} // namespace ibsm::daemon
