// A minimal static-stride parallel loop for the analyzer's independent work
// items (destinations, shifts, bisections, BFS sources).
//
// Why: the analyses are embarrassingly parallel and must stay deterministic;
// each worker gets a fixed set of indices (i = worker, worker + n, ...) and
// its own accumulator slot, so results never depend on scheduling.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace ibsm::routing::analysis {

// Number of workers to use for `requested` (0 = hardware concurrency).
inline unsigned worker_count(unsigned requested)
{
    if (requested != 0) return requested;
    unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : hw;
}

// Calls fn(index, worker) for every index in [0, n); worker < workers.
template <typename Fn>
void parallel_for(std::size_t n, unsigned workers, Fn&& fn)
{
    workers = static_cast<unsigned>(std::min<std::size_t>(worker_count(workers), std::max<std::size_t>(n, 1)));
    if (workers <= 1) {
        for (std::size_t i = 0; i < n; ++i) fn(i, 0u);
        return;
    }
    std::vector<std::exception_ptr> errors(workers);
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (unsigned w = 0; w < workers; ++w) {
        pool.emplace_back([&, w] {
            try {
                for (std::size_t i = w; i < n; i += workers) fn(i, w);
            } catch (...) {
                errors[w] = std::current_exception();
            }
        });
    }
    for (auto& t : pool) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

} // namespace ibsm::routing::analysis
