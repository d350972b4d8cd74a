// Up*/Down*-legal switch paths (see updn_paths.h).
#include "routing/paths/updn_paths.h"

#include "routing/minhop.h"

#include <algorithm>
#include <tuple>

namespace ibsm::routing::paths {

using topology::Fabric;
using topology::PortRef;

std::variant<UpdnGraph, std::string> build_updn_graph(const Fabric& fabric, const Options& options)
{
    auto oriented = updn::orient(fabric, options.root_guids);
    if (auto* why = std::get_if<std::string>(&oriented))
        return *why;
    UpdnGraph g;
    g.order = std::move(std::get<updn::Orientation>(oriented));
    const auto S = static_cast<std::uint32_t>(g.size());
    if (S == 0)
        return std::string("no switch in the fabric");

    // Channels by place, in port order (up and down merged).
    g.first.assign(S + 1, 0);
    g.terminals_at.resize(S);
    for (std::uint32_t u = 0; u < S; ++u) {
        g.first[u] = static_cast<std::uint32_t>(g.to.size());
        std::vector<std::pair<updn::Link, bool>> links;
        for (auto i = g.order.up_first[u]; i < g.order.up_first[u + 1]; ++i)
            links.emplace_back(g.order.up[i], true);
        for (auto i = g.order.down_first[u]; i < g.order.down_first[u + 1]; ++i)
            links.emplace_back(g.order.down[i], false);
        std::sort(links.begin(), links.end(),
                  [](const auto& x, const auto& y) { return x.first.port < y.first.port; });
        for (const auto& [l, is_up] : links) {
            g.from.push_back(u);
            g.to.push_back(l.neighbour);
            g.port.push_back(l.port);
            g.up.push_back(is_up ? 1 : 0);
        }
    }
    g.first[S] = static_cast<std::uint32_t>(g.to.size());

    // Terminals: CA/router ports on a usable link to a switch.
    for (std::uint32_t u = 0; u < S; ++u) {
        const auto& node = fabric.node(g.node(u));
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            const PortRef ref{g.node(u), PortNum(static_cast<std::uint8_t>(p))};
            if (!link_usable(fabric, ref))
                continue;
            const PortRef peer = *node.ports[p].remote;
            if (fabric.node(peer.node).is_switch())
                continue;
            g.terminals.push_back(Terminal{peer, u, static_cast<std::uint8_t>(p)});
        }
    }
    std::sort(g.terminals.begin(), g.terminals.end(),
              [](const Terminal& x, const Terminal& y) { return x.port < y.port; });
    for (std::uint32_t t = 0; t < g.terminals.size(); ++t)
        g.terminals_at[g.terminals[t].place].push_back(t);

    // Legal hop counts to every b. Down channels lead to later places, up
    // channels to earlier ones, so each count is one pass in place order.
    const std::size_t SS = static_cast<std::size_t>(S) * S;
    g.hops_any.assign(SS, no_legal_path);
    g.hops_down.assign(SS, no_legal_path);
    for (std::uint32_t b = 0; b < S; ++b) {
        std::uint8_t* down = &g.hops_down[static_cast<std::size_t>(b) * S];
        std::uint8_t* any = &g.hops_any[static_cast<std::size_t>(b) * S];
        down[b] = 0;
        for (std::uint32_t u = S; u-- > 0;) {
            if (u == b)
                continue;
            unsigned best = no_legal_path;
            for (auto c = g.first[u]; c < g.first[u + 1]; ++c)
                if (!g.up[c] && down[g.to[c]] != no_legal_path)
                    best = std::min<unsigned>(best, down[g.to[c]] + 1u);
            down[u] = static_cast<std::uint8_t>(std::min<unsigned>(best, no_legal_path));
        }
        for (std::uint32_t u = 0; u < S; ++u) {
            unsigned best = down[u];
            for (auto c = g.first[u]; c < g.first[u + 1]; ++c)
                if (g.up[c] && any[g.to[c]] != no_legal_path)
                    best = std::min<unsigned>(best, any[g.to[c]] + 1u);
            any[u] = static_cast<std::uint8_t>(std::min<unsigned>(best, no_legal_path));
        }
    }
    return g;
}

namespace {

struct Search {
    const UpdnGraph& g;
    std::uint32_t b;
    unsigned cap;
    std::vector<std::uint8_t> on_path;
    std::vector<std::uint32_t> stack;
    // The paths of the length searched, back to back (all have that length:
    // one allocation for the lot, where a tree has up to 144 per pair).
    std::vector<std::uint32_t> found;
    std::size_t found_count = 0;

