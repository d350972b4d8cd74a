// Why: seed 002 §4 — realising one destination's paths with the fewest LIDs
// is graph colouring (NP-complete, §3), so the stage runs one of the paper's
// five heuristics, each of which yields a minimal configuration set
// (Definition 4).
//
// Data structures: one destination's paths are re-indexed densely — the
// switches they cross get indices 0..S-1 and each path becomes a CSR run of
// (switch index, out port) hops. A configuration is a switch-indexed array of
// out ports (kFree where it does not touch the switch), so "does path p split
// with any path of configuration C" (Figure 5 line 5) and "add p to C" cost
// O(hops of p), not O(|C|). The colouring heuristics keep the split graph
// implicit: per switch, the paths through it grouped by out port, as bitsets
// over path indices; a path's neighbours are the union, over the switches it
// crosses, of "through this switch" minus "leaves it by my port".
//
// Algorithm: see each heuristic below; every one is a sequence of rounds
// that open a configuration and walk candidates in some order, adding every
// candidate that does not split with the configuration (the greedy pass of
// Figure 5). They differ in the candidates (paths, or pre-split groups) and
// the order.
#include "lidassign/path_configs.h"

#include "common/parallel_for.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <map>
#include <stdexcept>

namespace ibsm::lidassign {
namespace {

constexpr std::uint16_t kFree = 0xFFFF;

// One destination's paths with switches renumbered 0..switches-1 in order of
// first appearance (deterministic for equal input).
struct DensePaths {
    std::uint32_t switches = 0;
    std::vector<std::uint32_t> first; // CSR offsets, size paths+1
    std::vector<std::uint32_t> sw;    // dense switch index per hop
    std::vector<std::uint8_t> port;   // out port per hop

    std::size_t size() const { return first.size() - 1; }
};

// `slot` is scratch indexed by NodeId value, all UINT32_MAX on entry and on
// return (so one buffer serves every destination a worker handles).
DensePaths densify(const topology::DestinationPaths& dest, std::vector<std::uint32_t>& slot) {
    DensePaths d;
    d.first.reserve(dest.paths.size() + 1);
    d.first.push_back(0);
    std::vector<std::uint32_t> touched;
    for (const auto& p : dest.paths) {
        for (const auto& h : p.hops) {
            const auto id = h.sw.value;
            if (id >= slot.size())
                slot.resize(static_cast<std::size_t>(id) + 1, UINT32_MAX);
            if (slot[id] == UINT32_MAX) {
                slot[id] = d.switches++;
                touched.push_back(id);
            }
            d.sw.push_back(slot[id]);
            d.port.push_back(h.out.value());
        }
        d.first.push_back(static_cast<std::uint32_t>(d.sw.size()));
    }
    for (auto id : touched)
        slot[id] = UINT32_MAX;
    return d;
}

// A configuration under construction: the out port each touched switch uses.
class Config {
public:
    explicit Config(std::uint32_t switches) : port_(switches, kFree) {}
    bool fits(const DensePaths& d, std::size_t p) const {
        for (auto h = d.first[p]; h < d.first[p + 1]; ++h) {
            const auto cur = port_[d.sw[h]];
            if (cur != kFree && cur != d.port[h])
                return false;
        }
        return true;
    }
    void add(const DensePaths& d, std::size_t p) {
        for (auto h = d.first[p]; h < d.first[p + 1]; ++h)
            port_[d.sw[h]] = d.port[h];
    }
    void clear() { std::fill(port_.begin(), port_.end(), kFree); }

private:
    std::vector<std::uint16_t> port_;
};

DestinationConfigs make_result(std::size_t paths) {
    DestinationConfigs r;
    r.of_path.assign(paths, 0);
    return r;
}

std::uint16_t next_config(DestinationConfigs& r) {
    if (r.count == UINT16_MAX)
        throw std::length_error("path_configs: more than 65535 configurations for one destination");
    return r.count++;
}

// Figure 5 over groups of paths: each round opens a configuration and adds,
// in order, every remaining group none of whose paths splits with it. Plain
// greedy is the case of one path per group; split-merge's merge phase is the
// case of the split phase's groups.
DestinationConfigs greedy_groups(const DensePaths& d, const std::vector<std::vector<std::uint32_t>>& groups) {
    auto r = make_result(d.size());
    std::vector<std::uint32_t> remaining(groups.size());
    for (std::uint32_t g = 0; g < groups.size(); ++g)
        remaining[g] = g;
    Config c(d.switches);
    while (!remaining.empty()) {
        c.clear();
        const auto id = next_config(r);
        std::vector<std::uint32_t> left;
        for (auto g : remaining) {
            const auto& members = groups[g];
            const bool fits = std::all_of(members.begin(), members.end(),
                                          [&](std::uint32_t p) { return c.fits(d, p); });
            if (!fits) {
                left.push_back(g);
                continue;
            }
            for (auto p : members) {
                c.add(d, p);
                r.of_path[p] = id;
            }
        }
        remaining = std::move(left);
    }
    return r;
}

// §4.1, Figure 5: paths considered in the order given (sorted by source).
DestinationConfigs greedy(const DensePaths& d) {
    std::vector<std::vector<std::uint32_t>> groups(d.size());
    for (std::uint32_t p = 0; p < d.size(); ++p)
        groups[p] = {p};
    return greedy_groups(d, groups);
}

// §4.2, Figure 7. Split phase: switches are taken one by one — /S: the switch
// crossed by the fewest paths first, /L: the most first (ties: dense index) —
// and every working-set item is divided by the out port its paths take at
// that switch. The figure leaves open where an item's paths that do not cross
// the switch go (they split with nobody there); they stay with the largest
// port class (ties: the smallest port), so the item is cut only as far as the
// split requires and the merge phase starts from groups as large as possible.
// Carved-off classes are appended to the working list in port order. Merge
// phase: Figure 5 over the resulting items, in working-list order.
DestinationConfigs split_merge(const DensePaths& d, bool largest_first) {
    const auto n = d.size();
    std::vector<std::uint32_t> uses(d.switches, 0);
    for (auto s : d.sw)
        ++uses[s];
    std::vector<std::uint32_t> order(d.switches);
    for (std::uint32_t s = 0; s < d.switches; ++s)
        order[s] = s;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return largest_first ? uses[a] > uses[b] : uses[a] < uses[b];
    });

