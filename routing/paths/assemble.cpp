// PairPaths from chosen CA switch paths, with switch sources (see assemble.h).
#include "routing/paths/assemble.h"

#include "common/parallel_for.h"

#include <algorithm>

namespace ibsm::routing::paths {

using topology::DestinationPaths;
using topology::PairPath;
using topology::PathHop;
using topology::PortRef;

namespace {

struct Source {
    PortRef port;
    bool is_switch = false;
    std::uint32_t index = 0; // terminal index or place
};

struct Crossing {
    std::uint8_t port = 0;
    std::uint32_t count = 0;
    std::uint32_t path = 0; // index into the destination's CA paths
    std::uint32_t at = 0;   // position of the channel leaving the switch
};

// A Builder's working storage, kept by its worker from destination to
// destination (fresh, its per-switch lists were millions of allocations).
struct Scratch {
    std::vector<std::vector<Crossing>> crossing;
    std::vector<std::vector<std::uint32_t>> decided;
    std::vector<std::uint8_t> has;
    std::vector<std::span<const std::uint32_t>> ca;
};

class Builder {
public:
    Builder(const UpdnGraph& g, const ChosenPath& chosen, const std::vector<Source>& sources, Scratch& scratch)
        : g_(g), chosen_(chosen), sources_(sources), crossing_(scratch.crossing), decided_(scratch.decided),
          has_(scratch.has), ca_(scratch.ca)
    {
        // build() clears what it reads, so lists left by another graph do no harm.
        crossing_.resize(g.size());
        decided_.resize(g.size());
        has_.assign(g.size(), 0);
    }

    // Destination dst's paths into `out`, whose paths' storage is reused
    // (a destination has thousands of paths: allocating each afresh was a
    // fifth of a per-pair routing's time).
    void build(std::uint32_t dst, DestinationPaths& out)
    {
        const auto& t = g_.terminals[dst];
        const auto b = t.place;
        out.dst = t.port;

        // CA paths, in source order (sources_ is sorted by port).
        ca_.clear();
        for (auto& c : crossing_)
            c.clear();
        std::vector<std::pair<std::size_t, std::uint32_t>> ca_slot; // (source position, ca_ index)
        for (std::size_t k = 0; k < sources_.size(); ++k) {
            const auto& s = sources_[k];
            if (s.is_switch || s.index == dst)
                continue;
            auto path = chosen_(s.index, dst);
            if (!path)
                continue;
            const auto id = static_cast<std::uint32_t>(ca_.size());
            ca_.push_back(*path);
            ca_slot.emplace_back(k, id);
            for (std::uint32_t q = 0; q < path->size(); ++q) {
                const auto c = (*path)[q];
                auto& list = crossing_[g_.from[c]];
                auto it = std::find_if(list.begin(), list.end(), [&](const Crossing& x) { return x.port == g_.port[c]; });
                if (it == list.end())
                    list.push_back(Crossing{g_.port[c], 1, id, q});
                else
                    ++it->count;
            }
        }

        // Switch paths: suffixes where CA paths cross, then the rest by legal distance.
        std::fill(has_.begin(), has_.end(), 0);
        for (std::uint32_t s = 0; s < g_.size(); ++s) {
            decided_[s].clear();
            if (s == b) {
                has_[s] = 1;
                continue;
            }
            const auto& list = crossing_[s];
            if (list.empty())
                continue;
            const Crossing* best = &list.front();
            for (const auto& x : list)
                if (x.count > best->count || (x.count == best->count && x.port < best->port))
                    best = &x;
            const auto& p = ca_[best->path];
            decided_[s].assign(p.begin() + best->at, p.end());
            has_[s] = 1;
        }
        const auto* any = &g_.hops_any[static_cast<std::size_t>(b) * g_.size()];
        std::vector<std::uint32_t> rest;
        for (std::uint32_t s = 0; s < g_.size(); ++s)
            if (!has_[s] && any[s] != no_legal_path)
                rest.push_back(s);
        std::stable_sort(rest.begin(), rest.end(), [&](std::uint32_t x, std::uint32_t y) { return any[x] < any[y]; });
        for (auto s : rest)
            decide_uncrossed(s, b);

        // Emit in source order.
        out.paths.reserve(ca_slot.size() + g_.size());
        std::size_t used = 0;
        std::size_t next_ca = 0;
        for (std::size_t k = 0; k < sources_.size(); ++k) {
            const auto& s = sources_[k];
            std::span<const std::uint32_t> channels;
            if (s.is_switch) {
                if (!has_[s.index])
                    continue;
                channels = decided_[s.index];
            } else {
                if (next_ca == ca_slot.size() || ca_slot[next_ca].first != k)
                    continue;
                channels = ca_[ca_slot[next_ca++].second];
            }
            if (used == out.paths.size())
                out.paths.emplace_back();
            PairPath& p = out.paths[used++];
            p.src = s.port;
            p.hops.clear();
            p.hops.reserve(channels.size() + 1);
            for (auto c : channels)
                p.hops.push_back(PathHop{g_.node(g_.from[c]), PortNum(g_.port[c])});
            p.hops.push_back(PathHop{g_.node(b), PortNum(t.switch_port)});
        }
        out.paths.resize(used);
    }

private:
    bool all_down(const std::vector<std::uint32_t>& channels) const
    {
        return std::none_of(channels.begin(), channels.end(), [&](std::uint32_t c) { return g_.up[c] != 0; });
    }

