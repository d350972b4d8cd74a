// A few example routes per channel, for the report's hover text (ibsm report).
//
// Why: an operator looking at a hot link wants to know whose traffic it
// carries; naming a handful of (source, destination LID) pairs is enough, and
// collecting them must cost next to nothing beside the load counting, so
// each channel keeps the first `per_channel` examples offered and ignores
// the rest.
//
// Data structures: a flat array of per_channel slots per channel and a fill
// count; per_channel 0 keeps nothing (every call is a no-op). Each
// accumulator is offered examples in increasing (seq, lid) order, and merge
// keeps the smallest, so the examples do not depend on how the work was split
// between threads.
#pragma once

#include "routing/analysis/connectivity.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

class ChannelExamples {
public:
    ChannelExamples() = default;
    ChannelExamples(std::size_t channels, std::size_t per_channel);

    std::size_t per_channel() const { return per_; }
    bool full(std::int32_t channel) const { return count_[static_cast<std::size_t>(channel)] >= per_; }
    // Keeps (source endpoint, lid) unless the channel has its examples
    // already; `seq` orders examples of different LIDs (see merge).
    void add(std::int32_t channel, std::int32_t source, std::uint32_t lid, std::uint32_t seq = 0)
    {
        auto c = static_cast<std::size_t>(channel);
        if (count_.empty() || count_[c] >= per_) return;
        slots_[c * per_ + count_[c]++] = PairExample{lid, seq, source};
    }
    // The per_channel first of both by (seq, lid), this one's first on ties.
    void merge(const ChannelExamples& other);
    std::vector<PairExample> of(std::int32_t channel) const;

private:
    std::size_t per_ = 0;
    std::vector<std::uint32_t> count_;
    std::vector<PairExample> slots_;
};

// Keeps in slots[at ..] the `limit` first by (seq, lid) of its `count`
// sorted entries and other's sorted entries; count updated.
void merge_first(std::vector<PairExample>& slots, std::size_t at, std::uint32_t& count,
                 const std::vector<PairExample>& other, std::size_t other_at, std::uint32_t other_count,
                 std::size_t limit);

} // namespace ibsm::routing::analysis
