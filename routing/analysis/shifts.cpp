#include "routing/analysis/shifts.h"

#include "common/parallel_for.h"

namespace ibsm::routing::analysis {

ShiftResult shift_permutations(const FlowEvaluator& eval, const std::vector<std::int32_t>& order, unsigned threads,
                               StageProgress* progress)
{
    ShiftResult r;
    const std::size_t n = order.size();
    r.hosts = n;
    if (n < 2) return r;
    r.fraction.assign(n - 1, 0.0);
    std::vector<std::uint64_t> unroutable(n - 1, 0);
    const unsigned workers = common::worker_count(threads);
    std::vector<FlowScratch> scratch(workers);
    std::vector<std::vector<Flow>> flows(workers, std::vector<Flow>(n));
    common::parallel_for(n - 1, workers, [&](std::size_t k, unsigned w) {
        const std::size_t s = k + 1;
        auto& f = flows[w];
        for (std::size_t i = 0; i < n; ++i) f[i] = Flow{order[i], order[(i + s) % n]};
        FlowOutcome o = eval.evaluate(f, scratch[w]);
        r.fraction[k] = o.bandwidth_sum / static_cast<double>(n);
        unroutable[k] = o.unroutable;
        if (progress) progress->tick();
    });
    double sum = 0;
    r.minimum = r.fraction[0];
    r.worst_shift = 1;
    for (std::size_t k = 0; k < n - 1; ++k) {
        sum += r.fraction[k];
        r.unroutable_flows += unroutable[k];
        if (r.fraction[k] < r.minimum) {
            r.minimum = r.fraction[k];
            r.worst_shift = k + 1;
        }
    }
    r.average = sum / static_cast<double>(n - 1);
    return r;
}

} // namespace ibsm::routing::analysis
