// Effective bisection bandwidth, seed 001 §IV-A.
//
// Why: the paper's measure of what a routing delivers when every endpoint
// talks to one partner: the average, over N random bisect patterns, of the
// pattern's bandwidth in the linear congestion model, as a fraction of full
// bisection bandwidth B * P/2.
//
// Pattern (as §IV-A states it): the P hosts (CA ports) are split into two
// random halves of P/2 and each host of the first half sends to exactly one
// host of the second (a random perfect matching). We draw it as a uniformly
// random permutation pi of the hosts (Fisher-Yates driven by std::mt19937 with
// the given seed, one generator for all N patterns) and let pi[2k] send to
// pi[2k+1]; with `bidirectional` pi[2k+1] also sends to pi[2k] and the
// fraction is taken over P flows. An odd host out stays idle.
// Gamma(S) = sum over flows of 1 / max tau(e) on its path; the reported value
// is (1/N) * sum over patterns of Gamma(S) / (number of flows).
//
// The bounded draw uses rejection on the 32-bit engine output (not
// std::uniform_int_distribution, whose algorithm differs between standard
// libraries), so a seed names the same patterns everywhere.
#pragma once

#include "routing/analysis/congestion.h"
#include "routing/analysis/progress.h"

#include <cstdint>
#include <random>
#include <vector>

namespace ibsm::routing::analysis {

struct EbbOptions {
    unsigned bisections = 1000;
    std::uint32_t seed = std::mt19937::default_seed;
    bool bidirectional = false;
};

struct EbbResult {
    unsigned bisections = 0;
    std::uint32_t seed = 0;
    bool bidirectional = false;
    std::size_t hosts = 0;
    std::size_t flows_per_pattern = 0;
    double ebb = 0;           // mean fraction of full bisection bandwidth
    double min = 0, max = 0;  // over the patterns
    std::uint64_t unroutable_flows = 0;
};

// Uniform integer in [0, n), n >= 1, by rejection sampling.
std::uint32_t uniform_below(std::mt19937& rng, std::uint32_t n);
// Shuffles `v` uniformly at random (Fisher-Yates from the back).
void shuffle_hosts(std::mt19937& rng, std::vector<std::int32_t>& v);
// The flows of one bisect pattern drawn from `rng` over `hosts`.
std::vector<Flow> random_bisection(std::mt19937& rng, const std::vector<std::int32_t>& hosts, bool bidirectional);

EbbResult effective_bisection_bandwidth(const FlowEvaluator& eval, const std::vector<std::int32_t>& hosts,
                                        const EbbOptions& options, unsigned threads,
                                        StageProgress* progress = nullptr);

} // namespace ibsm::routing::analysis
