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
// than the legal minimum + `slack` hops (default 2) — Yen's k-shortest
// loopless paths restricted to the Up*/Down* rule and bounded in length.
// Minimal paths alone leave pairs at distance 1-2 of a random fabric with
// one or two candidates (no room to balance, and all heuristics of the
// LID stage then tie); paths a few hops longer give the spread seed 002
// reports, and the bound keeps detours from eating the bandwidth they were
// meant to free. When one length has more legal paths than the remaining
// quota the kept ones are spread over the search order (routing/paths/
// updn_paths.h), not the first few. CA pairs on one switch pair share its
// candidates; pairs on one switch use no switch channel.
//
// Selection (the exact rule, our reading of [7]): every CA pair starts
// holding all candidates of its switch pair. The load of a switch-to-switch
// channel is the number of held (CA pair, candidate) instances crossing it
// ([7]'s count of alternative paths per link; CA links carry the same load
// whatever is chosen and do not count). A candidate's key is the load of its
// most loaded channel. In rounds, every switch pair whose CA pairs still
// hold more than one candidate each sheds one held instance per CA pair,
// each time from its candidate with the highest key (ties: the later —
// longer — candidate), a shed instance lowering that candidate's key by one;
// keys are refreshed from the channel loads once per switch pair and round,
// and loads are updated after each switch pair. So the most loaded links
// lose paths first, and a pair keeps a path through a loaded link only when
// its alternatives are worse. After k-1 rounds each CA pair holds one path.
// Implementation: CA pairs of one switch pair are interchangeable for every
// channel load, so a switch pair is a count per candidate (how many of its
// CA pairs hold it) and one round's shedding is a water-fill over at most k
// keys — O(k log load) per switch pair and round, not O(CA pairs).
//
// Which CA pair gets which path: the final counts of a switch pair are dealt
// out in candidate order to its CA pairs taken destination by destination
// (then by source). Loads do not depend on that choice, but sources on one
// switch that reach one destination by one path cannot split there, so the
// LID stage needs fewer LIDs.
//
// Switch→CA paths: routing/paths/assemble.h (suffixes of chosen CA paths).
// Roots: routing/paths/updn_paths.h.
#pragma once

#include "routing/paths/path_engine.h"

namespace ibsm::routing::paths {

struct PathselParams {
    unsigned k = 16;
    unsigned slack = 2;
    unsigned threads = 1;
};

class PathselEngine final : public PathEngine {
public:
    explicit PathselEngine(PathselParams params = {}) : params_(params) {}
    std::string name() const override { return "pathsel"; }
    PathResult compute(const topology::Fabric& fabric, const Options& options) const override;

private:
    PathselParams params_;
};

} // namespace ibsm::routing::paths
