// The one parallel loop of the pure libraries (topology, lidassign,
// routing): engines, the LID stage and the route analysis spread their
// independent work items over threads with it, and nothing else in them
// starts threads.
//
// Why one: hand-written copies disagreed on how many threads to start and
// most caught nothing, so a worker's throw (bad_alloc included) called
// std::terminate and took the SM with it. Here every exception is caught in
// its worker and rethrown on the caller's thread after all workers joined,
// so an engine that fails becomes a refusal (routing/chain.h) and the chain
// moves on.
//
// Data structures: one atomic counter hands out indices in increasing
// order (dynamic: a worker that finished takes the next index, so uneven
// items do not leave threads idle); per worker, the first index whose call
// threw and its exception.
//
// Algorithm: workers = min(worker_count(threads), n); the calling thread is
// worker 0 and the others are started for the loop and joined before it
// returns. A worker whose call throws records it and stops, and no further
// index is handed out. Every index below the one that threw was handed out
// before it and is finished, so of the recorded exceptions the one of the
// lowest index is the first in index order whatever the threads did, and it
// is the one rethrown. Results must not depend on which worker ran an index:
// callers keep per-index results, or per-worker accumulators merged in an
// order-independent way.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace ibsm::common {

// At most this many workers unless a caller asks for more: each worker keeps
// scratch the size of the fabric (the analysis' dependency graphs, the LID
// stage's port sets), and the daemon runs the routing next to other jobs
// on its compute pool.
inline constexpr unsigned max_default_workers = 16;

// Workers of a loop for `requested` threads: `requested` itself, or for 0
// the hardware's threads (at least 1, at most max_default_workers). The
// one place that decides it; `worker` in parallel_for is below this.
inline unsigned worker_count(unsigned requested = 0)
{
    if (requested != 0) return requested;
    return std::clamp(std::thread::hardware_concurrency(), 1u, max_default_workers);
}

// Calls fn(index, worker) for every index in [0, n) on up to
// worker_count(threads) threads (threads = 1: in order on the caller's
// thread); worker < worker_count(threads). Rethrows the exception of the
// lowest index that threw once every worker has stopped; indices above it
// may not have run. If a thread cannot be started, the ones running share
// the work.
template <typename Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn)
{
    const auto workers = static_cast<unsigned>(std::min<std::size_t>(worker_count(threads), n));
    if (workers <= 1) {
        for (std::size_t i = 0; i < n; ++i) fn(i, 0u);
        return;
    }
    struct Failure {
        std::size_t index = SIZE_MAX;
        std::exception_ptr error;
    };
    std::vector<Failure> failed(workers);
    std::atomic<std::size_t> next{0};
    auto work = [&](unsigned w) {
        for (auto i = next.fetch_add(1, std::memory_order_relaxed); i < n;
             i = next.fetch_add(1, std::memory_order_relaxed)) {
            try {
                fn(i, w);
            } catch (...) {
                failed[w] = Failure{i, std::current_exception()};
                next.store(n, std::memory_order_relaxed); // hand out no more
                return;
            }
        }
    };
    {
        std::vector<std::thread> pool;
        pool.reserve(workers - 1);
        for (unsigned w = 1; w < workers; ++w) {
            try {
                pool.emplace_back(work, w);
            } catch (const std::system_error&) {
                break; // no more threads now: the ones started and this one do it all
            }
        }
        work(0);
        for (auto& t : pool) t.join();
    }
    const auto first = std::min_element(failed.begin(), failed.end(),
                                        [](const Failure& a, const Failure& b) { return a.index < b.index; });
    if (first->error) std::rethrow_exception(first->error);
}

} // namespace ibsm::common
