// The complete CDG as index arithmetic (see header).
#include "routing/nue/channel_turns.h"

#include <cassert>

namespace ibsm::routing::nue {

ChannelTurns::ChannelTurns(const SwitchGraph& graph)
    : g(graph), tail(graph.channel_count()), reverse(graph.channel_count(), no_channel),
      turn_first(graph.channel_count() + 1, 0)
{
    const std::size_t C = g.channel_count();
    for (std::size_t s = 0; s < g.size(); ++s)
        for (std::uint32_t c = g.first[s]; c < g.first[s + 1]; ++c) tail[c] = static_cast<std::uint32_t>(s);
    for (std::size_t c = 0; c < C; ++c) {
        // Usable links are usable from both ends (switch_graph.h).
        reverse[c] = g.channel_from(g.head[c], g.in_port[c]);
        assert(reverse[c] != no_channel);
        const auto b = g.head[c];
        turn_first[c + 1] = turn_first[c] + (g.first[b + 1] - g.first[b]);
    }
}

} // namespace ibsm::routing::nue
