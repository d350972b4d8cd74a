// Escape paths: a spanning forest and its reserved turns (see header).
#include "routing/nue/escape_paths.h"

#include <cassert>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace ibsm::routing::nue {

EscapePaths::EscapePaths(const ChannelTurns& turns, const std::vector<std::uint32_t>& roots,
                         const std::vector<std::uint64_t>& weight)
    : t_(turns), up_(turns.g.size(), no_channel)
{
    const auto& g = t_.g;
    const std::size_t S = g.size();
    constexpr auto infinite = std::numeric_limits<std::uint64_t>::max();
    std::vector<std::uint64_t> dist(S, infinite);
    std::vector<char> done(S, 0);
    using Entry = std::tuple<std::uint64_t, std::uint32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (auto r : roots) {
        dist[r] = 0;
        heap.emplace(0, r);
    }
    while (!heap.empty()) {
        const auto [d, x] = heap.top();
        heap.pop();
        if (done[x] || d != dist[x]) continue;
        done[x] = 1;
        grown_.push_back(x);
        // Channels into x: a switch w joins the tree through w -> x.
        t_.for_each_incoming(x, [&](std::uint32_t c) {
            const std::uint32_t w = t_.tail[c];
            if (done[w] || d + weight[c] >= dist[w]) return;
            dist[w] = d + weight[c];
            up_[w] = c;
            heap.emplace(dist[w], w);
        });
    }
    child_first_.assign(S + 1, 0);
    for (std::size_t s = 0; s < S; ++s)
        if (up_[s] != no_channel) ++child_first_[g.head[up_[s]] + 1];
    for (std::size_t s = 0; s < S; ++s) child_first_[s + 1] += child_first_[s];
    children_.resize(child_first_[S]);
    std::vector<std::uint32_t> fill(child_first_.begin(), child_first_.end() - 1);
    for (auto s : grown_)
        if (up_[s] != no_channel) children_[fill[g.head[up_[s]]]++] = s;
}

EscapePaths::EscapePaths(const ChannelTurns& turns, const std::vector<std::uint32_t>& route_via)
    : t_(turns), route_via_(&route_via)
{
}

void EscapePaths::reserve_lids(DependencyLayer& layer, const std::vector<std::uint32_t>& lids) const
{
    const auto& g = t_.g;
    const std::size_t S = g.size();
    for (auto lid : lids) {
        if (g.lid_target[lid] < 0) continue;
        const std::uint32_t* via = &(*route_via_)[static_cast<std::size_t>(lid) * S];
        for (std::size_t s = 0; s < S; ++s) {
            const std::uint32_t c = via[s];
            if (c == no_channel) continue;
            const std::uint32_t next = via[g.head[c]];
            if (next == no_channel) continue; // into the delivering switch: no turn
            layer.mark_used(c, next);
        }
    }
    // Up*/Down* routes cannot close a cycle; should they, nue drops them.
    if (!layer.order_used()) throw std::logic_error("escape routes close a cycle");
}

void EscapePaths::reserve(DependencyLayer& layer, const std::vector<char>& is_destination) const
{
    const auto& g = t_.g;
    const std::size_t S = g.size();
    // below[s]: destinations in s's subtree; tree_total: in s's whole tree.
    std::vector<std::uint32_t> below(S, 0), root_of(S, 0);
    for (auto s : grown_) root_of[s] = up_[s] == no_channel ? s : root_of[g.head[up_[s]]];
    for (std::size_t i = grown_.size(); i-- > 0;) {
        const auto s = grown_[i];
        below[s] += is_destination[s] ? 1u : 0u;
        if (up_[s] != no_channel) below[g.head[up_[s]]] += below[s];
    }
    // Tree channels leaving y, each with whether its far side holds a destination.
    std::vector<std::pair<std::uint32_t, bool>> out;
    for (auto y : grown_) {
        out.clear();
        if (up_[y] != no_channel) out.emplace_back(up_[y], below[root_of[y]] > below[y]);
        for (auto k = child_first_[y]; k < child_first_[y + 1]; ++k) {
            const auto child = children_[k];
            out.emplace_back(t_.reverse[up_[child]], below[child] > 0);
        }
        for (const auto& [in_rev, in_unused] : out) {
            const std::uint32_t in = t_.reverse[in_rev]; // the tree channel into y
            for (const auto& [leave, wanted] : out) {
                if (leave == in_rev || !wanted) continue;
                [[maybe_unused]] const bool used = layer.try_use(in, leave);
                assert(used); // tree routes cannot close a cycle
            }
        }
    }
}

void EscapePaths::routes_to(std::uint32_t lid, std::size_t t, std::vector<std::uint32_t>& via,
                            std::vector<std::uint32_t>& order) const
{
    const auto& g = t_.g;
    order.assign(1, static_cast<std::uint32_t>(t));
    if (route_via_) {
        const std::size_t S = g.size();
        const std::uint32_t* column = &(*route_via_)[static_cast<std::size_t>(lid) * S];
        via.assign(column, column + S);
        for (std::size_t i = 0; i < order.size(); ++i)
            t_.for_each_incoming(order[i], [&](std::uint32_t c) {
                if (via[t_.tail[c]] == c) order.push_back(t_.tail[c]);
            });
        return;
    }
    via.assign(g.size(), no_channel);
    std::vector<char> seen(g.size(), 0);
    seen[t] = 1;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto x = order[i];
        auto reach = [&](std::uint32_t n, std::uint32_t channel_n_to_x) {
            if (seen[n]) return;
            seen[n] = 1;
            via[n] = channel_n_to_x;
            order.push_back(n);
        };
        if (up_[x] != no_channel) reach(g.head[up_[x]], t_.reverse[up_[x]]);
        for (auto k = child_first_[x]; k < child_first_[x + 1]; ++k) reach(children_[k], up_[children_[k]]);
    }
}

} // namespace ibsm::routing::nue
