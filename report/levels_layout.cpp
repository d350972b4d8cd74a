#include "report/levels_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace ibsm::report {

namespace {

constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

struct Tree {
    unsigned height = 0;
    std::vector<std::vector<std::size_t>> rows;          // [level] -> switches, left to right
    std::vector<std::vector<std::size_t>> up, down;      // per node: switch neighbours
    std::vector<std::vector<std::size_t>> hosts_of;      // per leaf: its hosts, by leaf port
    std::vector<std::size_t> stray;                      // nodes with no row
};

bool in_tree(const Model& m, std::size_t n)
{
    const Node& node = m.nodes[n];
    return node.kind == NodeKind::switch_node && node.level >= 1 && node.level <= m.height;
}

// The port of `link` on node `n`'s side, lowest of the bundle.
unsigned port_on(const Link& link, std::size_t n)
{
    unsigned best = std::numeric_limits<unsigned>::max();
    for (const Cable& c : link.cables)
        best = std::min(best, link.a == n ? c.port_a : c.port_b);
    return best;
}

Tree build_tree(const Model& m)
{
    const std::size_t n = m.nodes.size();
    Tree t;
    t.height = m.height;
    t.rows.resize(m.height + 1);
    t.up.resize(n);
    t.down.resize(n);
    t.hosts_of.resize(n);

    std::vector<std::size_t> host_switch(n, none);
    std::vector<unsigned> host_port(n, 0);
    for (const Link& link : m.links) {
        if (link.a >= n || link.b >= n)
            throw std::invalid_argument("report layout: link refers to node " +
                                        std::to_string(std::max(link.a, link.b)) + " of " + std::to_string(n));
        const bool ta = in_tree(m, link.a), tb = in_tree(m, link.b);
        if (ta && tb) {
            const unsigned la = m.nodes[link.a].level, lb = m.nodes[link.b].level;
            if (la == lb)
                continue; // sibling link: no order from it
            const std::size_t lo = la < lb ? link.a : link.b, hi = la < lb ? link.b : link.a;
            t.up[lo].push_back(hi);
            t.down[hi].push_back(lo);
            continue;
        }
        for (auto [h, s] : {std::pair{link.a, link.b}, std::pair{link.b, link.a}}) {
            if (m.nodes[h].kind != NodeKind::host || !in_tree(m, s))
                continue;
            const std::size_t cur = host_switch[h];
            const unsigned port = port_on(link, s);
            if (cur == none || m.nodes[s].level < m.nodes[cur].level ||
                (m.nodes[s].level == m.nodes[cur].level && s < cur)) {
                host_switch[h] = s;
                host_port[h] = port;
            }
        }
    }

    for (std::size_t i = 0; i < n; ++i) {
        if (in_tree(m, i))
            t.rows[m.nodes[i].level].push_back(i);
        else if (m.nodes[i].kind == NodeKind::host && host_switch[i] != none &&
                 m.nodes[host_switch[i]].level == 1)
            t.hosts_of[host_switch[i]].push_back(i);
        else
            t.stray.push_back(i);
    }
    for (auto& hosts : t.hosts_of)
        std::stable_sort(hosts.begin(), hosts.end(),
                         [&](std::size_t a, std::size_t b) { return host_port[a] < host_port[b]; });
    return t;
}

std::size_t host_columns(std::size_t hosts)
{
    if (hosts == 0)
        return 0;
    const auto cols = static_cast<std::size_t>(std::ceil(std::sqrt(2.0 * static_cast<double>(hosts))));
    return std::min(hosts, std::max<std::size_t>(4, cols));
}

// Least-squares positions for `keys` (already in row order) with neighbours
// at least `sep` apart: y_i = x_i - i*sep must be non-decreasing, so y is the
// isotonic regression of keys_i - i*sep (pool adjacent violators).
std::vector<double> spaced_fit(const std::vector<double>& keys, double sep)
{
    struct Block {
        double sum;
        std::size_t count;
        double mean() const { return sum / static_cast<double>(count); }
    };
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        blocks.push_back({keys[i] - static_cast<double>(i) * sep, 1});
        while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
            Block last = blocks.back();
            blocks.pop_back();
            blocks.back().sum += last.sum;
            blocks.back().count += last.count;
        }
    }
    std::vector<double> x;
    x.reserve(keys.size());
    for (const Block& b : blocks)
        for (std::size_t k = 0; k < b.count; ++k)
            x.push_back(b.mean() + static_cast<double>(x.size()) * sep);
    return x;
}

class Placer {
public:
    Placer(const Model& m, const Tree& t) : m_(m), t_(t), x_(m.nodes.size(), 0.0), rows_(t.rows)
    {
        std::size_t longest = 0;
        for (std::size_t i = 0; i < m.nodes.size(); ++i)
            if (m.nodes[i].kind == NodeKind::switch_node)
                longest = std::max(longest, m.nodes[i].name.size());
        pitch_ = std::clamp(level_char_width * static_cast<double>(longest) + 16, level_min_switch_pitch,
                            level_max_switch_pitch);
    }

    double pitch() const { return pitch_; }
    double span() const { return span_; }
    double x(std::size_t n) const { return x_[n]; }
    const std::vector<std::size_t>& row(unsigned level) const { return rows_[level]; }

    void run()
    {
        place_leaves();
        // Upper rows start evenly over the leaves in model order: the
        // fallback key for a switch without down neighbours.
        for (unsigned l = 2; l <= t_.height; ++l) {
            const auto& row = rows_[l];
            for (std::size_t i = 0; i < row.size(); ++i)
                x_[row[i]] = span_ * (static_cast<double>(i) + 0.5) / static_cast<double>(row.size());
        }
        sweep_up();
        for (unsigned l = t_.height; l-- > 1;)
            reorder(l, t_.up);
        sweep_up();
    }

private:
    double slot(std::size_t leaf) const
    {
        const std::size_t cols = host_columns(t_.hosts_of[leaf].size());
        return std::max(pitch_, static_cast<double>(cols + 1) * level_host_pitch);
    }

