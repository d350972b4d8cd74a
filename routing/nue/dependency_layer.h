// One virtual layer's share of the complete CDG: which dependencies (turns)
// its routes use, kept acyclic as they are added one at a time — the
// invariant Nue routes under (HPDC 2016, §3: routes whose dependencies form
// an acyclic subgraph of the cCDG are deadlock-free on one VL).
//
// Why: Nue asks "may this route take turn c1 -> c2?" for every edge its
// Dijkstra relaxes, millions of times on a large fabric. The paper and
// OpenSM answer with a search of the used subgraph (colouring disjoint
// acyclic subgraphs to skip some searches); here the used subgraph keeps a
// topological order instead (Pearce and Kelly's dynamic topological sort,
// JEA 2006), so most questions are one comparison: c1 before c2 in the
// order cannot close a cycle. Only when the order disagrees is the region
// between them searched, and reordered if no cycle is found.
//
// Data structures: per turn a state (unused, used, blocked), and the used
// turns again as bits per channel, forward and backward (below); per
// channel its place in the order (ord), which starts with the channels
// leading away from the switches with hosts, then those between switches
// as far from them, then those leading back, so that a tree's minimal
// routes (up, then down) need no reorder (nue's engine time on the 11 664-
// host tree at 1 VL 17.6 -> 14.2 s of CPU; the identity on a torus, where
// every switch has hosts). Blocked turns were
// found to close a cycle and are not tried again in this layer (the paper's
// blocked state): the used subgraph only loses edges when a destination's
// tentative choice is replaced, so a blocked turn could at most become
// usable again in rare cases, and re-searching it every time would cost
// more than it gains.
//
// Algorithm (add c1 -> c2 with ord[c2] < ord[c1]), Pearce and Kelly's: the
// channels c2 leads to that are ordered before c1 (forward), and those
// that lead to c1 ordered after c2 (backward); a channel in both closes a
// cycle (the turn becomes blocked). Otherwise the two sets take their
// joint places in the order, backward set first. The two sets are grown
// breadth-first, one channel of each in turn, so a cycle is found once the
// nearer meeting point is reached: at 11 664 hosts on the tree, 154 000 of
// the 333 000 reorders at 1 VL end in a cycle (the escape tree's reserved
// down-up turns against Up*/Down* turns); searched forward first, as the
// paper's algorithm reads, each walked ~1 300 channels at 3 456 hosts
// before reaching c1 (issue 36).
#pragma once

#include "routing/nue/channel_turns.h"

#include <bit>
#include <cstdint>
#include <vector>

namespace ibsm::routing::nue {

class DependencyLayer {
public:
    enum class State : std::uint8_t { unused, used, blocked };

    explicit DependencyLayer(const ChannelTurns& turns);

    State state(std::size_t turn) const { return state_[turn]; }
    // Uses turn c1 -> c2 unless that closes a cycle: true when the turn is
    // (now) used, false when it is or became blocked.
    bool try_use(std::uint32_t c1, std::uint32_t c2);
    // A used turn no route takes any more (the order stays valid).
    void release(std::uint32_t c1, std::uint32_t c2);
    // Bulk insertion of a set known to be acyclic (escape routes that are
    // deadlock-free together, escape_paths.h): mark_used() each turn, then
    // order_used() once, a topological sort of all used turns (Kahn) instead
    // of one reorder per turn, which cost minutes at 3 456 hosts; ties keep
    // the current order. false when the used turns hold a cycle (the order
    // is then left as it was).
    void mark_used(std::uint32_t c1, std::uint32_t c2);
    bool order_used();
    std::uint64_t used_count() const { return used_; }

private:
    bool reorder(std::uint32_t c1, std::uint32_t c2);
    void set_used(std::uint32_t c1, std::uint32_t c2, bool used);
    // f(n) for every used turn c -> n, f(p) for every used turn p -> c.
    template <class F> void used_next(std::uint32_t c, F&& f) const
    {
        const std::uint32_t base = t_.g.first[t_.g.head[c]];
        for (std::uint32_t w = out_first_[c]; w < out_first_[c + 1]; ++w)
            for (std::uint64_t bits = out_used_[w]; bits; bits &= bits - 1)
                f(base + 64 * (w - out_first_[c]) + static_cast<std::uint32_t>(std::countr_zero(bits)));
    }
    template <class F> void used_previous(std::uint32_t c, F&& f) const
    {
        const std::uint32_t base = t_.g.first[t_.tail[c]];
        for (std::uint32_t w = in_first_[c]; w < in_first_[c + 1]; ++w)
            for (std::uint64_t bits = in_used_[w]; bits; bits &= bits - 1)
                f(t_.reverse[base + 64 * (w - in_first_[c]) + static_cast<std::uint32_t>(std::countr_zero(bits))]);
    }

    const ChannelTurns& t_;
    std::vector<State> state_;
    // The used turns again as bits, per channel: out_used_ over the channels
    // leaving the switch it enters (c -> n), in_used_ over those entering
    // the switch it leaves (p -> c, by the place of p's reverse), each in
    // ceil(ports / 64) words from out_first_ / in_first_. The order's
    // searches walk only used turns (about 15 of 22 per channel on a tree),
    // from a word or two instead of a byte per turn scattered over the
    // channels' turn ranges.
    std::vector<std::uint64_t> out_used_, in_used_;
    std::vector<std::uint32_t> out_first_, in_first_;
    std::vector<std::uint32_t> ord_;
    std::vector<std::uint32_t> mark_, back_mark_; // == stamp_: reached forward / backward
    std::uint32_t stamp_ = 0;
    std::vector<std::uint32_t> forward_, backward_;
    std::vector<std::uint64_t> keys_, back_keys_, places_; // (place, channel)
    std::uint64_t used_ = 0;
};

} // namespace ibsm::routing::nue
