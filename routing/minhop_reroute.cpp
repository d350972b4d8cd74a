// MinHop's re-route: only the entries a delta can change are chosen again.
//
// Why: MinHop's entry for (switch s, LID) reads the least-hop candidate set
// C(s, t) toward the LID's delivering switch t, the LID's delivery (t and
// the final port) and the load of s's ports (minhop_state.h). One pulled
// cable changes C(s, t) for a few (s, t) — those whose shortest-path DAG
// toward t used the cable (|d(a) - d(b)| = 1 across it) — and a cable back
// adds an equal-cost or shorter next hop for the same few. Everything else
// is kept, with its load.
//
// Data structures: the last run's Graph (MinHopMemory: hop lists by port
// with neighbour GUIDs, the S x S hop matrix) mapped to this run's switch
// indices by GUID; per destination switch t whether its column of the hop
// matrix changed anywhere; per switch whether its own links changed; per LID
// whether its delivery changed (by GUID of the delivering switch).
//
// Algorithm:
// 1. Build this fabric's Graph (one BFS per switch, as a full run).
// 2. Entry (s, LID to t) is dirty when s or t is new, the LID is new or its
//    delivery changed, or C(s, t) differs from the last run's (checked only
//    where t's column of the hop matrix or s's links changed; elsewhere both
//    candidate sets read the same numbers). A block of LIDs (LMC > 0) is
//    dirty at s when any of its destinations is, so OpenSM's rule of
//    spreading a block over distinct remote switches still holds.
// 3. Per switch (independent, in parallel): the kept entries' CA LIDs load
//    the ports they use; the dirty entries, in OpenSM's order (LID offset
//    outermost), take the least-hop port by minhop.cpp's rule (remote system
//    and node not used by the block, then least load, then round-robin from
//    the port the previous LID of the block took) and add their load. A new
//    switch's row is all dirty, which is exactly a full run's row.
// Cost O(changed columns x S x degree + S x LIDs) against a full run's
// O(S x LIDs x candidates).
#include "routing/minhop.h"
#include "routing/minhop_state.h"

#include "common/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <unordered_map>

namespace ibsm::routing {

using topology::Fabric;
using namespace minhop;

namespace {

constexpr std::uint32_t gone = std::numeric_limits<std::uint32_t>::max();

std::shared_ptr<MinHopMemory> remember(const Fabric& fabric, Graph&& g)
{
    auto m = std::make_shared<MinHopMemory>();
    m->switch_guids.reserve(g.size());
    for (auto id : g.switches) m->switch_guids.push_back(fabric.node(id).guid);
    m->graph = std::move(g);
    return m;
}

// The least-hop ports of switch s toward t, in port order.
void candidates(const Graph& g, std::size_t s, std::size_t t, std::vector<std::uint8_t>& out)
{
    out.clear();
    const std::uint8_t here = g.d(s, t);
    if (s == t || here == unreachable) return;
    for (const Hop& h : g.hops[s])
        if (g.d(h.neighbour, t) + 1 == here) out.push_back(h.port);
}

// Per LID of the last run: the delivering switch's GUID and port, and
// whether the LID counted as traffic.
struct Delivery {
    Guid target;
    std::uint8_t final_port = 0;
    bool traffic = false;
    bool reachable = false;
    bool operator==(const Delivery&) const = default;
};

std::vector<Delivery> deliveries(const Fabric& fabric, const Graph& g, const std::vector<Destination>& dests,
                                 std::uint32_t lid_limit)
{
    std::vector<Delivery> out(lid_limit);
    for (const auto& d : dests)
        for (std::uint16_t k = 0; k < d.count; ++k) {
            if (d.base + k >= lid_limit) continue;
            Delivery& v = out[d.base + k];
            v.reachable = d.target >= 0;
            if (v.reachable) v.target = fabric.node(g.switches[static_cast<std::size_t>(d.target)]).guid;
            v.final_port = d.final_port;
            v.traffic = d.counts_as_traffic;
        }
    return out;
}

// Re-chooses a row's dirty entries (see the algorithm above).
class RowRepair {
public:
    RowRepair(const Graph& g, const std::vector<Destination>& dests, const std::vector<std::uint32_t>& order,
              std::uint16_t max_count)
        : g_(g), dests_(dests), order_(order), max_count_(max_count)
    {
    }

