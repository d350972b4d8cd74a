// Reachability, forwarding loops, hop counts and stretch for every
// (source, destination LID) pair, by pair class.
//
// Why: the first question about any SM's tables is "does every port reach
// every LID, and how long are the routes"; classes matter because some
// engines (classic fat-tree) deliberately leave switch-to-switch pairs out.
//
// Data structures: per class, counts of pairs / unreachable / loops, a few
// example pairs, and a histogram of (routed hops, shortest hops) for the
// delivered pairs: integer counts keep the means exact and independent of the
// thread count, and there are few distinct hop values.
//
// Algorithm: fed one traced destination at a time; every switch contributes
// with the multiplicity of sources that start there (its attached CA ports,
// and the switch itself), so the cost is O(switches) per destination LID, not
// O(pairs). A CA's route starts at the switch its cable leads to; a CA with no
// switch at the end of its cable reaches nothing. Every LID of an LMC block is
// a separate destination. Pairs whose source owns the destination LID are
// skipped.
#pragma once

#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"
#include "routing/analysis/shortest_paths.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

enum class PairClass : std::uint8_t { ca_to_ca = 0, ca_to_switch, switch_to_ca, switch_to_switch };
inline constexpr std::size_t pair_class_count = 4;
const char* to_string(PairClass c);

struct PairExample {
    std::uint32_t lid = 0;    // destination LID
    std::uint32_t seq = 0;    // rank within its destination (ordering only)
    std::int32_t source = -1; // endpoint
    auto operator<=>(const PairExample&) const = default;
};

struct PairStats {
    std::uint64_t pairs = 0;
    std::uint64_t delivered = 0;
    std::uint64_t unreachable = 0;
    std::uint64_t loops = 0;
    std::vector<PairExample> unreachable_examples;
    std::vector<PairExample> loop_examples;
    // hist[routed * dim + shortest] = number of delivered pairs.
    std::size_t dim = 0;
    std::vector<std::uint64_t> hist;

    void add_delivered(unsigned routed, unsigned shortest, std::uint64_t count);
    void merge(const PairStats& o, std::size_t max_examples);

    double hops_mean() const;
    unsigned hops_max() const;
    double shortest_mean() const;
    double stretch_mean() const; // mean over pairs of routed / shortest
    double stretch_max() const;
    std::uint64_t nonminimal() const; // pairs routed longer than a shortest path
};

struct Connectivity {
    std::array<PairStats, pair_class_count> classes;
    bool switch_sources = true;
    PairStats& of(PairClass c) { return classes[static_cast<std::size_t>(c)]; }
    const PairStats& of(PairClass c) const { return classes[static_cast<std::size_t>(c)]; }
};

class ConnectivityCounter {
public:
    // `sp` null: counts only (no hop histogram, so no hop or stretch
    // figures), for the verification gate which needs no BFS per switch.
    ConnectivityCounter(const Network& net, const ShortestPaths* sp, bool switch_sources, std::size_t max_examples);

    void add(const DestinationTree& tree);
    // Folds `other` into this counter.
    void merge(const ConnectivityCounter& other);
    // The totals, with examples reduced to the smallest destination LIDs.
    Connectivity result() const;
    // What was added since the last clear(), examples unsorted (the
    // incremental gate counts one destination at a time with it).
    const Connectivity& totals() const { return result_; }
    void clear();

private:
    void note_example(std::vector<PairExample>& list, std::int32_t source, std::uint32_t lid, std::uint32_t seq);

    const Network* net_;
    const ShortestPaths* sp_;
    std::size_t max_examples_;
    std::vector<std::uint32_t> ca_at_;        // CA endpoints attached per switch
    std::vector<std::int32_t> first_ca_at_;   // an example CA per switch
    std::vector<std::int32_t> second_ca_at_;  // another one (when the first is the destination)
    std::vector<std::int32_t> unattached_;    // CA endpoints with no switch at the end of the cable
    std::uint64_t ca_total_ = 0;              // sum of ca_at_
    std::uint64_t sw_total_ = 0;              // switches with a LID (sources of switch pairs)
    Connectivity result_;
};

} // namespace ibsm::routing::analysis
