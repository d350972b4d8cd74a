// Up*/Down* engine (see updn.h for the algorithm; orientation in updn_order.h).
#include "routing/updn.h"

#include "routing/minhop.h"
#include "routing/updn_order.h"
#include "routing/updn_state.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <tuple>

namespace ibsm::routing {

using topology::Fabric;
using topology::NodeId;
using topology::PortRef;
using updn::Orientation;

namespace {

constexpr std::uint64_t infinite = std::numeric_limits<std::uint64_t>::max();
constexpr int hop_shift = 40;
constexpr std::uint64_t one_hop = std::uint64_t{1} << hop_shift;
constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

} // namespace

namespace updn {
static_assert(no_target == none);

std::vector<Destination> destinations(const Fabric& fabric, const lidassign::LidMap& lids, const Orientation& o)
{
    std::vector<Destination> out;
    for (const auto& [ref, pl] : lids.entries()) {
        Destination d{pl.base.value(), pl.count(), no_target, 0, true};
        if (fabric.node(ref.node).is_switch()) {
            d.target = static_cast<std::uint32_t>(o.place_of[ref.node.value]);
            d.counts_as_traffic = false;
        } else if (link_usable(fabric, ref)) {
            const PortRef peer = *fabric.port(ref).remote;
            if (fabric.node(peer.node).is_switch()) {
                d.target = static_cast<std::uint32_t>(o.place_of[peer.node.value]);
                d.final_port = peer.port.value();
            }
        }
        out.push_back(d);
    }
    return out;
}

// OpenSM's order: CA LIDs grouped by their switch (switches with more CA
// LIDs first, then node order; within a switch by port), then switch LIDs and
// unreachable ports by LID.
std::vector<std::uint32_t> routing_order(const std::vector<Destination>& dests, const Orientation& o)
{
    std::vector<std::uint32_t> end_ports(o.size(), 0);
    for (const auto& d : dests)
        if (d.counts_as_traffic && d.target != none) ++end_ports[d.target];
    std::vector<std::uint32_t> order(dests.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    auto rank = [&](std::uint32_t i) {
        const Destination& d = dests[i];
        if (!d.counts_as_traffic || d.target == none) return std::tuple<int, std::uint64_t, std::uint64_t>{1, 0, d.base};
        const std::uint64_t sw_key = (std::uint64_t{~end_ports[d.target]} << 32) | o.switches[d.target].value;
        return std::tuple<int, std::uint64_t, std::uint64_t>{0, sw_key, d.final_port};
    };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return rank(a) < rank(b); });
    return order;
}

} // namespace updn

namespace {

using updn::ChannelLoads;
using updn::Destination;

class Router {
public:
    Router(const Fabric& fabric, const Orientation& o, Balancing balancing, std::uint16_t max_count)
        : o_(o), global_(balancing == Balancing::global), max_count_(max_count)
    {
        const std::size_t S = o.size();
        // Channel ids: up entries 0..U-1, down entries U..U+D-1; mate = the
        // same cable in the other direction.
        const std::size_t U = o.up.size();
        mate_.assign(U + o.down.size(), none);
        for (std::uint32_t p = 0; p < S; ++p)
            for (std::uint32_t i = o.up_first[p]; i < o.up_first[p + 1]; ++i) {
                const std::uint32_t v = o.up[i].neighbour;
                const auto peer = fabric.remote({o.switches[p], PortNum(o.up[i].port)});
                for (std::uint32_t j = o.down_first[v]; j < o.down_first[v + 1]; ++j)
                    if (o.down[j].neighbour == p && o.down[j].port == peer->port.value()) {
                        mate_[i] = static_cast<std::uint32_t>(U + j);
                        mate_[U + j] = i;
                    }
            }
        load_.assign(mate_.size(), 0);
        usage_.assign(mate_.size(), 0);
        down_cost_.assign(S, infinite);
        down_next_.assign(S, none);
        down_tie_.assign(S, 0);
        down_stamp_.assign(S, 0);
        forced_stamp_.assign(S, 0);
        cost_.assign(S, infinite);
        next_.assign(S, none);
        acc_.assign(S, 0);
        if (max_count_ > 1) {
            neighbour_of_port_.assign(S * 256, none);
            for (std::uint32_t p = 0; p < S; ++p) {
                for (std::uint32_t i = o.up_first[p]; i < o.up_first[p + 1]; ++i)
                    neighbour_of_port_[p * 256 + o.up[i].port] = o.up[i].neighbour;
                for (std::uint32_t j = o.down_first[p]; j < o.down_first[p + 1]; ++j)
                    neighbour_of_port_[p * 256 + o.down[j].port] = o.down[j].neighbour;
            }
        }
    }