    void place_leaves()
    {
        if (t_.height == 0)
            return;
        double at = 0;
        for (std::size_t leaf : rows_[1]) {
            const double w = slot(leaf);
            x_[leaf] = at + w / 2;
            at += w;
        }
        // Without leaves (a tree of one level cannot exist, but a model may
        // say so) the widest row sets the span.
        std::size_t widest = 0;
        for (const auto& row : rows_)
            widest = std::max(widest, row.size());
        span_ = std::max(at, static_cast<double>(widest) * pitch_);
    }

    // Sorts row `level` by the mean x of each switch's neighbours in `by`
    // (own x when it has none; ties keep the current left-to-right order),
    // then places it: leaves by slot, other rows by spaced_fit.
    void reorder(unsigned level, const std::vector<std::vector<std::size_t>>& by)
    {
        auto& row = rows_[level];
        std::vector<double> key(m_.nodes.size());
        for (std::size_t s : row) {
            const auto& nb = by[s];
            if (nb.empty()) {
                key[s] = x_[s];
                continue;
            }
            double sum = 0;
            for (std::size_t v : nb)
                sum += x_[v];
            key[s] = sum / static_cast<double>(nb.size());
        }
        std::stable_sort(row.begin(), row.end(), [&](std::size_t a, std::size_t b) {
            return key[a] != key[b] ? key[a] < key[b] : x_[a] < x_[b];
        });
        if (level == 1) {
            place_leaves();
            return;
        }
        if (row.empty())
            return;
        std::vector<double> keys;
        keys.reserve(row.size());
        for (std::size_t s : row)
            keys.push_back(key[s]);
        const double sep = std::max(pitch_, span_ / static_cast<double>(row.size()));
        const std::vector<double> xs = spaced_fit(keys, sep);
        for (std::size_t i = 0; i < row.size(); ++i)
            x_[row[i]] = xs[i];
    }

    void sweep_up()
    {
        for (unsigned l = 2; l <= t_.height; ++l)
            reorder(l, t_.down);
    }

    const Model& m_;
    const Tree& t_;
    std::vector<double> x_;
    std::vector<std::vector<std::size_t>> rows_;
    double pitch_ = level_min_switch_pitch;
    double span_ = 0;
};

} // namespace

Layout levels_layout(const Model& model)
{
    if (model.height == 0)
        throw std::invalid_argument("levels layout needs a ranked fat-tree (model height 0)");
    const Tree tree = build_tree(model);
    Placer placer(model, tree);
    placer.run();

    const double row_gap = std::max(level_min_row_gap, 0.12 * placer.span());
    std::vector<Point> at(model.nodes.size());
    auto put = [&](std::size_t n, double x, double y) { at[n] = {x, y}; };

    double bottom = 0;
    std::size_t max_host_rows = 0;
    for (unsigned l = model.height; l >= 1; --l) {
        const double y = static_cast<double>(model.height - l) * row_gap;
        for (std::size_t s : placer.row(l))
            put(s, placer.x(s), y);
        bottom = y;
    }
    const double leaf_y = bottom;
    for (std::size_t leaf : placer.row(1)) {
        const auto& hosts = tree.hosts_of[leaf];
        const std::size_t cols = host_columns(hosts.size());
        for (std::size_t i = 0; i < hosts.size(); ++i) {
            const std::size_t r = i / cols, c = i % cols;
            const std::size_t in_row = std::min(cols, hosts.size() - r * cols);
            const double x = placer.x(leaf) + (static_cast<double>(c) - static_cast<double>(in_row - 1) / 2) *
                                                  level_host_pitch;
            put(hosts[i], x, leaf_y + level_host_drop + static_cast<double>(r) * level_host_pitch);
            max_host_rows = std::max(max_host_rows, r + 1);
        }
    }
    if (max_host_rows > 0)
        bottom = leaf_y + level_host_drop + static_cast<double>(max_host_rows - 1) * level_host_pitch;
    if (!tree.stray.empty()) {
        const double y = bottom + std::max(level_min_row_gap, row_gap / 2);
        for (std::size_t i = 0; i < tree.stray.size(); ++i)
            put(tree.stray[i], (static_cast<double>(i) + 0.5) * placer.pitch(), y);
    }

    Layout layout;
    layout.method = "levels";
    layout.node_spacing = max_host_rows > 0 ? level_host_pitch : placer.pitch();
    if (model.nodes.empty())
        return layout;
    double min_x = std::numeric_limits<double>::max(), min_y = min_x;
    double max_x = std::numeric_limits<double>::lowest(), max_y = max_x;
    for (const Point& p : at) {
        min_x = std::min(min_x, p.x);
        min_y = std::min(min_y, p.y);
        max_x = std::max(max_x, p.x);
        max_y = std::max(max_y, p.y);
    }
    // Room for a switch label centred on the outermost nodes.
    const double margin = std::max(level_margin, placer.pitch() / 2 + 8);
    layout.width = max_x - min_x + 2 * margin;
    layout.height = max_y - min_y + 2 * margin;
    layout.at.reserve(model.nodes.size());
    for (std::size_t i = 0; i < model.nodes.size(); ++i)
        layout.at[model.nodes[i].guid] = {at[i].x - min_x + margin, at[i].y - min_y + margin};
    return layout;
}

} // namespace ibsm::report
