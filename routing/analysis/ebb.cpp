#include "routing/analysis/ebb.h"

#include "common/parallel_for.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace ibsm::routing::analysis {

std::uint32_t uniform_below(std::mt19937& rng, std::uint32_t n)
{
    // Accept only draws below the largest multiple of n that fits in 2^32.
    const std::uint64_t range = std::uint64_t{1} << 32;
    const std::uint64_t limit = range - range % n;
    for (;;) {
        std::uint64_t x = rng();
        if (x < limit) return static_cast<std::uint32_t>(x % n);
    }
}

void shuffle_hosts(std::mt19937& rng, std::vector<std::int32_t>& v)
{
    for (std::size_t i = v.size(); i > 1; --i) {
        std::size_t j = uniform_below(rng, static_cast<std::uint32_t>(i));
        std::swap(v[i - 1], v[j]);
    }
}

std::vector<Flow> random_bisection(std::mt19937& rng, const std::vector<std::int32_t>& hosts, bool bidirectional)
{
    std::vector<std::int32_t> perm = hosts;
    shuffle_hosts(rng, perm);
    std::vector<Flow> flows;
    flows.reserve(bidirectional ? perm.size() : perm.size() / 2);
    for (std::size_t k = 0; k + 1 < perm.size(); k += 2) {
        flows.push_back(Flow{perm[k], perm[k + 1]});
        if (bidirectional) flows.push_back(Flow{perm[k + 1], perm[k]});
    }
    return flows;
}

EbbResult effective_bisection_bandwidth(const FlowEvaluator& eval, const std::vector<std::int32_t>& hosts,
                                        const EbbOptions& options, unsigned threads, StageProgress* progress)
{
    EbbResult r;
    r.bisections = options.bisections;
    r.seed = options.seed;
    r.bidirectional = options.bidirectional;
    r.hosts = hosts.size();
    r.flows_per_pattern = options.bidirectional ? hosts.size() / 2 * 2 : hosts.size() / 2;
    if (r.flows_per_pattern == 0 || options.bisections == 0) return r;

    // Patterns are drawn in order from one generator, a batch at a time, and
    // evaluated in parallel; sums are taken in pattern order.
    std::mt19937 rng(options.seed);
    const unsigned workers = common::worker_count(threads);
    std::vector<FlowScratch> scratch(workers);
    std::vector<double> fraction(options.bisections);
    std::vector<std::uint64_t> unroutable(options.bisections, 0);
    const std::size_t batch = 64;
    std::vector<std::vector<Flow>> patterns;
    for (std::size_t first = 0; first < options.bisections; first += batch) {
        std::size_t n = std::min<std::size_t>(batch, options.bisections - first);
        patterns.clear();
        for (std::size_t k = 0; k < n; ++k) patterns.push_back(random_bisection(rng, hosts, options.bidirectional));
        common::parallel_for(n, workers, [&](std::size_t k, unsigned w) {
            FlowOutcome o = eval.evaluate(patterns[k], scratch[w]);
            fraction[first + k] = o.bandwidth_sum / static_cast<double>(patterns[k].size());
            unroutable[first + k] = o.unroutable;
            if (progress) progress->tick();
        });
    }
    double sum = 0;
    r.min = std::numeric_limits<double>::infinity();
    r.max = 0;
    for (std::size_t b = 0; b < options.bisections; ++b) {
        sum += fraction[b];
        r.min = std::min(r.min, fraction[b]);
        r.max = std::max(r.max, fraction[b]);
        r.unroutable_flows += unroutable[b];
    }
    r.ebb = sum / static_cast<double>(options.bisections);
    return r;
}

} // namespace ibsm::routing::analysis