    // port_at[p * S + s]: path p's out port at switch s, kFree if it does not
    // cross it. Small for one destination (paths x switches it uses).
    std::vector<std::uint16_t> port_at(n * d.switches, kFree);
    for (std::size_t p = 0; p < n; ++p)
        for (auto h = d.first[p]; h < d.first[p + 1]; ++h)
            port_at[p * d.switches + d.sw[h]] = d.port[h];

    std::vector<std::vector<std::uint32_t>> items;
    if (n > 0) {
        items.emplace_back(n);
        for (std::uint32_t p = 0; p < n; ++p)
            items[0][p] = p;
    }
    std::vector<std::uint32_t> count(256);
    for (auto s : order) {
        const auto existing = items.size();
        for (std::size_t i = 0; i < existing; ++i) {
            std::fill(count.begin(), count.end(), 0);
            unsigned classes = 0;
            for (auto p : items[i]) {
                const auto x = port_at[p * d.switches + s];
                if (x != kFree && count[x]++ == 0)
                    ++classes;
            }
            if (classes < 2)
                continue;
            std::uint16_t keep = 0;
            for (std::uint16_t x = 1; x < 256; ++x)
                if (count[x] > count[keep])
                    keep = x;
            std::vector<std::uint32_t> kept;
            std::map<std::uint16_t, std::vector<std::uint32_t>> carved;
            for (auto p : items[i]) {
                const auto x = port_at[p * d.switches + s];
                if (x == kFree || x == keep)
                    kept.push_back(p);
                else
                    carved[x].push_back(p);
            }
            items[i] = std::move(kept);
            for (auto& [x, members] : carved)
                items.push_back(std::move(members));
        }
    }
    return greedy_groups(d, items);
}

using Word = std::uint64_t;

