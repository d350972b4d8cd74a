// Virtual layers with acyclic channel dependency graphs (see header).
#include "routing/virtual_layers.h"

#include "routing/tree_flow.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace ibsm::routing {

std::vector<std::uint32_t> source_ports_per_switch(const SwitchGraph& g)
{
    std::vector<std::uint32_t> w(g.hosts);
    for (const auto& d : g.destinations)
        if (d.is_switch && d.target >= 0) ++w[static_cast<std::size_t>(d.target)];
    return w;
}

namespace {

class Layering {
public:
    Layering(const SsspRoutes& routes, unsigned limit)
        : r_(routes), g_(routes.graph), S_(g_.size()), C_(g_.channel_count()), limit_(limit),
          weight_(source_ports_per_switch(g_)), lid_target_(g_.lid_target), tail_(C_), turn_first_(C_ + 1, 0),
          mark_(S_, 0)
    {
        for (std::size_t s = 0; s < S_; ++s)
            for (std::uint32_t c = g_.first[s]; c < g_.first[s + 1]; ++c) tail_[c] = static_cast<std::uint32_t>(s);
        for (std::size_t c = 0; c < C_; ++c) {
            const auto b = g_.head[c];
            turn_first_[c + 1] = turn_first_[c] + (g_.first[b + 1] - g_.first[b]);
        }
        index_lids();
        out_.layer.assign(static_cast<std::size_t>(g_.lid_limit) * S_, 0);
        out_.pairs.assign(limit_, 0);
        counts_.resize(limit_);
    }

    VirtualLayers run()
    {
        fill_layer0();
        for (unsigned l = 0; l < limit_ && !counts_[l].empty(); ++l) {
            out_.needed = l + 1;
            if (!break_cycles(l)) {
                out_.needed = limit_ + 1;
                out_.complete = false;
                break;
            }
        }
        return std::move(out_);
    }

private:
    std::uint32_t next_channel(std::uint32_t lid, std::size_t s) const
    {
        return g_.channel_from(s, r_.out_port[static_cast<std::size_t>(lid) * S_ + s]);
    }
    std::size_t turn(std::uint32_t c1, std::uint32_t c2) const
    {
        return turn_first_[c1] + (c2 - g_.first[g_.head[c1]]);
    }
    std::vector<std::uint32_t>& counts(unsigned l)
    {
        if (counts_[l].empty()) counts_[l].assign(turn_first_[C_], 0);
        return counts_[l];
    }

    void index_lids()
    {
        lids_first_.assign(C_ + 1, 0);
        for (std::uint32_t lid = 0; lid < g_.lid_limit; ++lid)
            for (std::size_t s = 0; s < S_; ++s)
                if (auto c = next_channel(lid, s); c != no_channel) ++lids_first_[c + 1];
        for (std::size_t c = 0; c < C_; ++c) lids_first_[c + 1] += lids_first_[c];
        lids_.resize(lids_first_[C_]);
        std::vector<std::uint32_t> fill(lids_first_.begin(), lids_first_.end() - 1);
        for (std::uint32_t lid = 0; lid < g_.lid_limit; ++lid)
            for (std::size_t s = 0; s < S_; ++s)
                if (auto c = next_channel(lid, s); c != no_channel) lids_[fill[c]++] = static_cast<std::uint16_t>(lid);
    }

    void fill_layer0()
    {
        auto& c0 = counts(0);
        std::vector<std::uint64_t> flow(S_);
        for (std::uint32_t lid = 0; lid < g_.lid_limit; ++lid) {
            if (lid_target_[lid] < 0) continue;
            const auto t = static_cast<std::size_t>(lid_target_[lid]);
            // The sources crossing each channel make its turn into the next.
            const std::uint64_t sources = flow_down_tree(
                g_, {g_.nearest_first(t), g_.reaching(t)}, [&](std::uint32_t u) { return next_channel(lid, u); },
                weight_, flow, [&](std::uint32_t, std::uint32_t c1, std::uint64_t f) {
                    const std::uint32_t b = g_.head[c1];
                    if (b != t) c0[turn(c1, next_channel(lid, b))] += static_cast<std::uint32_t>(f);
                });
            out_.pairs[0] += sources - weight_[t]; // every source but t's own sends to t
        }
    }

    // Moves the units of layer l whose route makes turn c1 -> c2 to layer l+1.
    void move_turn(unsigned l, std::uint32_t c1, std::uint32_t c2)
    {
        const std::uint32_t a = tail_[c1], b = g_.head[c1];
        const std::uint8_t pb = g_.out_port[c2];
        const std::uint8_t* to_a = g_.hops_to(a);
        for (std::uint32_t k = lids_first_[c1]; k < lids_first_[c1 + 1]; ++k) {
            const std::uint32_t lid = lids_[k];
            if (r_.out_port[static_cast<std::size_t>(lid) * S_ + b] != pb) continue;
            const auto t = static_cast<std::size_t>(lid_target_[lid]);
            const std::uint8_t* to_t = g_.hops_to(t);
            const std::uint32_t* order = g_.nearest_first(t);
            const std::uint32_t n = g_.reaching(t);
            const std::uint8_t at_a = to_t[a];
            // Minimal routes: only switches farther from t than a, and with a
            // on one of their shortest paths to t, can route through a.
            const std::uint32_t* begin =
                std::partition_point(order, order + n, [&](std::uint32_t u) { return to_t[u] <= at_a; });
            ++stamp_;
            mark_[a] = stamp_;
            std::uint8_t* layer = &out_.layer[static_cast<std::size_t>(lid) * S_];
            if (layer[a] == l && weight_[a] > 0) move_unit(lid, a, t, l, layer);
            for (const std::uint32_t* it = begin; it != order + n; ++it) {
                const std::uint32_t u = *it;
                if (to_a[u] + at_a != to_t[u]) continue;
                if (mark_[g_.head[next_channel(lid, u)]] != stamp_) continue;
                mark_[u] = stamp_;
                if (layer[u] == l && weight_[u] > 0) move_unit(lid, u, t, l, layer);
            }
        }
    }