    void route(const Destination& d, std::uint16_t k, std::vector<Lft>& lfts)
    {
        const std::uint32_t t = d.target;
        const std::uint32_t lid = d.base + k;
        ++stamp_;
        lid_ = lid;
        k_ = k;
        lfts_ = &lfts;
        down_pass(t);
        top_down_pass(t, lfts, lid, d.final_port);
        if (d.counts_as_traffic) count_routes();
    }

    // The counters by place * 256 + port, in and out.
    void preload(const ChannelLoads& in)
    {
        for_each_channel([&](std::uint32_t ch, std::size_t at) {
            load_[ch] = in.load[at];
            usage_[ch] = in.usage[at];
        });
    }
    void export_loads(ChannelLoads& out) const
    {
        out.load.assign(o_.size() * 256, 0);
        out.usage.assign(o_.size() * 256, 0);
        for_each_channel([&](std::uint32_t ch, std::size_t at) {
            out.load[at] = load_[ch];
            out.usage[at] = usage_[ch];
        });
    }

private:
    template <typename Fn>
    void for_each_channel(Fn&& fn) const
    {
        const std::size_t U = o_.up.size();
        for (std::uint32_t p = 0; p < o_.size(); ++p) {
            for (std::uint32_t i = o_.up_first[p]; i < o_.up_first[p + 1]; ++i)
                fn(i, std::size_t{p} * 256 + o_.up[i].port);
            for (std::uint32_t j = o_.down_first[p]; j < o_.down_first[p + 1]; ++j)
                fn(static_cast<std::uint32_t>(U + j), std::size_t{p} * 256 + o_.down[j].port);
        }
    }

    std::uint32_t port_of(std::uint32_t channel) const
    {
        const std::size_t U = o_.up.size();
        return channel < U ? o_.up[channel].port : o_.down[channel - U].port;
    }
    std::uint32_t neighbour_of(std::uint32_t channel) const
    {
        const std::size_t U = o_.up.size();
        return channel < U ? o_.up[channel].neighbour : o_.down[channel - U].neighbour;
    }
    std::uint64_t weight(std::uint32_t channel) const { return one_hop + (global_ ? load_[channel] : 0); }

    // Tie-break key of taking `channel` at switch p: a remote switch already
    // used by an earlier LID of the block, then local use, then the port.
    std::uint64_t tie(std::uint32_t p, std::uint32_t channel) const
    {
        std::uint64_t used = 0;
        if (k_ > 0) {
            const std::uint32_t n = neighbour_of(channel);
            const auto& lft = (*lfts_)[p].port;
            for (std::uint16_t j = 1; j <= k_; ++j) {
                const std::uint8_t port = lft[lid_ - j];
                if (port != no_route && neighbour_of_port_[p * 256 + port] == n) used = 1;
            }
        }
        return (used << 63) | (std::uint64_t{usage_[channel]} << 8) | port_of(channel);
    }

    // Cheapest all-down path of every ancestor of t, pushed from t upward.
    void down_pass(std::uint32_t t)
    {
        down_cost_[t] = 0;
        down_stamp_[t] = stamp_;
        for (std::uint32_t p = t + 1; p-- > 0;) {
            if (down_stamp_[p] != stamp_) continue;
            const std::uint64_t base = down_cost_[p];
            for (std::uint32_t i = o_.up_first[p]; i < o_.up_first[p + 1]; ++i) {
                const std::uint32_t v = o_.up[i].neighbour;
                const std::uint32_t ch = mate_[i]; // v -> p, a down channel of v
                const std::uint64_t c = base + weight(ch);
                if (down_stamp_[v] != stamp_ || c < down_cost_[v] ||
                    (c == down_cost_[v] && tie(v, ch) < down_tie_[v])) {
                    down_stamp_[v] = stamp_;
                    down_cost_[v] = c;
                    down_next_[v] = ch;
                    down_tie_[v] = tie(v, ch);
                }
            }
        }
    }

