// Hop distances between switches over the cabled switch-to-switch links,
// the yardstick for route stretch.
//
// Why: "stretch" compares each routed path with a shortest one; CAs do not
// forward, so shortest paths run over switches only and a CA pair adds its two
// cables.
//
// Data structures: a dense S x S table of uint16 distances (row = from),
// `unreachable` where the switch graph is disconnected.
// Algorithm: one breadth-first search per switch, O(S * (S + links)), split
// over threads by source switch.
#pragma once

#include "routing/analysis/network.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

class ShortestPaths {
public:
    static constexpr std::uint16_t unreachable = 0xFFFF;

    ShortestPaths(const Network& net, unsigned threads);

    std::uint16_t between(std::int32_t from_switch, std::int32_t to_switch) const
    {
        return dist_[static_cast<std::size_t>(from_switch) * n_ + static_cast<std::size_t>(to_switch)];
    }

private:
    std::size_t n_;
    std::vector<std::uint16_t> dist_;
};

} // namespace ibsm::routing::analysis
