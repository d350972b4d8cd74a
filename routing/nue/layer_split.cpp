// Destinations over layers, and each layer's central switch (see header).
#include "routing/nue/layer_split.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace ibsm::routing::nue {

namespace {

// Switches in breadth-first order per component, each from a switch
// farthest from the component's lowest-index switch.
std::vector<std::uint32_t> banded_order(const SwitchGraph& g)
{
    const std::size_t S = g.size();
    std::vector<char> seen(S, 0);
    std::vector<std::uint32_t> out;
    out.reserve(S);
    for (std::size_t s0 = 0; s0 < S; ++s0) {
        if (seen[s0]) continue;
        const std::uint32_t* from_s0 = g.nearest_first(s0);
        const std::uint32_t n = g.reaching(s0);
        const std::uint32_t far = from_s0[n - 1];
        // nearest_first(far) is a BFS order from far over the same component.
        const std::uint32_t* order = g.nearest_first(far);
        for (std::uint32_t i = 0; i < n; ++i) {
            seen[order[i]] = 1;
            out.push_back(order[i]);
        }
    }
    return out;
}

} // namespace

LayerSplit split_destinations(const SwitchGraph& g, const std::vector<std::uint32_t>& order, unsigned layers)
{
    const std::size_t S = g.size();
    std::vector<std::uint64_t> weight(S, 0);
    std::uint64_t total = 0;
    for (auto i : order) {
        weight[static_cast<std::size_t>(g.destinations[i].target)] += g.destinations[i].count;
        total += g.destinations[i].count;
    }
    std::size_t delivering = 0;
    for (auto w : weight) delivering += w > 0;
    const unsigned k = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(layers, delivering)));

    std::vector<std::uint8_t> layer_of(S, 0);
    std::uint64_t before = 0;
    unsigned l = 0;
    for (auto s : banded_order(g)) {
        if (weight[s] == 0) continue;
        // Next layer once this one holds its share (l+1)/k of the total.
        while (l + 1 < k && before * k >= total * (l + 1)) ++l;
        layer_of[s] = static_cast<std::uint8_t>(l);
        before += weight[s];
    }
    LayerSplit split;
    split.lids.resize(k);
    for (auto i : order) {
        const auto& d = g.destinations[i];
        auto& lids = split.lids[layer_of[static_cast<std::size_t>(d.target)]];
        for (std::uint32_t j = 0; j < d.count; ++j) lids.push_back(d.base + j);
    }
    // A switch holding more than a share can leave a layer empty.
    std::erase_if(split.lids, [](const auto& v) { return v.empty(); });
    return split;
}

std::vector<std::uint32_t> escape_roots(const SwitchGraph& g, const std::vector<char>& is_destination)
{
    const std::size_t S = g.size();
    // Brandes over shortest paths between destination switches only.
    std::vector<double> centrality(S, 0.0), sigma(S), delta(S);
    std::vector<std::uint64_t> distance_sum(S, 0);
    for (std::size_t s = 0; s < S; ++s) {
        if (!is_destination[s]) continue;
        const std::uint8_t* hops = g.hops_to(s); // symmetric: distance from s
        const std::uint32_t* order = g.nearest_first(s);
        const std::uint32_t n = g.reaching(s);
        for (std::uint32_t i = 0; i < n; ++i) {
            sigma[order[i]] = 0.0;
            delta[order[i]] = 0.0;
            distance_sum[order[i]] += hops[order[i]];
        }
        sigma[s] = 1.0;
        for (std::uint32_t i = 1; i < n; ++i) {
            const std::uint32_t w = order[i];
            for (std::uint32_t c = g.first[w]; c < g.first[w + 1]; ++c)
                if (hops[g.head[c]] + 1 == hops[w]) sigma[w] += sigma[g.head[c]];
        }
        for (std::uint32_t i = n; i-- > 1;) {
            const std::uint32_t w = order[i];
            const double share = ((is_destination[w] ? 1.0 : 0.0) + delta[w]) / sigma[w];
            for (std::uint32_t c = g.first[w]; c < g.first[w + 1]; ++c) {
                const std::uint32_t v = g.head[c];
                if (hops[v] + 1 == hops[w]) delta[v] += sigma[v] * share;
            }
            centrality[w] += delta[w];
        }
    }
    std::vector<char> seen(S, 0);
    std::vector<std::uint32_t> roots;
    for (std::size_t s0 = 0; s0 < S; ++s0) {
        if (seen[s0]) continue;
        const std::uint32_t* members = g.nearest_first(s0);
        const std::uint32_t n = g.reaching(s0);
        std::uint32_t best = members[0];
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t v = members[i];
            seen[v] = 1;
            auto key = [&](std::uint32_t x) {
                return std::tuple(-centrality[x], distance_sum[x], x);
            };
            if (key(v) < key(best)) best = v;
        }
        roots.push_back(best);
    }
    return roots;
}

} // namespace ibsm::routing::nue