    void top_down_pass(std::uint32_t t, std::vector<Lft>& lfts, std::uint32_t lid, std::uint8_t final_port)
    {
        const std::size_t S = o_.size();
        for (std::uint32_t p = 0; p < S; ++p) {
            if (p == t) {
                cost_[p] = 0;
                next_[p] = none;
                lfts[p].port[lid] = final_port;
                continue;
            }
            std::uint64_t best = infinite, best_tie = 0;
            std::uint32_t best_ch = none;
            const bool ancestor = down_stamp_[p] == stamp_;
            if (forced_stamp_[p] == stamp_) {
                assert(ancestor); // forced by a switch that went down to it along its all-down path
                best = down_cost_[p];
                best_ch = down_next_[p];
            } else {
                for (std::uint32_t i = o_.up_first[p]; i < o_.up_first[p + 1]; ++i) {
                    const std::uint64_t above = cost_[o_.up[i].neighbour];
                    if (above == infinite) continue;
                    const std::uint64_t c = above + weight(i);
                    if (c > best) continue;
                    const std::uint64_t tb = tie(p, i);
                    if (c < best || tb < best_tie) {
                        best = c;
                        best_tie = tb;
                        best_ch = i;
                    }
                }
                if (ancestor && (down_cost_[p] < best || (down_cost_[p] == best && down_tie_[p] < best_tie))) {
                    best = down_cost_[p];
                    best_ch = down_next_[p];
                }
            }
            cost_[p] = best;
            next_[p] = best_ch;
            if (best_ch == none) continue; // another component: no route
            lfts[p].port[lid] = static_cast<std::uint8_t>(port_of(best_ch));
            if (best_ch >= o_.up.size()) forced_stamp_[neighbour_of(best_ch)] = stamp_;
        }
    }

    // Adds the CA routes of the in-tree to the channels they cross, farthest
    // switches first (a counting sort by hops, descending).
    void count_routes()
    {
        const std::size_t S = o_.size();
        hops_count_.assign(1, 0);
        for (std::uint32_t p = 0; p < S; ++p) {
            acc_[p] = 0;
            if (next_[p] == none) continue;
            const auto h = static_cast<std::size_t>(cost_[p] >> hop_shift);
            if (h >= hops_count_.size()) hops_count_.resize(h + 1, 0);
            ++hops_count_[h];
        }
        hops_start_.assign(hops_count_.size(), 0); // first slot of hop count h
        std::uint32_t slots = 0;
        for (std::size_t h = hops_count_.size(); h-- > 0;) {
            hops_start_[h] = slots;
            slots += hops_count_[h];
        }
        by_hops_.resize(slots);
        for (std::uint32_t p = 0; p < S; ++p)
            if (next_[p] != none) by_hops_[hops_start_[static_cast<std::size_t>(cost_[p] >> hop_shift)]++] = p;
        for (const std::uint32_t p : by_hops_) {
            const std::uint64_t routes = acc_[p] + o_.ca_ports[p];
            const std::uint32_t ch = next_[p];
            load_[ch] += routes;
            ++usage_[ch];
            acc_[neighbour_of(ch)] += routes;
        }
    }

    const Orientation& o_;
    bool global_;
    std::uint16_t max_count_;
    std::vector<std::uint32_t> mate_;
    std::vector<std::uint64_t> load_;
    std::vector<std::uint32_t> usage_;
    std::vector<std::uint64_t> down_cost_, down_tie_;
    std::vector<std::uint32_t> down_next_, down_stamp_, forced_stamp_;
    std::vector<std::uint64_t> cost_;
    std::vector<std::uint32_t> next_;
    std::vector<std::uint64_t> acc_;
    std::vector<std::uint32_t> hops_count_, hops_start_, by_hops_;
    std::vector<std::uint32_t> neighbour_of_port_;
    std::uint32_t stamp_ = 0;
    std::uint32_t lid_ = 0;
    std::uint16_t k_ = 0;
    const std::vector<Lft>* lfts_ = nullptr;
};

} // namespace

namespace updn {

void route_destinations(const Fabric& fabric, const Orientation& o, Balancing balancing,
                        const std::vector<Destination>& dests, const std::vector<std::uint32_t>& order,
                        const std::vector<char>& route_it, std::vector<Lft>& lfts, ChannelLoads& loads)
{
    std::uint16_t max_count = 1;
    for (const auto& d : dests) max_count = std::max(max_count, d.count);
    Router router(fabric, o, balancing, max_count);
    if (!loads.load.empty()) router.preload(loads);
    for (std::uint16_t k = 0; k < max_count; ++k)
        for (std::uint32_t di : order)
            if (route_it[di] && k < dests[di].count && dests[di].target != none) router.route(dests[di], k, lfts);
    router.export_loads(loads);
}

RoutingTables tables_of(const Orientation& o, std::vector<Lft>&& lfts, Lid top)
{
    RoutingTables tables;
    tables.engine = "updn";
    tables.linear_fdb_top = top;
    // Seed 004: every pair, switch LIDs included, on up-then-down paths, so
    // switch traffic cannot close a credit loop either; the gate holds it to that.
    tables.switch_to_switch = true;
    for (std::size_t p = 0; p < o.size(); ++p) tables.lfts.emplace(o.switches[p], std::move(lfts[p]));
    return tables;
}

} // namespace updn

Result UpdnEngine::compute(const Fabric& fabric, const lidassign::LidMap& lids, const Options& options) const
{
    return compute_after(fabric, lids, options, nullptr).result;
}

} // namespace ibsm::routing
