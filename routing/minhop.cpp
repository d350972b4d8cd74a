// MinHop routing (OpenSM's default engine, re-derived).
//
// Why: the engine of last resort. It routes any connected fabric along least
// hop paths, with no topology assumptions, so every chain can end with it.
//
// Data structures:
// - switches get dense indices; `hops[s]` lists the usable inter-switch
//   links of switch s (out port, neighbour index, neighbour node/system GUID);
// - `dist`, an S x S byte matrix of switch-to-switch hop counts (255 =
//   unreachable). Links are usable only when both ends are, so the graph is
//   undirected and dist is symmetric: row n holds n's distance to every
//   target, which keeps the candidate scan below cache-friendly;
// - per switch, the least-hop candidate links towards every target switch
//   in one flat array (offsets per target), built once per switch;
// - per switch, the number of CA/router LIDs already routed through each port.
//
// Algorithm: one BFS per switch fills dist (O(S * E)). Then, switch by
// switch, LIDs are routed in OpenSM's order (LMC offset outermost; the ports
// of the guid_routing_order_file first, in its order; then end ports
// grouped by their leaf switch, busiest leaves first; switch LIDs last). The
// LFT entry is the least-hop port with, in this order of preference, a remote
// system, then a remote node, not yet used by the other LIDs of the same LMC
// block; then the fewest routes so far; then the first port in round-robin
// order after the one the previous LID of the block took (lowest port for
// the base LID). This is OpenSM's minhop choice rule; like OpenSM, switch LIDs
// are routed but not counted, since they carry no data traffic. A
// destination's own switch forwards to the CA's port (port 0 for its own
// LIDs). Cost O(S * (S * P + LIDs * candidates)); switches are independent,
// so they are spread over threads (common/parallel_for.h) — results do not
// depend on the split.
#include "routing/minhop.h"

#include "routing/minhop_state.h"

#include "common/parallel_for.h"
#include "routing/guid_roles.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>

namespace ibsm::routing {

using topology::Fabric;
using topology::NodeId;
using topology::PortRef;

bool port_usable(const topology::Port& port)
{
    return port.known && port.state != topology::PortState::down;
}

bool link_usable(const Fabric& fabric, PortRef end)
{
    const auto& p = fabric.port(end);
    return p.remote && port_usable(p) && port_usable(fabric.port(*p.remote));
}

namespace minhop {

Graph build_graph(const Fabric& fabric, std::vector<std::int64_t>& index)
{
    Graph g;
    index.assign(fabric.node_count(), -1);
    for (auto id : fabric.node_ids())
        if (fabric.node(id).is_switch()) {
            index[id.value] = static_cast<std::int64_t>(g.switches.size());
            g.switches.push_back(id);
        }
    const std::size_t S = g.switches.size();
    g.hops.resize(S);
    for (std::size_t s = 0; s < S; ++s) {
        const auto& node = fabric.node(g.switches[s]);
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            PortRef ref{g.switches[s], PortNum(static_cast<std::uint8_t>(p))};
            if (!link_usable(fabric, ref)) continue;
            const PortRef peer = *node.ports[p].remote;
            const auto& pn = fabric.node(peer.node);
            if (!pn.is_switch()) continue;
            g.hops[s].push_back(Hop{static_cast<std::uint8_t>(p), static_cast<std::uint32_t>(index[peer.node.value]),
                                    pn.guid, pn.system_guid});
        }
    }

