// shortest-widest: minimal legal paths, least link weight, one pair at a time (see shortest_widest.h).
#include "routing/paths/shortest_widest.h"

#include "routing/paths/assemble.h"
#include "routing/paths/updn_paths.h"

#include <algorithm>
#include <limits>

namespace ibsm::routing::paths {

namespace {

constexpr std::uint64_t unknown = std::numeric_limits<std::uint64_t>::max();

class LeastWeight {
public:
    LeastWeight(const UpdnGraph& g, const std::vector<std::uint64_t>& weight)
        : g_(g), weight_(weight), memo_(2 * g.size(), unknown), stamp_(2 * g.size(), 0)
    {
    }

    // Appends the least-weight minimal legal path a -> b to `out`.
    void path(std::uint32_t a, std::uint32_t b, std::vector<std::uint32_t>& out)
    {
        ++now_;
        b_ = b;
        best(a, false);
        auto u = a;
        bool down = false;
        while (u != b) {
            const auto c = next(u, down);
            out.push_back(c);
            down = down || !g_.up[c];
            u = g_.to[c];
        }
    }

private:
    bool tight(std::uint32_t u, bool down, std::uint32_t c) const
    {
        if (down && g_.up[c])
            return false;
        const bool nd = down || !g_.up[c];
        return g_.legal_hops(g_.to[c], b_, nd) + 1u == g_.legal_hops(u, b_, down);
    }

    std::uint64_t best(std::uint32_t u, bool down)
    {
        if (u == b_)
            return 0;
        const auto s = 2 * static_cast<std::size_t>(u) + (down ? 1 : 0);
        if (stamp_[s] == now_)
            return memo_[s];
        std::uint64_t w = unknown;
        for (auto c = g_.first[u]; c < g_.first[u + 1]; ++c)
            if (tight(u, down, c))
                w = std::min(w, weight_[c] + best(g_.to[c], down || !g_.up[c]));
        stamp_[s] = now_;
        memo_[s] = w;
        return w;
    }

    std::uint32_t next(std::uint32_t u, bool down)
    {
        const auto target = best(u, down);
        for (auto c = g_.first[u]; c < g_.first[u + 1]; ++c)
            if (tight(u, down, c) && weight_[c] + best(g_.to[c], down || !g_.up[c]) == target)
                return c;
        return g_.first[u]; // unreachable: best() found a tight channel
    }

    const UpdnGraph& g_;
    const std::vector<std::uint64_t>& weight_;
    std::vector<std::uint64_t> memo_;
    std::vector<std::uint64_t> stamp_;
    std::uint64_t now_ = 0;
    std::uint32_t b_ = 0;
};

} // namespace

namespace {

struct Selection {
    std::vector<std::uint32_t> first; // [src * T + dst]: the pair's channels in `channels`
    std::vector<std::uint32_t> channels;
    std::vector<std::uint8_t> reachable;
    std::uint64_t max_load = 0; // CA pairs on the busiest switch-to-switch channel
};

Selection select(const UpdnGraph& g)
{
    const auto T = g.terminals.size();
    std::vector<std::uint64_t> weight(g.channel_count(), 1);
    LeastWeight search(g, weight);
    Selection out;
    out.first.assign(T * T + 1, 0);
    out.reachable.assign(T * T, 0);
    for (std::size_t src = 0; src < T; ++src)
        for (std::size_t dst = 0; dst < T; ++dst) {
            const auto i = src * T + dst;
            out.first[i] = static_cast<std::uint32_t>(out.channels.size());
            const auto a = g.terminals[src].place, b = g.terminals[dst].place;
            if (src == dst || g.legal_hops(a, b, false) == no_legal_path)
                continue;
            out.reachable[i] = 1;
            const auto from = out.channels.size();
            search.path(a, b, out.channels);
            for (auto k = from; k < out.channels.size(); ++k)
                ++weight[out.channels[k]];
        }
    out.first[T * T] = static_cast<std::uint32_t>(out.channels.size());
    for (auto w : weight)
        out.max_load = std::max(out.max_load, w - 1);
    return out;
}

} // namespace

PathResult ShortestWidestEngine::compute(const topology::Fabric& fabric, const Options& options) const
{
    auto built = build_updn_graph(fabric, options);
    if (auto* why = std::get_if<std::string>(&built))
        return Refusal{name(), *why};
    const auto best = best_orientation<Selection>(std::get<UpdnGraph>(std::move(built)), fabric, options, root_trials_,
                                                  threads_, [](const UpdnGraph& graph, unsigned) { return select(graph); });
    const auto& g = best.first;
    const auto& sel = best.second;
    const auto T = g.terminals.size();
    ChosenPath chosen = [&](std::uint32_t src, std::uint32_t dst) -> std::optional<std::span<const std::uint32_t>> {
        const auto i = static_cast<std::size_t>(src) * T + dst;
        if (!sel.reachable[i])
            return std::nullopt;
        return std::span<const std::uint32_t>(sel.channels.data() + sel.first[i], sel.channels.data() + sel.first[i + 1]);
    };
    return assemble_pair_paths(g, name(), chosen, threads_);
}

} // namespace ibsm::routing::paths
