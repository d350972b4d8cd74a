// Runs a list of asynchronous jobs with a bounded number in flight.
//
// Why: programming a large fabric is hundreds of thousands of SMPs. One
// coroutine per SMP would hold that many frames at once; the transport's
// window bounds what is on the wire anyway, so a few workers more than the
// window keep it full while memory stays flat.
//
// Data structures: the job list and one shared cursor; `width` worker
// coroutines each take the next job until the list is exhausted. Jobs are
// started in list order, so callers control interleaving (e.g. block 0 of
// every switch before block 1 of any) by how they order the list.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace ibsm::daemon {

using Job = std::function<boost::asio::awaitable<void>()>;

// Completes when every job has finished. An exception thrown by a job (a
// bug, not a fabric problem) is rethrown after the others have finished.
boost::asio::awaitable<void> run_jobs(std::vector<Job> jobs, std::size_t width);

} // namespace ibsm::daemon