    g.dist.assign(S * S, unreachable);
    std::vector<std::uint32_t> queue(S);
    for (std::size_t src = 0; src < S; ++src) {
        std::uint8_t* row = &g.dist[src * S];
        std::size_t head = 0, tail = 0;
        row[src] = 0;
        queue[tail++] = static_cast<std::uint32_t>(src);
        while (head < tail) {
            const std::uint32_t u = queue[head++];
            if (row[u] >= unreachable - 1) continue;
            for (const Hop& h : g.hops[u])
                if (row[h.neighbour] == unreachable) {
                    row[h.neighbour] = static_cast<std::uint8_t>(row[u] + 1);
                    queue[tail++] = h.neighbour;
                }
        }
    }
    return g;
}

std::vector<Destination> destinations(const Fabric& fabric, const lidassign::LidMap& lids,
                                      const std::vector<std::int64_t>& index)
{
    std::vector<Destination> out;
    for (const auto& [ref, pl] : lids.entries()) {
        Destination d;
        d.base = pl.base.value();
        d.count = pl.count();
        d.port_guid = fabric.port(ref).guid;
        const auto& node = fabric.node(ref.node);
        if (node.is_switch()) {
            d.target = index[ref.node.value];
            d.final_port = 0;
            d.counts_as_traffic = false;
        } else if (link_usable(fabric, ref)) {
            const PortRef peer = *fabric.port(ref).remote;
            if (fabric.node(peer.node).is_switch()) {
                d.target = index[peer.node.value];
                d.final_port = peer.port.value();
            }
        }
        out.push_back(d);
    }
    return out;
}

// OpenSM's routing order: end ports grouped by the switch they hang off
// (switches with more end ports first, then node order; within a switch by
// port number), then everything else (switch LIDs, unreachable ports) in LID
// order. Routing a leaf's hosts consecutively spreads them evenly over its
// uplinks, which is what makes MinHop tolerable on fat-trees. The ports of
// the guid_routing_order_file come before all of them, in the file's order
// (ucast_mgr_build_lfts).
std::vector<std::uint32_t> routing_order(const std::vector<Destination>& dests, const Graph& g,
                                         const GuidRoles& roles)
{
    std::vector<std::uint32_t> end_ports(g.size(), 0);
    for (std::size_t i = 0; i < dests.size(); ++i)
        if (dests[i].counts_as_traffic && dests[i].target >= 0) ++end_ports[static_cast<std::size_t>(dests[i].target)];
    std::vector<std::size_t> order(dests.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto rank = [&](std::size_t i) {
        // (group, switch order key, port or LID) — smaller first.
        const Destination& d = dests[i];
        if (!d.counts_as_traffic || d.target < 0)
            return std::tuple<int, std::uint64_t, std::uint64_t>{1, 0, d.base};
        const auto t = static_cast<std::size_t>(d.target);
        const std::uint64_t sw_key = (std::uint64_t{~end_ports[t]} << 32) | g.switches[t].value;
        return std::tuple<int, std::uint64_t, std::uint64_t>{0, sw_key, d.final_port};
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto pa = roles.position(dests[a].port_guid), pb = roles.position(dests[b].port_guid);
        if (pa != pb) return pa < pb;
        return rank(a) < rank(b);
    });
    return {order.begin(), order.end()};
}

} // namespace minhop

namespace {

using namespace minhop;

class SwitchRouter {
public:
    SwitchRouter(const Graph& g, const std::vector<Destination>& dests, const std::vector<std::uint32_t>& order,
                 std::uint16_t max_count)
        : g_(g), dests_(dests), order_(order), max_count_(max_count)
    {
    }