    // Extends the path at u by exactly `left` channels to b.
    void extend(std::uint32_t u, bool down_only, unsigned left)
    {
        for (auto c = g.first[u]; c < g.first[u + 1] && found_count < cap; ++c) {
            if (down_only && g.up[c])
                continue;
            const auto v = g.to[c];
            if (on_path[v])
                continue;
            const bool next_down = down_only || !g.up[c];
            if (v == b) {
                if (left == 1) {
                    found.insert(found.end(), stack.begin(), stack.end());
                    found.push_back(c);
                    ++found_count;
                }
                continue;
            }
            const auto h = g.legal_hops(v, b, next_down);
            if (h == no_legal_path || h + 1u > left)
                continue;
            on_path[v] = 1;
            stack.push_back(c);
            extend(v, next_down, left - 1);
            stack.pop_back();
            on_path[v] = 0;
        }
    }
};

} // namespace

std::vector<std::vector<std::uint32_t>> legal_paths(const UpdnGraph& g, std::uint32_t a, std::uint32_t b,
                                                    unsigned k, unsigned slack, unsigned cap)
{
    std::vector<std::vector<std::uint32_t>> out;
    const auto min_hops = g.legal_hops(a, b, false);
    if (a == b || min_hops == no_legal_path || k == 0)
        return out;
    Search s{g, b, std::max(cap, k), std::vector<std::uint8_t>(g.size(), 0), {}, {}, 0};
    for (unsigned len = min_hops; len <= min_hops + slack && out.size() < k; ++len) {
        s.found.clear();
        s.found_count = 0;
        s.on_path[a] = 1;
        s.extend(a, false, len);
        s.on_path[a] = 0;
        const auto need = k - out.size();
        const auto n = s.found_count;
        auto path = [&](std::size_t i) {
            const auto first = s.found.begin() + static_cast<std::ptrdiff_t>(i * len);
            return std::vector<std::uint32_t>(first, first + len);
        };
        if (n <= need) {
            for (std::size_t i = 0; i < n; ++i)
                out.push_back(path(i));
            continue;
        }
        for (std::size_t i = 0; i < need; ++i)
            out.push_back(path(i * n / need));
    }
    return out;
}

std::vector<Options> root_trials(const UpdnGraph& g, const Fabric& fabric, const Options& options,
                                 unsigned trials)
{
    if (trials <= 1 || !options.root_guids.empty() || g.order.rule != updn::RootRule::central)
        return {};
    const auto S = static_cast<std::uint32_t>(g.size());
    using Key = std::tuple<std::uint32_t, std::uint64_t, Guid, std::uint32_t>;
    std::vector<Key> keys;
    std::vector<std::uint32_t> dist(S), queue;
    for (std::uint32_t s = 0; s < S; ++s) {
        std::fill(dist.begin(), dist.end(), UINT32_MAX);
        queue.assign(1, s);
        dist[s] = 0;
        std::uint32_t ecc = 0;
        std::uint64_t sum = 0;
        for (std::size_t h = 0; h < queue.size(); ++h) {
            const auto u = queue[h];
            ecc = std::max(ecc, dist[u]);
            sum += dist[u];
            for (auto c = g.first[u]; c < g.first[u + 1]; ++c)
                if (dist[g.to[c]] == UINT32_MAX) {
                    dist[g.to[c]] = dist[u] + 1;
                    queue.push_back(g.to[c]);
                }
        }
        keys.emplace_back(ecc, sum, fabric.node(g.node(s)).guid, s);
    }
    std::sort(keys.begin(), keys.end());
    std::vector<Options> out;
    for (std::size_t i = 0; i < keys.size() && i < trials; ++i) {
        Options o = options;
        o.root_guids = {std::get<2>(keys[i])};
        out.push_back(std::move(o));
    }
    return out;
}

bool legal_loop_free(const UpdnGraph& g, std::span<const std::uint32_t> channels, std::uint32_t a,
                     std::uint32_t b)
{
    std::vector<std::uint8_t> seen(g.size(), 0);
    auto at = a;
    seen[at] = 1;
    bool gone_down = false;
    for (auto c : channels) {
        if (c >= g.channel_count() || g.from[c] != at)
            return false;
        if (g.up[c] && gone_down)
            return false;
        gone_down = gone_down || !g.up[c];
        at = g.to[c];
        if (seen[at])
            return false;
        seen[at] = 1;
    }
    return at == b;
}

} // namespace ibsm::routing::paths
