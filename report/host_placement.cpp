#include "report/host_placement.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <unordered_map>

namespace ibsm::report {

namespace {

class Grid {
public:
    Grid(const std::vector<Point>& at, double cell) : at_(at), cell_(cell) {}

    void insert(std::size_t n) { cells_[key(cell_of(at_[n].x), cell_of(at_[n].y))].push_back(n); }
    void erase(std::size_t n)
    {
        auto& v = cells_[key(cell_of(at_[n].x), cell_of(at_[n].y))];
        for (std::size_t i = 0; i < v.size(); ++i)
            if (v[i] == n) {
                v[i] = v.back();
                v.pop_back();
                return;
            }
    }
    bool free(Point p) const
    {
        const std::int64_t cx = cell_of(p.x), cy = cell_of(p.y);
        for (std::int64_t dx = -1; dx <= 1; ++dx)
            for (std::int64_t dy = -1; dy <= 1; ++dy) {
                auto it = cells_.find(key(cx + dx, cy + dy));
                if (it == cells_.end())
                    continue;
                for (std::size_t n : it->second)
                    if (std::hypot(at_[n].x - p.x, at_[n].y - p.y) < cell_)
                        return false;
            }
        return true;
    }

private:
    std::int64_t cell_of(double v) const { return static_cast<std::int64_t>(std::floor(v / cell_)); }
    static std::uint64_t key(std::int64_t x, std::int64_t y)
    {
        return (static_cast<std::uint64_t>(x) << 32) ^ (static_cast<std::uint64_t>(y) & 0xFFFFFFFFu);
    }

    const std::vector<Point>& at_;
    double cell_;
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> cells_;
};

} // namespace

std::vector<std::vector<std::size_t>> hosts_by_switch(const Model& model)
{
    const std::size_t n = model.nodes.size();
    std::vector<std::size_t> degree(n, 0), peer(n, 0);
    for (const Link& l : model.links) {
        if (l.a >= n || l.b >= n)
            throw std::invalid_argument("hosts_by_switch: link to a node the model does not have");
        ++degree[l.a];
        ++degree[l.b];
        peer[l.a] = l.b;
        peer[l.b] = l.a;
    }
    std::vector<std::vector<std::size_t>> hosts_of(n);
    for (std::size_t h = 0; h < n; ++h)
        if (model.nodes[h].kind == NodeKind::host && degree[h] == 1 &&
            model.nodes[peer[h]].kind == NodeKind::switch_node)
            hosts_of[peer[h]].push_back(h);
    return hosts_of;
}

double host_ring_radius(std::size_t hosts, double min_distance)
{
    // Chords of min_distance between neighbours, with 10 % to spare.
    const double around = 1.1 * static_cast<double>(hosts) * min_distance / (2 * std::numbers::pi);
    return std::max(1.2 * min_distance, around);
}

void place_hosts_by_switch(const Model& model, std::vector<Point>& at, double min_distance)
{
    const std::size_t n = model.nodes.size();
    if (at.size() != n)
        throw std::invalid_argument("place_hosts_by_switch: positions do not match the model");
    const auto hosts_of = hosts_by_switch(model);

    Grid grid(at, min_distance);
    for (std::size_t i = 0; i < n; ++i)
        grid.insert(i);
    constexpr int angles = 32;
    const double step = 2 * std::numbers::pi / angles;
    for (std::size_t s = 0; s < n; ++s) {
        if (hosts_of[s].empty())
            continue;
        for (std::size_t h : hosts_of[s])
            grid.erase(h);
        const std::size_t k = hosts_of[s].size();
        const double first_ring = host_ring_radius(k, min_distance);
        for (std::size_t j = 0; j < k; ++j) {
            const std::size_t h = hosts_of[s][j];
            const Point sw = at[s], old = at[h];
            const double toward = old.x == sw.x && old.y == sw.y
                                      ? 2 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(k) -
                                            std::numbers::pi / 2
                                      : std::atan2(old.y - sw.y, old.x - sw.x);
            bool moved = false;
            for (int ring = 0; ring < 3 && !moved; ++ring) {
                const double r = first_ring + ring * min_distance;
                for (int k = 0; k < angles && !moved; ++k) {
                    // 0, +1, -1, +2, -2, ... steps either side of `toward`.
                    const double a = toward + step * ((k + 1) / 2) * (k % 2 == 1 ? 1 : -1);
                    const Point spot{sw.x + r * std::cos(a), sw.y + r * std::sin(a)};
                    if (grid.free(spot)) {
                        at[h] = spot;
                        moved = true;
                    }
                }
            }
            grid.insert(h);
        }
    }
}

} // namespace ibsm::report