    // `dirty[di]`: destination di is chosen again at s. Returns the entries chosen.
    std::size_t repair(std::size_t s, Lft& lft, const std::vector<char>& dirty)
    {
        load_.assign(256, 0);
        hop_at_.assign(256, nullptr);
        for (const Hop& h : g_.hops[s]) hop_at_[h.port] = &h;
        for (std::size_t di = 0; di < dests_.size(); ++di) {
            const Destination& d = dests_[di];
            if (dirty[di] || !d.counts_as_traffic || d.target < 0 || static_cast<std::size_t>(d.target) == s) continue;
            for (std::uint16_t k = 0; k < d.count; ++k) {
                const std::uint8_t p = lft.port[d.base + k];
                if (p != no_route) ++load_[p];
            }
        }
        std::size_t chosen = 0;
        for (std::uint16_t k = 0; k < max_count_; ++k)
            for (std::uint32_t di : order_)
                if (dirty[di] && k < dests_[di].count) {
                    choose(s, lft, di, k);
                    ++chosen;
                }
        return chosen;
    }

private:
    void choose(std::size_t s, Lft& lft, std::uint32_t di, std::uint16_t k)
    {
        const Destination& d = dests_[di];
        const std::uint32_t lid = d.base + k;
        lft.port[lid] = no_route;
        if (d.target < 0) return;
        const auto t = static_cast<std::size_t>(d.target);
        if (t == s) {
            lft.port[lid] = d.final_port;
            return;
        }
        candidates(g_, s, t, cand_);
        if (cand_.empty()) return;
        const std::uint8_t start = k == 0 ? 1 : static_cast<std::uint8_t>(lft.port[lid - 1] + 1);
        std::uint8_t best = no_route;
        std::uint64_t best_key = std::numeric_limits<std::uint64_t>::max();
        for (const std::uint8_t port : cand_) {
            const Hop& h = *hop_at_[port];
            bool sys_used = false, node_used = false;
            for (std::uint16_t j = 0; j < k; ++j) {
                const std::uint8_t q = lft.port[d.base + j];
                if (q == no_route || !hop_at_[q]) continue;
                sys_used |= hop_at_[q]->system_guid == h.system_guid;
                node_used |= hop_at_[q]->node_guid == h.node_guid;
            }
            const std::uint64_t key = (std::uint64_t{sys_used} << 63) | (std::uint64_t{node_used} << 62) |
                                      (std::uint64_t{load_[port]} << 8) | static_cast<std::uint8_t>(port - start);
            if (key < best_key) {
                best_key = key;
                best = port;
            }
        }
        lft.port[lid] = best;
        if (d.counts_as_traffic) ++load_[best];
    }

