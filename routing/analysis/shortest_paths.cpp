#include "routing/analysis/shortest_paths.h"

#include "common/parallel_for.h"

namespace ibsm::routing::analysis {

ShortestPaths::ShortestPaths(const Network& net, unsigned threads)
    : n_(net.switch_count()), dist_(n_ * n_, unreachable)
{
    // Switch adjacency as a compact CSR list (parallel cables collapse to
    // repeated entries, which BFS tolerates).
    std::vector<std::size_t> first(n_ + 1, 0);
    for (const Channel& c : net.channels())
        if (c.tail_switch >= 0 && c.head_switch >= 0) ++first[static_cast<std::size_t>(c.tail_switch) + 1];
    for (std::size_t i = 0; i < n_; ++i) first[i + 1] += first[i];
    std::vector<std::int32_t> adj(first[n_]);
    std::vector<std::size_t> fill(first.begin(), first.end() - 1);
    for (const Channel& c : net.channels())
        if (c.tail_switch >= 0 && c.head_switch >= 0)
            adj[fill[static_cast<std::size_t>(c.tail_switch)]++] = c.head_switch;

    common::parallel_for(n_, threads, [&](std::size_t src, unsigned) {
        std::uint16_t* row = &dist_[src * n_];
        std::vector<std::int32_t> queue;
        queue.reserve(n_);
        row[src] = 0;
        queue.push_back(static_cast<std::int32_t>(src));
        for (std::size_t qi = 0; qi < queue.size(); ++qi) {
            auto u = static_cast<std::size_t>(queue[qi]);
            for (std::size_t k = first[u]; k < first[u + 1]; ++k) {
                auto v = static_cast<std::size_t>(adj[k]);
                if (row[v] != unreachable) continue;
                row[v] = static_cast<std::uint16_t>(row[u] + 1);
                queue.push_back(adj[k]);
            }
        }
    });
}

} // namespace ibsm::routing::analysis
