// `pathsel`: seed 002 §5.1 "Path Selection" — Up*/Down*-restricted
// k-shortest paths (k = 16) per pair, then most-loaded-link-first selection
// (the paper's reference [7], Koibuchi et al.) down to one path per pair.
//
// Why: routing chooses freely per (source, destination) pair for load
// balance, deadlock-free on one VL by the Up*/Down* rule; the LID-assignment
// stage (lidassign/path_configs.h, color/L) pays for the freedom in LIDs.
// Seed 002 Table 3: the lowest maximum link load of the schemes compared.
//
// Candidates (what the seed leaves open): for every pair of switches (a, b)
// with CAs, up to k legal loop-free switch paths, shortest first, no longer
// than the legal minimum + `slack` hops — Yen's k-shortest loopless paths
// restricted to the Up*/Down* rule and bounded in length. Minimal paths
// alone leave pairs at distance 1-2 of a random fabric with one or two
// candidates (no room to balance, and the LID heuristics then all tie);
// one hop more (the default) gives seed 002's spread between the heuristics
// (color/S 22-25 % above color/L, the paper's 23-30 %) and the lowest loads;
// two hops more measured no lower load and 5-15 % more LIDs
// (tests/bench/colorl_bench, 6 instances per configuration). When one length
// has more legal paths than the remaining quota, the kept ones are spread
// over the search order (routing/paths/updn_paths.h), not the first few.
// CA pairs on one switch pair share its candidates; pairs on one switch use
// no switch channel.
//
// Selection (the exact rule, our reading of [7]): every CA pair starts
// holding all candidates of its switch pair. The load of a switch-to-switch
// channel is the expected traffic crossing it if every CA pair spread its
// unit evenly over the candidates it still holds (each held instance weighs
// 1/r, r = candidates the pair holds; [7] counts alternative paths per link,
// the weighting keeps pairs with many alternatives from dominating; CA
// links carry the same load whatever is chosen and do not count). A
// candidate's key is the load of its most loaded channel. In rounds, every
// switch pair whose CA pairs still hold more than one candidate each sheds
// one held instance per CA pair, each time from its candidate with the
// highest key (ties: the later — longer — candidate), a shed instance
// lowering that candidate's key by its weight; keys are refreshed from the
// channel loads once per switch pair and round, and loads (the weights
// change with r) are updated after each switch pair. So the most loaded
// links lose paths first, and a pair keeps a path through a loaded link only
// when its alternatives are worse. After k-1 rounds each CA pair holds one
// path. (Unweighted counts measured higher maximum loads than simply taking
// every pair's first candidate.)
// Implementation: CA pairs of one switch pair are interchangeable for every
// channel load, so a switch pair is a count per candidate (how many of its
// CA pairs hold it) and one round's shedding is a water-fill over at most k
// keys — O(k log load) per switch pair and round, not O(CA pairs).
//
// Selection unit (default: per source switch): the CA sources of one switch
// share their path to a destination, i.e. the units above are (source
// switch, destination) pairs weighing as many CA pairs as the switch has
// sources. Sources on one switch that reach one destination by different
// paths split there and cost LIDs; sharing costs next to nothing in balance
// at seed 002's sizes (maximum link load within 1.2 % of per-CA-pair units,
// 8 instances of each of the 9 configurations) and saves 10-31 % of the
// LIDs, which is what puts "separate" below destination
// renaming's LIDs (seed 002 Table 3). `per_source_switch = false` selects
// per CA pair as the paper does; then the final counts of a switch pair are
// dealt out in candidate order to its CA pairs destination by destination,
// so that a destination's sources share paths as far as the counts allow.
//
// Switch→CA paths: routing/paths/assemble.h (suffixes of chosen CA paths).
// Roots: routing/paths/updn_paths.h — on fabrics that are not trees the
// selection runs for the 8 most central roots and keeps the orientation
// whose selected paths have the lowest maximum link load.
#pragma once

#include "routing/paths/path_engine.h"

namespace ibsm::routing::paths {

struct PathselParams {
    unsigned k = 16;
    unsigned slack = 1;
    unsigned threads = 1; // 0: common::worker_count's default
    // Selection unit: true = every (source switch, destination): the CA
    // sources of one switch share their path to a destination; false = every
    // (source, destination) CA pair, as the paper.
    bool per_source_switch = true;
    // Roots tried on fabrics that are not trees, keeping the lowest maximum
    // link load (routing/paths/updn_paths.h); 1 = the most central only.
    unsigned root_trials = 8;
};

class PathselEngine final : public PathEngine {
public:
    explicit PathselEngine(PathselParams params = {}) : params_(params) {}
    std::string name() const override { return "pathsel"; }
    PathResult compute(const topology::Fabric& fabric, const Options& options) const override;
    // Holds the candidates and the selection only; each destination's paths
    // are dealt and assembled when visited.
    PathSourceResult source(const topology::Fabric& fabric, const Options& options) const override;

private:
    PathselParams params_;
};

} // namespace ibsm::routing::paths