// The split graph kept implicit (§4.3): per switch with paths leaving it by
// two or more ports, the bitset of paths through it and one bitset per out
// port. A path's neighbour set is the union over its "split switches" of
// through-minus-same-port; paths with the same sequence of (split switch,
// port) have the same neighbour set, so the union is built once per such
// signature.
class SplitGraph {
public:
    explicit SplitGraph(const DensePaths& d) : words_((d.size() + 63) / 64) {
        const auto n = d.size();
        // Distinct ports per switch.
        std::vector<std::vector<std::uint8_t>> ports(d.switches);
        for (std::size_t h = 0; h < d.sw.size(); ++h) {
            auto& v = ports[d.sw[h]];
            if (std::find(v.begin(), v.end(), d.port[h]) == v.end())
                v.push_back(d.port[h]);
        }
        // Group ids: one per (split switch, port); through-bitset per split switch.
        std::vector<std::int32_t> through_of(d.switches, -1);
        std::vector<std::map<std::uint8_t, std::uint32_t>> group_of(d.switches);
        for (std::uint32_t s = 0; s < d.switches; ++s) {
            if (ports[s].size() < 2)
                continue;
            through_of[s] = static_cast<std::int32_t>(through_count_++);
            for (auto x : ports[s])
                group_of[s][x] = group_count_++;
        }
        through_.assign(static_cast<std::size_t>(through_count_) * words_, 0);
        group_.assign(static_cast<std::size_t>(group_count_) * words_, 0);
        std::map<std::vector<std::uint32_t>, std::uint32_t> sig_ids;
        sig_of_.resize(n);
        for (std::size_t p = 0; p < n; ++p) {
            std::vector<std::uint32_t> key; // (through, group) pairs
            for (auto h = d.first[p]; h < d.first[p + 1]; ++h) {
                const auto s = d.sw[h];
                if (through_of[s] < 0)
                    continue;
                const auto t = static_cast<std::uint32_t>(through_of[s]);
                const auto g = group_of[s].at(d.port[h]);
                set(through_, t, p);
                set(group_, g, p);
                key.push_back(t);
                key.push_back(g);
            }
            const auto [it, fresh] = sig_ids.try_emplace(key, static_cast<std::uint32_t>(sigs_.size()));
            if (fresh)
                sigs_.push_back(std::move(key));
            sig_of_[p] = it->second;
        }
    }

    std::size_t words() const { return words_; }

    // Degree of every path in `alive` within the graph induced by `alive`.
    void degrees(const std::vector<Word>& alive, const std::vector<std::uint32_t>& alive_list,
                 std::vector<std::uint32_t>& degree) const {
        std::vector<std::uint32_t> sig_degree(sigs_.size(), UINT32_MAX);
        std::vector<Word> nb(words_);
        for (auto p : alive_list) {
            auto& sd = sig_degree[sig_of_[p]];
            if (sd == UINT32_MAX) {
                std::fill(nb.begin(), nb.end(), 0);
                const auto& key = sigs_[sig_of_[p]];
                for (std::size_t k = 0; k < key.size(); k += 2) {
                    const Word* t = &through_[key[k] * words_];
                    const Word* g = &group_[key[k + 1] * words_];
                    for (std::size_t w = 0; w < words_; ++w)
                        nb[w] |= t[w] & ~g[w];
                }
                std::uint32_t deg = 0;
                for (std::size_t w = 0; w < words_; ++w)
                    deg += static_cast<std::uint32_t>(std::popcount(nb[w] & alive[w]));
                sd = deg;
            }
            degree[p] = sd;
        }
    }

private:
    void set(std::vector<Word>& bits, std::uint32_t row, std::size_t p) {
        bits[row * words_ + p / 64] |= Word{1} << (p % 64);
    }

    std::size_t words_;
    std::uint32_t through_count_ = 0, group_count_ = 0;
    std::vector<Word> through_, group_;
    std::vector<std::vector<std::uint32_t>> sigs_;
    std::vector<std::uint32_t> sig_of_;
};

