#include "routing/analysis/channel_examples.h"

namespace ibsm::routing::analysis {

ChannelExamples::ChannelExamples(std::size_t channels, std::size_t per_channel)
    : per_(per_channel), count_(per_channel ? channels : 0, 0), slots_(channels * per_channel)
{
}

void ChannelExamples::merge(const ChannelExamples& o)
{
    for (std::size_t c = 0; c < count_.size() && c < o.count_.size(); ++c)
        for (std::uint32_t k = 0; k < o.count_[c] && count_[c] < per_; ++k)
            slots_[c * per_ + count_[c]++] = o.slots_[c * o.per_ + k];
}

std::vector<PairExample> ChannelExamples::of(std::int32_t channel) const
{
    auto c = static_cast<std::size_t>(channel);
    if (c >= count_.size()) return {};
    return {slots_.begin() + static_cast<std::ptrdiff_t>(c * per_),
            slots_.begin() + static_cast<std::ptrdiff_t>(c * per_ + count_[c])};
}

} // namespace ibsm::routing::analysis
