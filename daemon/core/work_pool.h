// Runs a list of asynchronous jobs with a bounded number in flight.
//
// Why: programming a large fabric is hundreds of thousands of SMPs. One
// coroutine per SMP would hold that many frames at once; the transport's
// window bounds what is on the wire anyway, so a few workers more than the
// window keep it full while memory stays flat.
//
// Data structures: one shared cursor over the job indices; `width` worker
// coroutines each start the next index until all are taken. A job's
// coroutine is created only when a worker starts it, so nothing per job is
// allocated up front (at 10 000 hosts a phase has 300 000 jobs). Jobs start
// in index order, so callers control interleaving (e.g. block 0 of every
// switch before block 1 of any) by how they order their items.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace ibsm::daemon {

using JobFn = std::function<boost::asio::awaitable<void>(std::size_t)>;

// Runs job(0) .. job(count - 1), at most `width` unfinished at a time, and
// completes when every job has finished. An exception thrown by a job (a
// bug, not a fabric problem) is rethrown after the others have finished.
boost::asio::awaitable<void> run_jobs(std::size_t count, std::size_t width, JobFn job);

// The same over a list: job(items[i]) for every item, in list order. `items`
// and `job` live in this coroutine's frame until every job has finished.
template <class T, class F>
boost::asio::awaitable<void> run_jobs(std::vector<T> items, std::size_t width, F job)
{
    co_await run_jobs(items.size(), width, [&items, &job](std::size_t i) { return job(items[i]); });
}

} // namespace ibsm::daemon