// §4.3: colours applied one by one. Each round works on the reduced graph of
// the still-uncoloured paths: Step 1 picks the candidate of largest (/L) or
// smallest (/S) degree in that reduced graph (ties: smaller path index), Step
// 2 removes its neighbours, Step 3 repeats. The degrees are those of the
// round's reduced graph, fixed during the round, so the round is the greedy
// pass of Figure 5 over the uncoloured paths sorted by degree: a candidate
// is "removed" exactly when it splits with a path already coloured in this
// round, which the configuration array tests directly.
DestinationConfigs color(const DensePaths& d, bool largest_first) {
    const auto n = d.size();
    auto r = make_result(n);
    const SplitGraph g(d);
    std::vector<Word> alive(g.words(), 0);
    std::vector<std::uint32_t> alive_list(n);
    for (std::uint32_t p = 0; p < n; ++p) {
        alive[p / 64] |= Word{1} << (p % 64);
        alive_list[p] = p;
    }
    std::vector<std::uint32_t> degree(n, 0);
    Config c(d.switches);
    while (!alive_list.empty()) {
        g.degrees(alive, alive_list, degree);
        std::stable_sort(alive_list.begin(), alive_list.end(), [&](std::uint32_t a, std::uint32_t b) {
            return largest_first ? degree[a] > degree[b] : degree[a] < degree[b];
        });
        c.clear();
        const auto id = next_config(r);
        std::vector<std::uint32_t> left;
        for (auto p : alive_list) {
            if (!c.fits(d, p)) {
                left.push_back(p);
                continue;
            }
            c.add(d, p);
            r.of_path[p] = id;
            alive[p / 64] &= ~(Word{1} << (p % 64));
        }
        std::sort(left.begin(), left.end());
        alive_list = std::move(left);
    }
    return r;
}

DestinationConfigs partition_dense(const DensePaths& d, ConfigHeuristic heuristic) {
    switch (heuristic) {
    case ConfigHeuristic::greedy:
        return greedy(d);
    case ConfigHeuristic::split_merge_s:
        return split_merge(d, false);
    case ConfigHeuristic::split_merge_l:
        return split_merge(d, true);
    case ConfigHeuristic::color_s:
        return color(d, false);
    case ConfigHeuristic::color_l:
        return color(d, true);
    }
    throw std::invalid_argument("path_configs: unknown heuristic");
}

struct NameOf {
    ConfigHeuristic h;
    const char* name;
};
constexpr NameOf kNames[] = {
    {ConfigHeuristic::greedy, "greedy"},
    {ConfigHeuristic::split_merge_s, "split-merge-s"},
    {ConfigHeuristic::split_merge_l, "split-merge-l"},
    {ConfigHeuristic::color_s, "color-s"},
    {ConfigHeuristic::color_l, "color-l"},
};

} // namespace

const char* to_string(ConfigHeuristic h) {
    for (const auto& n : kNames)
        if (n.h == h)
            return n.name;
    return "?";
}

std::optional<ConfigHeuristic> config_heuristic_from(std::string_view name) {
    for (const auto& n : kNames)
        if (name == n.name)
            return n.h;
    return std::nullopt;
}

DestinationConfigs partition_paths(const topology::DestinationPaths& dest, ConfigHeuristic heuristic) {
    std::vector<std::uint32_t> slot;
    return partition_dense(densify(dest, slot), heuristic);
}

std::vector<DestinationConfigs> partition_all(const topology::PairPaths& paths, ConfigHeuristic heuristic,
                                              unsigned threads) {
    const auto n = paths.destinations.size();
    std::vector<DestinationConfigs> out(n);
    std::vector<std::vector<std::uint32_t>> slot(common::worker_count(threads)); // densify's scratch, per worker
    common::parallel_for(n, threads, [&](std::size_t i, unsigned w) {
        out[i] = partition_dense(densify(paths.destinations[i], slot[w]), heuristic);
    });
    return out;
}

bool paths_split(const topology::PairPath& a, const topology::PairPath& b) {
    for (const auto& x : a.hops)
        for (const auto& y : b.hops)
            if (x.sw == y.sw && x.out != y.out)
                return true;
    return false;
}

} // namespace ibsm::lidassign
