// Edge-forwarding index (seed 001 §I-A): the load l(e) of a link is the
// number of routes through it; pi(G, R) = max over links of l(e).
//
// Why: a classic balance measure of a routing, reported beside the
// effective bisection bandwidth that the same paper argues predicts bandwidth
// better.
//
// What is counted: the complete routing R of the paper, one route per ordered
// pair of distinct CA ports (to the destination's base LID; delivered routes
// only), and the load per directed link (each direction of a cable is its own
// channel). Reported over all channels and over switch-to-switch channels
// only, since the CA cables always carry exactly P-1 routes each way.
//
// Algorithm: per destination the routes form an in-tree; summing the number
// of sources that enter at each switch farthest-first gives the routes on
// each tree channel. O(P x switches) overall.
//
// Examples (ibsm report, when asked for): in the same farthest-first pass
// each switch that routes any source carries up to k representative ones
// (its own CAs, rotated by LID, then those that flowed in first), and the
// channel it forwards on is offered (representative, LID) for each. A CA's
// cable toward its switch takes its examples from the first destinations its
// switch delivered to. O(k) extra per (switch, destination).
#pragma once

#include "routing/analysis/channel_examples.h"
#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

struct LoadSummary {
    std::uint64_t channels = 0;
    std::uint64_t max = 0;
    double mean = 0;
    std::int32_t max_channel = -1; // a channel carrying `max`
};

struct EdgeForwarding {
    std::uint64_t routes = 0; // delivered CA-to-CA routes counted
    LoadSummary all;
    LoadSummary switch_links;
};

// The summary of per-channel loads (index = channel), `routes` counted.
EdgeForwarding summarise_loads(const Network& net, const std::vector<std::uint64_t>& load, std::uint64_t routes);

class EdgeForwardingCounter {
public:
    // examples_per_channel 0: no examples kept.
    explicit EdgeForwardingCounter(const Network& net, std::size_t examples_per_channel = 0);
    // Only traces of a CA port's base LID are counted; others are ignored.
    void add(const DestinationTree& tree);
    void merge(const EdgeForwardingCounter& other);
    EdgeForwarding result() const;
    // Routes per channel (index = channel), as result() summarises them.
    std::vector<std::uint64_t> loads() const;
    // Up to examples_per_channel routes per channel, CA cables included.
    ChannelExamples examples() const;

private:
    void add_examples(const DestinationTree& tree);

    const Network* net_;
    std::vector<std::uint64_t> load_;          // per channel (switch-originated tails)
    std::vector<std::uint64_t> delivered_at_;  // per switch: CA destinations it delivers to
    std::vector<std::uint64_t> self_;          // per endpoint: its own base LID counted in delivered_at_
    std::vector<std::uint32_t> ca_at_;
    std::vector<std::uint64_t> through_;       // scratch
    // Examples: CA endpoints per switch (CSR), the destinations each switch
    // delivered to first (up to examples + 1, for the CAs' own cables), the
    // representative sources per switch (scratch).
    ChannelExamples examples_;
    std::vector<std::uint32_t> ca_first_;
    std::vector<std::int32_t> ca_list_;
    std::vector<std::uint32_t> sample_count_;
    std::vector<PairExample> samples_; // lid and owning endpoint (in `source`)
    std::vector<std::int32_t> rep_;
    std::vector<std::uint32_t> rep_count_;
    std::uint64_t routes_ = 0;
};

} // namespace ibsm::routing::analysis
