#include "routing/analysis/channel_examples.h"

#include <algorithm>

namespace ibsm::routing::analysis {

ChannelExamples::ChannelExamples(std::size_t channels, std::size_t per_channel)
    : per_(per_channel), count_(per_channel ? channels : 0, 0), slots_(channels * per_channel)
{
}

void merge_first(std::vector<PairExample>& slots, std::size_t at, std::uint32_t& count,
                 const std::vector<PairExample>& other, std::size_t other_at, std::uint32_t other_count,
                 std::size_t limit)
{
    if (other_count == 0) return;
    auto key = [](const PairExample& e) { return std::pair(e.seq, e.lid); };
    std::vector<PairExample> out;
    out.reserve(limit);
    std::uint32_t i = 0, j = 0;
    while (out.size() < limit && (i < count || j < other_count)) {
        if (j == other_count || (i < count && key(slots[at + i]) <= key(other[other_at + j])))
            out.push_back(slots[at + i++]);
        else
            out.push_back(other[other_at + j++]);
    }
    std::copy(out.begin(), out.end(), slots.begin() + static_cast<std::ptrdiff_t>(at));
    count = static_cast<std::uint32_t>(out.size());
}

void ChannelExamples::merge(const ChannelExamples& o)
{
    for (std::size_t c = 0; c < count_.size() && c < o.count_.size(); ++c)
        merge_first(slots_, c * per_, count_[c], o.slots_, c * o.per_, o.count_[c], per_);
}

std::vector<PairExample> ChannelExamples::of(std::int32_t channel) const
{
    auto c = static_cast<std::size_t>(channel);
    if (c >= count_.size()) return {};
    return {slots_.begin() + static_cast<std::ptrdiff_t>(c * per_),
            slots_.begin() + static_cast<std::ptrdiff_t>(c * per_ + count_[c])};
}

} // namespace ibsm::routing::analysis
