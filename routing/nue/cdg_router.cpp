// The modified Dijkstra on the complete CDG (see header).
#include "routing/nue/cdg_router.h"

#include "routing/tree_flow.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <tuple>

namespace ibsm::routing::nue {

namespace {
constexpr auto infinite = std::numeric_limits<std::uint64_t>::max();
}

CdgRouter::CdgRouter(const ChannelTurns& turns, std::vector<std::uint8_t>& out_port,
                     std::vector<std::uint64_t>& weight, std::vector<std::uint32_t> source_weight)
    : t_(turns), out_port_(out_port), weight_(weight), source_weight_(std::move(source_weight)),
      dist_(turns.g.size(), infinite), via_(turns.g.size(), no_channel), fresh_(turns.g.size(), 0),
      into_(turns.g.size(), no_channel), settled_(turns.g.size(), 0), load_(turns.g.size(), 0)
{
}

void CdgRouter::relax(std::uint32_t x, std::size_t t, DependencyLayer& layer)
{
    const std::uint32_t cx = via_[x];
    t_.for_each_incoming(x, [&](std::uint32_t cw) {
        const std::uint32_t w = t_.tail[cw];
        if (settled_[w] == stamp_) return;
        const std::uint64_t offer = dist_[x] + weight_[cw];
        // Ties keep the first offer (the nearer parent in settling order);
        // preferring offers whose turn is in use already balanced worse.
        if (offer >= dist_[w]) return;
        const bool turns = x != t;
        bool added = false;
        if (turns) {
            const auto state = layer.state(t_.turn(cw, cx));
            if (state == DependencyLayer::State::blocked) return;
            if (state == DependencyLayer::State::unused) {
                // w's own tentative turn must not count against its replacement.
                if (fresh_[w]) layer.release(via_[w], into_[w]);
                if (!layer.try_use(cw, cx)) {
                    if (fresh_[w]) layer.try_use(via_[w], into_[w]); // held before: cannot fail
                    return;
                }
                added = true;
                fresh_[w] = 0;
            }
        }
        if (fresh_[w]) layer.release(via_[w], into_[w]);
        via_[w] = cw;
        dist_[w] = offer;
        fresh_[w] = added;
        into_[w] = cx;
        heap_.push_back({offer, w, cw});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
    });
}

std::size_t CdgRouter::route(std::uint32_t lid, std::size_t t, std::uint8_t final_port, DependencyLayer& layer,
                             const EscapePaths& escape)
{
    const auto& g = t_.g;
    const std::size_t S = g.size();
    ++stamp_;
    std::fill(dist_.begin(), dist_.end(), infinite);
    std::fill(via_.begin(), via_.end(), no_channel);
    std::fill(fresh_.begin(), fresh_.end(), 0);
    order_.clear();
    heap_.clear();

    dist_[t] = 0;
    settled_[t] = stamp_;
    order_.push_back(static_cast<std::uint32_t>(t));
    relax(static_cast<std::uint32_t>(t), t, layer);
    bool rerooted = false;
    for (;;) {
        while (!heap_.empty()) {
            std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
            const Offer o = heap_.back();
            heap_.pop_back();
            if (settled_[o.node] == stamp_ || via_[o.node] != o.channel || dist_[o.node] != o.dist) continue;
            settled_[o.node] = stamp_;
            order_.push_back(o.node);
            relax(o.node, t, layer);
        }
        if (order_.size() >= g.reaching(t) || !backtrack(t, layer)) break;
        rerooted = true;
        ++repaired_;
    }
    if (rerooted) tree_order(t);
    const std::size_t moved = order_.size() < g.reaching(t) ? escape_impasse(lid, t, layer, escape) : 0;

    std::uint8_t* column = &out_port_[static_cast<std::size_t>(lid) * S];
    column[t] = final_port;
    for (std::size_t i = 1; i < order_.size(); ++i) column[order_[i]] = g.out_port[via_[order_[i]]];
    add_load();
    return moved;
}

bool CdgRouter::routes_through(std::uint32_t from, std::uint32_t x, std::size_t t) const
{
    for (std::uint32_t s = from; s != t; s = t_.g.head[via_[s]])
        if (s == x) return true;
    return false;
}

bool CdgRouter::backtrack(std::size_t t, DependencyLayer& layer)
{
    const auto& g = t_.g;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> added;
    auto use = [&](std::uint32_t c1, std::uint32_t c2) {
        const bool was = layer.state(t_.turn(c1, c2)) == DependencyLayer::State::used;
        if (!layer.try_use(c1, c2)) return false;
        if (!was) added.emplace_back(c1, c2);
        return true;
    };
    for (std::uint32_t w = 0; w < g.size(); ++w) {
        if (settled_[w] == stamp_ || g.hops(w, t) == unreachable_hops) continue;
        for (std::uint32_t cw = g.first[w]; cw < g.first[w + 1]; ++cw) {
            const std::uint32_t x = g.head[cw];
            if (settled_[x] != stamp_ || x == t) continue;
            // x takes another settled neighbour y as its parent, if every
            // turn that needs (w's, x's children's, x's own) fits.
            for (std::uint32_t cx = g.first[x]; cx < g.first[x + 1]; ++cx) {
                const std::uint32_t y = g.head[cx];
                if (cx == via_[x] || settled_[y] != stamp_ || y == w || (y != t && routes_through(y, x, t)))
                    continue;
                added.clear();
                bool fits = (y == t || use(cx, via_[y])) && use(cw, cx);
                t_.for_each_incoming(x, [&](std::uint32_t cz) {
                    const std::uint32_t z = t_.tail[cz];
                    if (fits && settled_[z] == stamp_ && via_[z] == cz) fits = use(cz, cx);
                });
                if (!fits) {
                    for (const auto& [c1, c2] : added) layer.release(c1, c2);
                    continue;
                }
                // Take back the turns that led into x's old channel.
                if (fresh_[x]) layer.release(via_[x], into_[x]);
                t_.for_each_incoming(x, [&](std::uint32_t cz) {
                    const std::uint32_t z = t_.tail[cz];
                    if (settled_[z] == stamp_ && via_[z] == cz && fresh_[z]) layer.release(cz, into_[z]);
                    if (settled_[z] == stamp_ && via_[z] == cz) {
                        fresh_[z] = std::find(added.begin(), added.end(), std::pair{cz, cx}) != added.end();
                        into_[z] = cx;
                    }
                });
                fresh_[x] = y != t && std::find(added.begin(), added.end(), std::pair{cx, via_[y]}) != added.end();
                into_[x] = y == t ? no_channel : via_[y];
                via_[x] = cx;
                dist_[x] = dist_[y] + weight_[cx];
                via_[w] = cw;
                fresh_[w] = std::find(added.begin(), added.end(), std::pair{cw, cx}) != added.end();
                into_[w] = cx;
                dist_[w] = dist_[x] + weight_[cw];
                settled_[w] = stamp_;
                order_.push_back(w);
                relax(w, t, layer);
                return true;
            }
        }
    }
    return false;
}

std::size_t CdgRouter::escape_impasse(std::uint32_t lid, std::size_t t, DependencyLayer& layer,
                                      const EscapePaths& escape)
{
    const auto& g = t_.g;
    const std::size_t S = g.size();
    escape.routes_to(lid, t, escape_via_, escape_order_);
    moved_.assign(S, 0);
    checked_.assign(S, 0);
    queue_.clear();
    for (auto s : escape_order_)
        if (s != t && settled_[s] != stamp_) queue_.push_back(s);
    std::size_t moved = 0;
    while (!queue_.empty()) {
        // Close the moved set along the escape paths (their turns are reserved).
        while (!queue_.empty()) {
            const std::uint32_t s = queue_.back();
            queue_.pop_back();
            if (moved_[s]) continue;
            moved_[s] = 1;
            ++moved;
            if (fresh_[s]) layer.release(via_[s], into_[s]);
            fresh_[s] = 0;
            via_[s] = escape_via_[s];
            const std::uint32_t next = g.head[via_[s]];
            if (next != t && !moved_[next]) queue_.push_back(next);
        }
        // A switch that stays, whose parent moved: the turn into the
        // parent's escape channel must fit, or it moves as well.
        for (std::uint32_t s = 0; s < S; ++s) {
            if (moved_[s] || s == t || settled_[s] != stamp_ || checked_[s]) continue;
            const std::uint32_t p = g.head[via_[s]];
            if (!moved_[p]) continue;
            checked_[s] = 1;
            if (fresh_[s]) layer.release(via_[s], into_[s]);
            fresh_[s] = 0;
            const bool was_used = layer.state(t_.turn(via_[s], via_[p])) == DependencyLayer::State::used;
            if (layer.try_use(via_[s], via_[p])) {
                fresh_[s] = !was_used;
                into_[s] = via_[p];
            } else {
                queue_.push_back(s);
            }
        }
    }
    tree_order(t);
    return moved;
}

void CdgRouter::tree_order(std::size_t t)
{
    // Every switch after the one its channel leads to (breadth-first from t).
    std::vector<std::uint32_t>& next = escape_order_; // reused as scratch
    next.assign(1, static_cast<std::uint32_t>(t));
    for (std::size_t i = 0; i < next.size(); ++i)
        t_.for_each_incoming(next[i], [&](std::uint32_t c) {
            const std::uint32_t w = t_.tail[c];
            if (w != t && via_[w] == c) next.push_back(w);
        });
    order_.swap(next);
}

void CdgRouter::add_load()
{
    // order_ has every switch after its parent.
    add_tree_loads(t_.g, order_, [&](std::uint32_t s) { return via_[s]; }, source_weight_, load_, weight_);
}

} // namespace ibsm::routing::nue
