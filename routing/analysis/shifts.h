// Shift permutations, seed 003 §IV: for every shift s in 1..N-1, host i sends
// to host (i + s) mod N, with the N hosts in a stated order.
//
// Why: D-Mod-K fat-tree routing is proven non-blocking for every shift when
// hosts are numbered in tree order; scoring all shifts shows whether a given
// routing (and host order) achieves that.
//
// What is computed, in the same linear congestion model as the effective
// bisection bandwidth: for each shift, the N flows are routed together, each
// gets 1 / (max flows on a link of its path), and the shift's bandwidth
// fraction is the mean of those over the N flows (1.0 = non-blocking). The
// result is the average and the minimum of that fraction over the N-1
// shifts. O(N x path length) per shift, shifts split over threads.
#pragma once

#include "routing/analysis/congestion.h"
#include "routing/analysis/progress.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

struct ShiftResult {
    std::size_t hosts = 0;
    std::vector<double> fraction; // index s-1
    double average = 0;
    double minimum = 0;
    std::size_t worst_shift = 0;  // a shift reaching `minimum` (smallest such s)
    std::uint64_t unroutable_flows = 0;
};

ShiftResult shift_permutations(const FlowEvaluator& eval, const std::vector<std::int32_t>& order, unsigned threads,
                               StageProgress* progress = nullptr);

} // namespace ibsm::routing::analysis
