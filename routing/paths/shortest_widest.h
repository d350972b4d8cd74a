// `shortest-widest`: seed 002 §5.1 "Shortest Widest" — CA pairs routed one by
// one, each on a minimal Up*/Down*-legal path, among those the one of least
// total link weight; every link starts at weight 1 and a chosen path adds 1
// to each of its links.
//
// Why: the paper's second routing for the LID-assignment experiments
// (Table 1), and the path source of "destination renaming" in Table 3
// (shortest legal paths, LIDs assigned as paths are computed). Less diverse
// than pathsel (only minimal legal paths), so fewer LIDs on small fabrics.
//
// Data structures: a weight per switch-to-switch channel (CA links weigh the
// same whatever is chosen and are left out); per CA pair a memo over the
// states (switch, gone-down) of the minimal legal sub-DAG toward the
// destination's switch.
//
// Algorithm: CA pairs in (source port, destination port) order. For a pair
// on switches a != b, a depth-first search over "tight" channels (those that
// lower the legal hop count to b by one, routing/paths/updn_paths.h)
// computes the least weight from every state reached, then the path follows
// the least-weight channel at each step (ties: lower port). O(pairs x size of
// the minimal legal sub-DAG). Switch→CA paths: routing/paths/assemble.h.
// Roots: as pathsel (routing/paths/updn_paths.h: on fabrics that are not
// trees, the best of the 8 most central roots by maximum link load).
#pragma once

#include "routing/paths/path_engine.h"

namespace ibsm::routing::paths {

class ShortestWidestEngine final : public PathEngine {
public:
    // root_trials: roots tried on fabrics that are not trees, keeping the
    // lowest maximum link load (routing/paths/updn_paths.h); 1 = the most
    // central only.
    explicit ShortestWidestEngine(unsigned threads = 1, unsigned root_trials = 8)
        : threads_(threads), root_trials_(root_trials)
    {
    }
    std::string name() const override { return "shortest-widest"; }
    PathResult compute(const topology::Fabric& fabric, const Options& options) const override;

private:
    unsigned threads_;
    unsigned root_trials_;
};

} // namespace ibsm::routing::paths