    void move_unit(std::uint32_t lid, std::uint32_t u, std::size_t t, unsigned l, std::uint8_t* layer)
    {
        layer[u] = static_cast<std::uint8_t>(l + 1);
        auto& from = counts(l);
        auto& to = counts(l + 1);
        const std::uint32_t w = weight_[u];
        std::uint32_t c = next_channel(lid, u);
        while (g_.head[c] != t) {
            const std::uint32_t c2 = next_channel(lid, g_.head[c]);
            const auto k = turn(c, c2);
            assert(from[k] >= w);
            from[k] -= w;
            to[k] += w;
            c = c2;
        }
        out_.pairs[l] -= w;
        out_.pairs[l + 1] += w;
    }

    // Depth-first search over layer l's CDG; breaks every cycle it finds by
    // moving routes to layer l+1. False when l is the last layer allowed and
    // has a cycle.
    bool break_cycles(unsigned l)
    {
        enum : std::uint8_t { white, grey, black };
        std::vector<std::uint8_t> colour(C_, white);
        std::vector<std::uint32_t> depth(C_, 0); // place on the stack while grey
        struct Frame {
            std::uint32_t channel;
            std::uint32_t next; // next of the head switch's channels to try
        };
        std::vector<Frame> stack;
        for (std::uint32_t root = 0; root < C_; ++root) {
            if (colour[root] != white) continue;
            colour[root] = grey;
            depth[root] = 0;
            stack.push_back({root, g_.first[g_.head[root]]});
            while (!stack.empty()) {
                const auto& cnt = counts_[l];
                Frame& f = stack.back();
                const std::uint32_t end = g_.first[g_.head[f.channel] + 1];
                while (f.next < end && (cnt[turn(f.channel, f.next)] == 0 || colour[f.next] == black)) ++f.next;
                if (f.next == end) {
                    colour[f.channel] = black;
                    stack.pop_back();
                    continue;
                }
                const std::uint32_t c2 = f.next++;
                if (colour[c2] == white) {
                    colour[c2] = grey;
                    depth[c2] = static_cast<std::uint32_t>(stack.size());
                    stack.push_back({c2, g_.first[g_.head[c2]]});
                    continue;
                }
                // c2 is grey: stack[depth[c2]] .. top, then back to c2.
                if (l + 1 >= limit_) return false;
                ++out_.cycles_broken;
                const std::size_t from = depth[c2];
                std::uint32_t weak1 = stack.back().channel, weak2 = c2;
                std::uint32_t least = cnt[turn(weak1, weak2)];
                for (std::size_t k = stack.size() - 1; k-- > from;) {
                    const auto x = cnt[turn(stack[k].channel, stack[k + 1].channel)];
                    if (x <= least) {
                        least = x;
                        weak1 = stack[k].channel;
                        weak2 = stack[k + 1].channel;
                    }
                }
                move_turn(l, weak1, weak2);
                assert(counts_[l][turn(weak1, weak2)] == 0);
                // Unwind above the first stack turn that lost its last route.
                const auto& now = counts_[l];
                for (std::size_t k = 0; k + 1 < stack.size(); ++k)
                    if (now[turn(stack[k].channel, stack[k + 1].channel)] == 0) {
                        for (std::size_t j = k + 1; j < stack.size(); ++j) colour[stack[j].channel] = white;
                        stack.resize(k + 1);
                        break;
                    }
            }
        }
        return true;
    }

    const SsspRoutes& r_;
    const SwitchGraph& g_;
    const std::size_t S_, C_;
    const unsigned limit_;
    std::vector<std::uint32_t> weight_;
    const std::vector<std::int32_t>& lid_target_;
    std::vector<std::uint32_t> tail_;
    std::vector<std::size_t> turn_first_;
    std::vector<std::vector<std::uint32_t>> counts_;
    // LIDs each channel's tail switch forwards through it (CSR; LIDs < 2^16).
    std::vector<std::uint32_t> lids_first_;
    std::vector<std::uint16_t> lids_;
    std::vector<std::uint32_t> mark_; // == stamp_: routes through the turn's first switch
    std::uint32_t stamp_ = 0;
    VirtualLayers out_;
};

} // namespace

VirtualLayers assign_virtual_layers(const SsspRoutes& routes, unsigned limit)
{
    assert(limit >= 1 && limit <= 16);
    return Layering(routes, limit).run();
}

} // namespace ibsm::routing
