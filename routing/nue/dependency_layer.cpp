// Acyclic per-layer dependencies with a dynamic topological order (see header).
#include "routing/nue/dependency_layer.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <numeric>
#include <queue>

namespace ibsm::routing::nue {

DependencyLayer::DependencyLayer(const ChannelTurns& turns)
    : t_(turns), state_(turns.turn_count(), State::unused), ord_(turns.channel_count()),
      mark_(turns.channel_count(), 0)
{
    std::iota(ord_.begin(), ord_.end(), 0u);
}

bool DependencyLayer::try_use(std::uint32_t c1, std::uint32_t c2)
{
    const std::size_t k = t_.turn(c1, c2);
    if (state_[k] == State::used) return true;
    if (state_[k] == State::blocked) return false;
    if (ord_[c1] > ord_[c2] && !reorder(c1, c2)) {
        state_[k] = State::blocked;
        return false;
    }
    state_[k] = State::used;
    ++used_;
    return true;
}

void DependencyLayer::release(std::uint32_t c1, std::uint32_t c2)
{
    const std::size_t k = t_.turn(c1, c2);
    assert(state_[k] == State::used);
    state_[k] = State::unused;
    --used_;
}

void DependencyLayer::mark_used(std::uint32_t c1, std::uint32_t c2)
{
    const std::size_t k = t_.turn(c1, c2);
    if (state_[k] == State::used) return;
    state_[k] = State::used;
    ++used_;
}

bool DependencyLayer::order_used()
{
    const auto& g = t_.g;
    const std::size_t C = t_.channel_count();
    std::vector<std::uint32_t> indegree(C, 0), sorted;
    sorted.reserve(C);
    // Ready channels by their current place: an order that is already
    // topological comes out unchanged.
    using Entry = std::pair<std::uint32_t, std::uint32_t>; // (ord, channel)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    auto for_each_used_next = [&](std::uint32_t c, auto&& f) {
        const std::uint32_t b = g.head[c];
        for (std::uint32_t n = g.first[b]; n < g.first[b + 1]; ++n)
            if (n != t_.reverse[c] && state_[t_.turn(c, n)] == State::used) f(n);
    };
    for (std::uint32_t c = 0; c < C; ++c) for_each_used_next(c, [&](std::uint32_t n) { ++indegree[n]; });
    for (std::uint32_t c = 0; c < C; ++c)
        if (indegree[c] == 0) ready.emplace(ord_[c], c);
    while (!ready.empty()) {
        const std::uint32_t c = ready.top().second;
        ready.pop();
        sorted.push_back(c);
        for_each_used_next(c, [&](std::uint32_t n) {
            if (--indegree[n] == 0) ready.emplace(ord_[n], n);
        });
    }
    if (sorted.size() != C) return false;
    for (std::uint32_t i = 0; i < C; ++i) ord_[sorted[i]] = i;
    return true;
}

bool DependencyLayer::reorder(std::uint32_t c1, std::uint32_t c2)
{
    const auto& g = t_.g;
    const std::uint32_t lower = ord_[c2], upper = ord_[c1];
    ++stamp_;
    // Forward from c2: channels it depends on, ordered before c1.
    forward_.clear();
    stack_.assign(1, c2);
    mark_[c2] = stamp_;
    while (!stack_.empty()) {
        const std::uint32_t c = stack_.back();
        stack_.pop_back();
        forward_.push_back(c);
        const std::uint32_t b = g.head[c];
        for (std::uint32_t n = g.first[b]; n < g.first[b + 1]; ++n) {
            if (n == t_.reverse[c] || state_[t_.turn(c, n)] != State::used) continue;
            if (n == c1) return false;
            if (mark_[n] == stamp_ || ord_[n] > upper) continue;
            mark_[n] = stamp_;
            stack_.push_back(n);
        }
    }
    // Backward from c1: channels that depend on it, ordered after c2.
    backward_.clear();
    stack_.assign(1, c1);
    mark_[c1] = stamp_;
    while (!stack_.empty()) {
        const std::uint32_t c = stack_.back();
        stack_.pop_back();
        backward_.push_back(c);
        t_.for_each_incoming(t_.tail[c], [&](std::uint32_t p) {
            if (p == t_.reverse[c] || state_[t_.turn(p, c)] != State::used) return;
            if (mark_[p] == stamp_ || ord_[p] < lower) return;
            mark_[p] = stamp_;
            stack_.push_back(p);
        });
    }
    auto by_order = [&](std::uint32_t a, std::uint32_t b) { return ord_[a] < ord_[b]; };
    std::sort(forward_.begin(), forward_.end(), by_order);
    std::sort(backward_.begin(), backward_.end(), by_order);
    places_.clear();
    for (auto c : backward_) places_.push_back(ord_[c]);
    for (auto c : forward_) places_.push_back(ord_[c]);
    std::sort(places_.begin(), places_.end());
    std::size_t i = 0;
    for (auto c : backward_) ord_[c] = places_[i++];
    for (auto c : forward_) ord_[c] = places_[i++];
    return true;
}

} // namespace ibsm::routing::nue