    const Graph& g_;
    const std::vector<Destination>& dests_;
    const std::vector<std::uint32_t>& order_;
    std::uint16_t max_count_;
    std::vector<std::uint32_t> load_;
    std::vector<const Hop*> hop_at_;
    std::vector<std::uint8_t> cand_;
};

} // namespace

EngineRun MinHopEngine::compute_after(const Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                                      const Previous* previous) const
{
    std::vector<std::int64_t> index;
    Graph g = build_graph(fabric, index);
    const auto dests = destinations(fabric, lids, index);
    const auto order = routing_order(dests, g, GuidRoles(options));
    const auto* memory = previous ? dynamic_cast<const MinHopMemory*>(previous->state) : nullptr;
    if (!memory) {
        RoutingTables tables = route_full(g, dests, order, lids.top(), options);
        tables.engine = name();
        EngineRun run{std::move(tables), remember(fabric, std::move(g)), "full run", false};
        if (previous) run.how = "full run (no minhop state kept)";
        return run;
    }
    const Graph& old = memory->graph;
    const std::size_t S = g.size(), O = old.size();

    // 1. This run's switches in the last run's numbering.
    std::unordered_map<std::uint64_t, std::uint32_t> old_of_guid;
    for (std::uint32_t i = 0; i < O; ++i) old_of_guid.emplace(memory->switch_guids[i].value(), i);
    std::vector<std::uint32_t> old_of(S, gone);
    for (std::uint32_t s = 0; s < S; ++s) {
        auto it = old_of_guid.find(fabric.node(g.switches[s]).guid.value());
        if (it != old_of_guid.end()) old_of[s] = it->second;
    }

    // 2. Switches whose own links changed (ports or peers), and destination
    //    switches whose column of the hop matrix changed.
    std::vector<char> links_changed(S, 0), column_changed(S, 0);
    for (std::size_t s = 0; s < S; ++s) {
        if (old_of[s] == gone) {
            links_changed[s] = 1;
            continue;
        }
        const auto& a = g.hops[s];
        const auto& b = old.hops[old_of[s]];
        bool same = a.size() == b.size();
        for (std::size_t i = 0; same && i < a.size(); ++i)
            same = a[i].port == b[i].port && a[i].node_guid == b[i].node_guid;
        links_changed[s] = !same;
    }
    common::parallel_for(S, S < 64 ? 1 : 0, [&](std::size_t t, unsigned) {
        const std::uint32_t ot = old_of[t];
        if (ot == gone) {
            column_changed[t] = 1;
            return;
        }
        // A new switch's own row is all dirty; a gone one changes the
        // candidates of its neighbours only through their links.
        for (std::size_t s = 0; s < S && !column_changed[t]; ++s)
            column_changed[t] = old_of[s] != gone && g.d(s, t) != old.d(old_of[s], ot);
    });

    // 3. LIDs whose delivery changed, new or gone.
    const std::uint32_t lid_limit = static_cast<std::uint32_t>(lids.top().value()) + 1;
    std::vector<std::int64_t> old_index(previous->fabric.node_count(), -1);
    for (std::uint32_t i = 0; i < O; ++i) old_index[old.switches[i].value] = i;
    const auto old_dests = destinations(previous->fabric, previous->lids, old_index);
    const auto was = deliveries(previous->fabric, old, old_dests, lid_limit);
    const auto now = deliveries(fabric, g, dests, lid_limit);
    std::vector<char> dest_changed(dests.size(), 0);
    std::uint16_t max_count = 1;
    std::size_t lids_changed = 0;
    for (std::size_t di = 0; di < dests.size(); ++di) {
        const auto& d = dests[di];
        max_count = std::max(max_count, d.count);
        for (std::uint16_t k = 0; k < d.count; ++k) dest_changed[di] |= !(was[d.base + k] == now[d.base + k]);
        lids_changed += dest_changed[di] ? d.count : 0;
    }

    std::vector<char> live(lid_limit, 0);
    for (const auto& d : dests)
        for (std::uint16_t k = 0; k < d.count; ++k) live[d.base + k] = 1;

    // 4. Per switch: dirty destinations, then the repair.
    std::vector<Lft> lfts(S);
    std::vector<std::uint32_t> chosen(S, 0);
    std::vector<char> target_touched(S, 0); // destination switch t: re-chosen somewhere
    const unsigned threads = S < 64 ? 1 : 0;
    std::vector<RowRepair> repairs(common::worker_count(threads), RowRepair(g, dests, order, max_count));
    std::vector<std::vector<char>> dirty_of(common::worker_count(threads));
    std::vector<std::vector<char>> redo_of(common::worker_count(threads));
    std::vector<std::vector<std::uint8_t>> ca(common::worker_count(threads)), cb(common::worker_count(threads));
    std::vector<std::vector<char>> touched_of(common::worker_count(threads), std::vector<char>(S, 0));
    analysis::StageProgress progress(options.progress, "route", S);
    common::parallel_for(S, threads, [&](std::size_t s, unsigned w) {
        Lft& lft = lfts[s];
        lft.port.assign(lid_limit, no_route);
        const std::uint32_t os = old_of[s];
        auto& dirty = dirty_of[w];
        dirty.assign(dests.size(), 1);
        if (os != gone) {
            for (std::size_t di = 0; di < dests.size(); ++di) dirty[di] = dest_changed[di];
            const auto& kept = previous->tables.lfts.at(old.switches[os]).port;
            std::copy_n(kept.begin(), std::min<std::size_t>(kept.size(), lid_limit), lft.port.begin());
            // C(s, t) for every t whose inputs changed. All entries toward
            // t are chosen again, not only those whose port left C(s, t):
            // the group of t's LIDs is then spread over C(s, t) as a full
            // run spreads it (re-choosing only the displaced entries cost
            // 2.5 % of EBB at 3 456 hosts, docs/routing.md "Re-route").
            auto& redo = redo_of[w];
            redo.assign(S, 0);
            for (std::size_t t = 0; t < S; ++t) {
                if (!column_changed[t] && !links_changed[s]) continue;
                if (old_of[t] == gone) {
                    redo[t] = 1;
                    continue;
                }
                candidates(g, s, t, ca[w]);
                candidates(old, os, old_of[t], cb[w]);
                redo[t] = ca[w] != cb[w];
            }
            for (std::size_t di = 0; di < dests.size(); ++di)
                dirty[di] |= dests[di].target >= 0 && redo[static_cast<std::size_t>(dests[di].target)];
        }
        // LIDs no destination has any more (gone with their port) drop.
        for (std::uint32_t lid = 0; lid < lid_limit; ++lid)
            if (!live[lid]) lft.port[lid] = no_route;
        chosen[s] = static_cast<std::uint32_t>(repairs[w].repair(s, lft, dirty));
        for (std::size_t di = 0; di < dests.size(); ++di)
            if (dirty[di] && dests[di].target >= 0) touched_of[w][static_cast<std::size_t>(dests[di].target)] = 1;
        progress.tick();
    });
    for (const auto& t : touched_of)
        for (std::size_t i = 0; i < S; ++i) target_touched[i] |= t[i];

    std::size_t rows = 0, entries = 0, total = 0, columns = 0;
    for (std::size_t s = 0; s < S; ++s) {
        rows += chosen[s] > 0;
        entries += chosen[s];
        columns += target_touched[s];
    }
    for (const auto& d : dests) total += d.count;
    total *= S;

    RoutingTables tables;
    tables.engine = name();
    tables.linear_fdb_top = lids.top();
    for (std::size_t s = 0; s < S; ++s) tables.lfts.emplace(g.switches[s], std::move(lfts[s]));
    std::string how = "incremental (" + previous->delta.summary() + "; " + std::to_string(entries) + " of " +
                      std::to_string(total) + " switch x LID entries re-chosen at " + std::to_string(rows) + " of " +
                      std::to_string(S) + " switches, toward " + std::to_string(columns) + " destination switches, " +
                      std::to_string(lids_changed) + " LIDs delivered anew)";
    return EngineRun{std::move(tables), remember(fabric, std::move(g)), std::move(how), true};
}

} // namespace ibsm::routing
