// pathsel: k-shortest legal candidates, most-loaded-link-first selection (see pathsel.h).
#include "routing/paths/pathsel.h"

#include "common/parallel_for.h"
#include "routing/paths/assemble.h"
#include "routing/paths/updn_paths.h"

#include <algorithm>
#include <memory>
#include <numeric>

namespace ibsm::routing::paths {

namespace {

// Candidates of every (a, b) pair of switches with terminals, flattened.
struct Candidates {
    std::vector<std::uint32_t> active;    // places with terminals
    std::vector<std::int32_t> active_of;  // by place: index in `active`, -1
    std::vector<std::uint32_t> pair_first; // by pair (ia * A + ib): candidates pair_first[p]..pair_first[p+1]-1
    std::vector<std::uint32_t> ch_first;   // by candidate: channels ch_first[c]..ch_first[c+1]-1
    std::vector<std::uint32_t> channels;

    std::size_t pair(std::size_t ia, std::size_t ib) const { return ia * active.size() + ib; }
    std::span<const std::uint32_t> path(std::uint32_t c) const
    {
        return {channels.data() + ch_first[c], channels.data() + ch_first[c + 1]};
    }
};

Candidates enumerate(const UpdnGraph& g, const PathselParams& params)
{
    Candidates cs;
    cs.active_of.assign(g.size(), -1);
    for (std::uint32_t u = 0; u < g.size(); ++u)
        if (!g.terminals_at[u].empty()) {
            cs.active_of[u] = static_cast<std::int32_t>(cs.active.size());
            cs.active.push_back(u);
        }
    const auto A = cs.active.size();
    using Row = std::vector<std::vector<std::vector<std::uint32_t>>>; // by ib: paths
    std::vector<Row> rows(A);
    common::parallel_for(A, params.threads, [&](std::size_t ia, unsigned) {
        rows[ia].resize(A);
        for (std::size_t ib = 0; ib < A; ++ib)
            if (ib != ia)
                rows[ia][ib] = legal_paths(g, cs.active[ia], cs.active[ib], params.k, params.slack);
    });
    cs.pair_first.reserve(A * A + 1);
    cs.ch_first.push_back(0);
    for (std::size_t ia = 0; ia < A; ++ia) {
        for (std::size_t ib = 0; ib < A; ++ib) {
            cs.pair_first.push_back(static_cast<std::uint32_t>(cs.ch_first.size() - 1));
            for (const auto& p : rows[ia][ib]) {
                cs.channels.insert(cs.channels.end(), p.begin(), p.end());
                cs.ch_first.push_back(static_cast<std::uint32_t>(cs.channels.size()));
            }
        }
        Row().swap(rows[ia]);
    }
    cs.pair_first.push_back(static_cast<std::uint32_t>(cs.ch_first.size() - 1));
    return cs;
}

// One switch pair's shedding in one round: `units` instances taken, each
// from the candidate of currently highest key, a shed instance lowering its
// candidate's key by `step` (a water-fill). Returns the shed count per
// candidate in `shed`.
void water_fill(const std::vector<std::int64_t>& key, const std::vector<std::uint32_t>& held, std::uint64_t units,
                std::int64_t step, std::vector<std::uint32_t>& shed)
{
    const auto r = key.size();
    shed.assign(r, 0);
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (std::size_t c = 0; c < r; ++c)
        if (held[c] > 0) {
            lo = std::min(lo, key[c] - static_cast<std::int64_t>(held[c]) * step);
            hi = std::max(hi, key[c]);
        }
    if (hi == INT64_MIN)
        return;
    // Units that bring candidate c's key to <= level.
    auto need = [&](std::size_t c, std::int64_t level) -> std::uint64_t {
        if (held[c] == 0 || key[c] <= level)
            return 0;
        const auto n = (key[c] - level + step - 1) / step;
        return std::min<std::uint64_t>(held[c], static_cast<std::uint64_t>(n));
    };
    auto f = [&](std::int64_t level) {
        std::uint64_t total = 0;
        for (std::size_t c = 0; c < r; ++c)
            total += need(c, level);
        return total;
    };
    // Smallest level whose fill does not exceed `units` (f falls as level rises; f(hi) = 0).
    while (lo < hi) {
        const auto mid = lo + (hi - lo) / 2;
        if (f(mid) <= units)
            hi = mid;
        else
            lo = mid + 1;
    }
    std::uint64_t used = 0;
    for (std::size_t c = 0; c < r; ++c) {
        shed[c] = static_cast<std::uint32_t>(need(c, lo));
        used += shed[c];
    }
    // The remainder, one unit at a time from the highest current key (ties: later candidate).
    while (used < units) {
        std::size_t top = r;
        std::int64_t top_key = INT64_MIN;
        for (std::size_t c = 0; c < r; ++c) {
            if (shed[c] >= held[c])
                continue;
            const auto k = key[c] - static_cast<std::int64_t>(shed[c]) * step;
            if (k >= top_key) {
                top_key = k;
                top = c;
            }
        }
        if (top == r)
            return;
        ++shed[top];
        ++used;
    }
}

} // namespace

namespace {

struct Selection {
    Candidates cs;
    std::vector<std::uint32_t> held; // per candidate: selection units holding it
    std::uint64_t max_load = 0;      // CA pairs on the busiest switch-to-switch channel
};

Selection select(const UpdnGraph& g, const PathselParams& params, unsigned threads)
{
    auto enumerate_params = params;
    enumerate_params.threads = threads;
    Selection out;
    out.cs = enumerate(g, enumerate_params);
    const auto& cs = out.cs;
    const auto A = cs.active.size();

    // Per pair: CA pairs (m) and candidates each of them holds (r); per
    // candidate: CA pairs holding it. A held instance weighs unit / r on each
    // channel it crosses (a CA pair's unit of traffic spread over what it
    // still holds); unit = lcm(1..k) keeps the weights integral.
    std::uint64_t unit = 1;
    for (std::uint64_t i = 2; i <= params.k; ++i)
        unit = std::lcm(unit, i);
    std::vector<std::uint64_t> m(A * A, 0);
    std::vector<std::uint64_t> scale(A * A, 1); // CA pairs per selection unit
    std::vector<std::uint32_t> holds(A * A, 0);
    std::vector<std::uint32_t> held(cs.ch_first.size() - 1, 0);
    std::vector<std::uint64_t> load(g.channel_count(), 0);
    for (std::size_t ia = 0; ia < A; ++ia)
        for (std::size_t ib = 0; ib < A; ++ib) {
            const auto p = cs.pair(ia, ib);
            const auto r = cs.pair_first[p + 1] - cs.pair_first[p];
            if (ia == ib || r == 0)
                continue;
            const auto sources = g.terminals_at[cs.active[ia]].size();
            const auto dests = g.terminals_at[cs.active[ib]].size();
            m[p] = params.per_source_switch ? dests : sources * dests;
            scale[p] = params.per_source_switch ? sources : 1;
            holds[p] = r;
            for (auto c = cs.pair_first[p]; c < cs.pair_first[p + 1]; ++c) {
                held[c] = static_cast<std::uint32_t>(m[p]);
                for (auto ch : cs.path(c))
                    load[ch] += m[p] * scale[p] * (unit / r);
            }
        }

    std::vector<std::int64_t> key;
    std::vector<std::uint32_t> pair_held, shed;
    for (unsigned round = 1; round < params.k; ++round) {
        bool any = false;
        for (std::size_t p = 0; p < A * A; ++p) {
            if (holds[p] <= 1)
                continue; // every CA pair holds one candidate
            any = true;
            const auto first = cs.pair_first[p];
            const auto r = cs.pair_first[p + 1] - first;
            const auto weight = static_cast<std::int64_t>(unit / holds[p] * scale[p]);
            key.assign(r, 0);
            pair_held.assign(held.begin() + first, held.begin() + first + r);
            for (std::uint32_t i = 0; i < r; ++i) {
                std::uint64_t worst = 0;
                for (auto ch : cs.path(first + i))
                    worst = std::max(worst, load[ch]);
                key[i] = static_cast<std::int64_t>(worst);
            }
            water_fill(key, pair_held, m[p], weight, shed);
            const auto after = static_cast<std::int64_t>(unit / (holds[p] - 1) * scale[p]);
            for (std::uint32_t i = 0; i < r; ++i) {
                const auto before_w = static_cast<std::int64_t>(held[first + i]) * weight;
                held[first + i] -= shed[i];
                const auto after_w = static_cast<std::int64_t>(held[first + i]) * after;
                if (before_w == after_w)
                    continue;
                for (auto ch : cs.path(first + i))
                    load[ch] = static_cast<std::uint64_t>(static_cast<std::int64_t>(load[ch]) + after_w - before_w);
            }
            --holds[p];
        }
        if (!any)
            break;
    }

    // The CA pairs each channel carries once every unit holds one path.
    std::vector<std::uint64_t> carried(g.channel_count(), 0);
    for (std::size_t p = 0; p < A * A; ++p)
        for (auto c = cs.pair_first[p]; c < cs.pair_first[p + 1]; ++c)
            for (auto ch : cs.path(c))
                carried[ch] += held[c] * scale[p];
    for (auto x : carried)
        out.max_load = std::max(out.max_load, x);
    out.held = std::move(held);
    return out;
}

} // namespace

namespace {

// What the chosen paths are read from: the orientation's graph, its
// candidates and how many selection units hold each, and every terminal's
// position among its switch's terminals.
struct Chosen {
    UpdnGraph g;
    Candidates cs;
    std::vector<std::uint32_t> held;
    std::vector<std::uint32_t> slot;
};

// Deals each switch pair's paths to its CA pairs destination by destination.
ChosenPath chosen_path(std::shared_ptr<const Chosen> ch, bool per_source_switch)
{
    return [ch = std::move(ch), per_source_switch](std::uint32_t src,
                                                   std::uint32_t dst) -> std::optional<std::span<const std::uint32_t>> {
        const auto& g = ch->g;
        const auto& cs = ch->cs;
        const auto a = g.terminals[src].place, b = g.terminals[dst].place;
        if (a == b)
            return std::span<const std::uint32_t>();
        const auto p = cs.pair(static_cast<std::size_t>(cs.active_of[a]), static_cast<std::size_t>(cs.active_of[b]));
        const std::uint64_t rank = per_source_switch
                                       ? std::uint64_t{ch->slot[dst]}
                                       : std::uint64_t{ch->slot[dst]} * g.terminals_at[a].size() + ch->slot[src];
        std::uint64_t seen = 0;
        for (auto c = cs.pair_first[p]; c < cs.pair_first[p + 1]; ++c) {
            seen += ch->held[c];
            if (rank < seen)
                return cs.path(c);
        }
        return std::nullopt; // no legal path (another component)
    };
}

std::variant<std::shared_ptr<const Chosen>, Refusal> choose(const topology::Fabric& fabric, const Options& options,
                                                            const PathselParams& params, const std::string& name)
{
    auto built = build_updn_graph(fabric, options);
    if (auto* why = std::get_if<std::string>(&built))
        return Refusal{name, *why};
    auto best = best_orientation<Selection>(
        std::get<UpdnGraph>(std::move(built)), fabric, options, params.root_trials, params.threads,
        [&](const UpdnGraph& graph, unsigned threads) { return select(graph, params, threads); });
    auto out = std::make_shared<Chosen>();
    out->g = std::move(best.first);
    out->cs = std::move(best.second.cs);
    out->held = std::move(best.second.held);
    out->slot.assign(out->g.terminals.size(), 0);
    for (const auto& at : out->g.terminals_at)
        for (std::uint32_t k = 0; k < at.size(); ++k)
            out->slot[at[k]] = k;
    return out;
}

} // namespace

PathResult PathselEngine::compute(const topology::Fabric& fabric, const Options& options) const
{
    auto got = choose(fabric, options, params_, name());
    if (auto* r = std::get_if<Refusal>(&got))
        return *r;
    const auto ch = std::get<std::shared_ptr<const Chosen>>(std::move(got));
    return assemble_pair_paths(ch->g, name(), chosen_path(ch, params_.per_source_switch), params_.threads);
}

PathSourceResult PathselEngine::source(const topology::Fabric& fabric, const Options& options) const
{
    auto got = choose(fabric, options, params_, name());
    if (auto* r = std::get_if<Refusal>(&got))
        return *r;
    auto ch = std::get<std::shared_ptr<const Chosen>>(std::move(got));
    // The graph lives in `ch`, which the chosen-path function keeps alive.
    std::shared_ptr<const UpdnGraph> g(ch, &ch->g);
    return assemble_path_source(std::move(g), name(), chosen_path(std::move(ch), params_.per_source_switch));
}

} // namespace ibsm::routing::paths