    void decide_uncrossed(std::uint32_t s, std::uint32_t b)
    {
        const auto here = g_.legal_hops(s, b, false);
        for (auto c = g_.first[s]; c < g_.first[s + 1]; ++c) {
            const auto v = g_.to[c];
            const bool down = !g_.up[c];
            if (g_.legal_hops(v, b, down) + 1u != here || !has_[v])
                continue;
            if (down && !all_down(decided_[v]))
                continue;
            decided_[s].push_back(c);
            decided_[s].insert(decided_[s].end(), decided_[v].begin(), decided_[v].end());
            has_[s] = 1;
            return;
        }
        // Minimal legal path, first port at every step.
        auto u = s;
        bool down = false;
        while (u != b) {
            const auto left = g_.legal_hops(u, b, down);
            for (auto c = g_.first[u]; c < g_.first[u + 1]; ++c) {
                if (down && g_.up[c])
                    continue;
                const bool nd = down || !g_.up[c];
                if (g_.legal_hops(g_.to[c], b, nd) + 1u == left) {
                    decided_[s].push_back(c);
                    u = g_.to[c];
                    down = nd;
                    break;
                }
            }
        }
        has_[s] = 1;
    }

    const UpdnGraph& g_;
    const ChosenPath& chosen_;
    const std::vector<Source>& sources_;
    std::vector<std::vector<Crossing>>& crossing_;
    std::vector<std::vector<std::uint32_t>>& decided_;
    std::vector<std::uint8_t>& has_;
    std::vector<std::span<const std::uint32_t>>& ca_;
};

} // namespace

namespace {

std::vector<Source> sorted_sources(const UpdnGraph& g)
{
    std::vector<Source> sources;
    for (std::uint32_t t = 0; t < g.terminals.size(); ++t)
        sources.push_back(Source{g.terminals[t].port, false, t});
    for (std::uint32_t s = 0; s < g.size(); ++s)
        sources.push_back(Source{PortRef{g.node(s), PortNum(0)}, true, s});
    std::sort(sources.begin(), sources.end(), [](const Source& x, const Source& y) { return x.port < y.port; });
    return sources;
}

// Configured roots in the orientation: those of the chosen root trial
// (or the operator's); the LID stage orients switch routes by them too.
std::vector<topology::NodeId> configured_roots(const UpdnGraph& g)
{
    std::vector<topology::NodeId> roots;
    if (g.order.rule == updn::RootRule::configured)
        for (const auto place : g.order.roots) roots.push_back(g.node(place));
    return roots;
}

} // namespace

topology::PairPaths assemble_pair_paths(const UpdnGraph& g, std::string engine, const ChosenPath& chosen,
                                        unsigned threads)
{
    const auto sources = sorted_sources(g);
    topology::PairPaths out;
    out.engine = std::move(engine);
    out.roots = configured_roots(g);
    const auto n = g.terminals.size();
    out.destinations.resize(n);
    std::vector<Scratch> scratch(common::worker_count(threads));
    common::parallel_for(n, threads, [&](std::size_t i, unsigned w) {
        Builder(g, chosen, sources, scratch[w]).build(static_cast<std::uint32_t>(i), out.destinations[i]);
    });
    // Terminals are sorted by port, so destinations are too.
    return out;
}

topology::PairPathSource assemble_path_source(std::shared_ptr<const UpdnGraph> g, std::string engine,
                                              ChosenPath chosen)
{
    topology::PairPathSource out;
    out.engine = std::move(engine);
    out.roots = configured_roots(*g);
    for (const auto& t : g->terminals)
        out.destinations.push_back(t.port);
    auto sources = std::make_shared<const std::vector<Source>>(sorted_sources(*g));
    out.visit = [g = std::move(g), chosen = std::move(chosen), sources = std::move(sources)](
                    std::size_t i, const std::function<void(const DestinationPaths&)>& fn) {
        // One destination's paths per thread, reused from visit to visit.
        thread_local DestinationPaths paths;
        thread_local Scratch scratch;
        Builder builder(*g, chosen, *sources, scratch);
        builder.build(static_cast<std::uint32_t>(i), paths);
        fn(paths);
    };
    return out;
}

} // namespace ibsm::routing::paths