    void route(std::size_t s, Lft& lft)
    {
        const std::size_t S = g_.size();
        const auto& hops = g_.hops[s];
        std::uint8_t max_port = 0;
        for (const Hop& h : hops) max_port = std::max(max_port, h.port);
        load_.assign(static_cast<std::size_t>(max_port) + 1, 0);

        // Least-hop candidate links towards every target switch.
        offset_.assign(S + 1, 0);
        cand_.clear();
        const std::uint8_t* mine = &g_.dist[s * S];
        for (std::size_t t = 0; t < S; ++t) {
            offset_[t] = static_cast<std::uint32_t>(cand_.size());
            if (t == s || mine[t] == unreachable) continue;
            for (std::size_t i = 0; i < hops.size(); ++i)
                if (g_.d(hops[i].neighbour, t) + 1 == mine[t]) cand_.push_back(static_cast<std::uint16_t>(i));
        }
        offset_[S] = static_cast<std::uint32_t>(cand_.size());

        if (max_count_ > 1) {
            used_nodes_.assign(dests_.size() * max_count_, Guid());
            used_systems_.assign(dests_.size() * max_count_, Guid());
        }
        // LID offset outermost, as OpenSM: the k-th LIDs of all ports are
        // spread before any port gets its (k+1)-th.
        for (std::uint16_t k = 0; k < max_count_; ++k)
            for (std::uint32_t di : order_) route_lid(s, lft, di, k);
    }

private:
    void route_lid(std::size_t s, Lft& lft, std::uint32_t di, std::uint16_t k)
    {
        const Destination& d = dests_[di];
        if (k >= d.count || d.target < 0) return;
        const std::uint32_t lid = d.base + k;
        const auto t = static_cast<std::size_t>(d.target);
        if (t == s) {
            lft.port[lid] = d.final_port;
            return;
        }
        const std::uint32_t first = offset_[t], last = offset_[t + 1];
        if (first == last) return; // unreachable: stays no_route

        const Guid* nodes = max_count_ > 1 ? &used_nodes_[static_cast<std::size_t>(di) * max_count_] : nullptr;
        const Guid* systems = max_count_ > 1 ? &used_systems_[static_cast<std::size_t>(di) * max_count_] : nullptr;
        // For the k-th LID, ties go round-robin from the port after the one
        // the (k-1)-th LID took (OpenSM's start_from).
        const std::uint8_t start = k == 0 ? 1 : static_cast<std::uint8_t>(lft.port[lid - 1] + 1);
        const Hop* best = nullptr;
        std::uint64_t best_key = std::numeric_limits<std::uint64_t>::max();
        for (std::uint32_t c = first; c < last; ++c) {
            const Hop& h = hops_of(s)[cand_[c]];
            const bool sys_used = k > 0 && std::find(systems, systems + k, h.system_guid) != systems + k;
            const bool node_used = k > 0 && std::find(nodes, nodes + k, h.node_guid) != nodes + k;
            // Lexicographic (system used, node used, load, cyclic port order) in one integer.
            const std::uint64_t key = (std::uint64_t{sys_used} << 63) | (std::uint64_t{node_used} << 62) |
                                      (std::uint64_t{load_[h.port]} << 8) |
                                      static_cast<std::uint8_t>(h.port - start);
            if (key < best_key) {
                best_key = key;
                best = &h;
            }
        }
        lft.port[lid] = best->port;
        if (d.counts_as_traffic) ++load_[best->port];
        if (max_count_ > 1) {
            used_nodes_[static_cast<std::size_t>(di) * max_count_ + k] = best->node_guid;
            used_systems_[static_cast<std::size_t>(di) * max_count_ + k] = best->system_guid;
        }
    }

    const std::vector<Hop>& hops_of(std::size_t s) const { return g_.hops[s]; }

    const Graph& g_;
    const std::vector<Destination>& dests_;
    const std::vector<std::uint32_t>& order_;
    std::uint16_t max_count_;
    std::vector<std::uint32_t> load_;
    std::vector<std::uint32_t> offset_;
    std::vector<std::uint16_t> cand_;
    std::vector<Guid> used_nodes_;
    std::vector<Guid> used_systems_;
};

} // namespace

namespace minhop {

RoutingTables route_full(const Graph& g, const std::vector<Destination>& dests,
                         const std::vector<std::uint32_t>& order, Lid top, const Options& options)
{
    std::uint16_t max_count = 1;
    for (const auto& d : dests) max_count = std::max(max_count, d.count);

    RoutingTables tables;
    tables.linear_fdb_top = top;
    const std::size_t S = g.size();
    std::vector<Lft> lfts(S);
    for (auto& lft : lfts) lft.port.assign(static_cast<std::size_t>(top.value()) + 1, no_route);

    // Switches are independent; below 64 of them threads cost more than
    // they save. A router is a worker's scratch, set afresh per switch.
    const unsigned threads = S < 64 ? 1 : 0;
    analysis::StageProgress progress(options.progress, "route", S);
    std::vector<SwitchRouter> routers(common::worker_count(threads), SwitchRouter(g, dests, order, max_count));
    common::parallel_for(S, threads, [&](std::size_t s, unsigned w) {
        routers[w].route(s, lfts[s]);
        progress.tick();
    });

    for (std::size_t s = 0; s < S; ++s) tables.lfts.emplace(g.switches[s], std::move(lfts[s]));
    return tables;
}

} // namespace minhop

Result MinHopEngine::compute(const Fabric& fabric, const lidassign::LidMap& lids, const Options& options) const
{
    return compute_after(fabric, lids, options, nullptr).result;
}

} // namespace ibsm::routing
