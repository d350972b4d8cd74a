// P-SSSP routing (see header).
#include "routing/sssp.h"

#include "routing/guid_roles.h"
#include "routing/tree_flow.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>

namespace ibsm::routing {

// OpenSM's dfsssp order: CA ports grouped by their switch (more CAs first,
// then switch index, then port), then the switches' own LIDs in the same
// switch order; with GUID files, the guid_routing_order_file's ports first
// and the CA ports by class (compute, I/O, rest: guid_roles.h). Unconnected
// ports are left out.
std::vector<std::uint32_t> sssp_routing_order(const SwitchGraph& g, const Options& options)
{
    const GuidRoles roles(options);
    const auto& dests = g.destinations;
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < dests.size(); ++i)
        if (dests[i].target >= 0) order.push_back(i);
    auto key = [&](std::uint32_t i) {
        const auto& d = dests[i];
        const auto t = static_cast<std::size_t>(d.target);
        return std::tuple<std::size_t, int, std::uint32_t, std::size_t, std::uint8_t>{
            roles.position(d.port_guid), d.is_switch ? 3 : roles.class_of(d.port_guid),
            std::numeric_limits<std::uint32_t>::max() - g.hosts[t], t, d.final_port};
    };
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    return order;
}

namespace {

class Router {
public:
    explicit Router(SsspRoutes& r)
        : g_(r.graph), out_(r.out_port), weight_(g_.channel_count(), 0), cost_(g_.size()), next_(g_.size()),
          load_(g_.size())
    {
    }

    void route(std::uint32_t lid, std::size_t t, std::uint8_t final_port)
    {
        if (t != cached_) collect_candidates(t);
        const std::size_t S = g_.size();
        const std::uint32_t* order = g_.nearest_first(t);
        const std::uint32_t n = g_.reaching(t);
        std::uint8_t* column = &out_[static_cast<std::size_t>(lid) * S];
        column[t] = final_port;
        cost_[t] = 0;
        for (std::uint32_t i = 1; i < n; ++i) {
            const std::uint32_t u = order[i];
            std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
            std::uint32_t chosen = no_channel;
            for (std::uint32_t k = cand_first_[i]; k < cand_first_[i + 1]; ++k) {
                const std::uint64_t x = cost_[cand_head_[k]] + weight_[cand_[k]];
                if (x < best) {
                    best = x;
                    chosen = cand_[k];
                }
            }
            cost_[u] = best;
            next_[u] = chosen;
            column[u] = g_.out_port[chosen];
        }
        // Each switch's sources (and all it forwards) cross its chosen link.
        add_tree_loads(g_, {order, n}, [&](std::uint32_t u) { return next_[u]; }, g_.hosts, load_, weight_);
    }

    // The channel weights by switch * 256 + port, in and out.
    void preload(const std::vector<std::uint64_t>& in)
    {
        for (std::size_t s = 0; s < g_.size(); ++s)
            for (std::uint32_t c = g_.first[s]; c < g_.first[s + 1]; ++c) weight_[c] = in[s * 256 + g_.out_port[c]];
    }
    void export_weights(std::vector<std::uint64_t>& out) const
    {
        out.assign(g_.size() * 256, 0);
        for (std::size_t s = 0; s < g_.size(); ++s)
            for (std::uint32_t c = g_.first[s]; c < g_.first[s + 1]; ++c) out[s * 256 + g_.out_port[c]] = weight_[c];
    }

private:
    // The channels of every switch to switches one hop nearer t, in channel
    // order, by position in nearest_first(t). They depend on t alone, and
    // the CAs of one switch (the LIDs routed one after the other) share t,
    // so they are collected once per switch instead of once per LID.
    void collect_candidates(std::size_t t)
    {
        const std::uint8_t* hops = g_.hops_to(t);
        const std::uint32_t* order = g_.nearest_first(t);
        const std::uint32_t n = g_.reaching(t);
        cand_first_.assign(2, 0);
        cand_.clear();
        cand_head_.clear();
        for (std::uint32_t i = 1; i < n; ++i) {
            const std::uint32_t u = order[i];
            const std::uint8_t nearer = static_cast<std::uint8_t>(hops[u] - 1);
            for (std::uint32_t c = g_.first[u]; c < g_.first[u + 1]; ++c)
                if (hops[g_.head[c]] == nearer) {
                    cand_.push_back(c);
                    cand_head_.push_back(g_.head[c]);
                }
            cand_first_.push_back(static_cast<std::uint32_t>(cand_.size()));
        }
        cached_ = t;
    }

    const SwitchGraph& g_;
    std::vector<std::uint8_t>& out_;
    std::vector<std::uint64_t> weight_;
    std::vector<std::uint64_t> cost_;
    std::vector<std::uint32_t> next_;
    std::vector<std::uint64_t> load_;
    std::size_t cached_ = SIZE_MAX;         // the t of cand_first_ / cand_
    std::vector<std::uint32_t> cand_first_; // by position i in nearest_first(t): cand_[cand_first_[i]..[i+1])
    std::vector<std::uint32_t> cand_;
    std::vector<std::uint32_t> cand_head_; // g_.head of cand_
};

} // namespace

void route_sssp_destinations(SsspRoutes& r, const std::vector<std::uint32_t>& order,
                             const std::vector<char>& route_it, std::vector<std::uint64_t>* weights)
{
    Router router(r);
    if (weights && !weights->empty()) router.preload(*weights);
    for (std::uint32_t i : order)
        if (route_it[i]) {
            const auto& d = r.graph.destinations[i];
            for (std::uint32_t k = 0; k < d.count; ++k)
                router.route(d.base + k, static_cast<std::size_t>(d.target), d.final_port);
        }
    if (weights) router.export_weights(*weights);
}

SsspRoutes compute_sssp(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Options& options)
{
    SsspRoutes r;
    r.graph = build_switch_graph(fabric, lids);
    r.out_port.assign(static_cast<std::size_t>(r.graph.lid_limit) * r.graph.size(), no_route);
    route_sssp_destinations(r, sssp_routing_order(r.graph, options), std::vector<char>(r.graph.destinations.size(), 1));
    return r;
}

RoutingTables sssp_tables(const SsspRoutes& routes, std::string engine, Lid top)
{
    RoutingTables tables;
    tables.engine = std::move(engine);
    tables.linear_fdb_top = top;
    const std::size_t S = routes.graph.size();
    const std::uint32_t L = routes.graph.lid_limit;
    std::vector<Lft> lfts(S);
    for (auto& lft : lfts) lft.port.resize(L);
    // A transpose of the LID-major matrix, in blocks of LIDs so that the
    // columns being read stay in cache while every switch's row takes them.
    constexpr std::uint32_t block = 64;
    for (std::uint32_t first = 0; first < L; first += block) {
        const std::uint32_t last = std::min(L, first + block);
        for (std::size_t s = 0; s < S; ++s) {
            std::uint8_t* row = lfts[s].port.data();
            for (std::uint32_t lid = first; lid < last; ++lid)
                row[lid] = routes.out_port[static_cast<std::size_t>(lid) * S + s];
        }
    }
    for (std::size_t s = 0; s < S; ++s) tables.lfts.emplace(routes.graph.switches[s], std::move(lfts[s]));
    return tables;
}

Result SsspEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                               const Options& options) const
{
    return compute_after(fabric, lids, options, nullptr).result;
}

} // namespace ibsm::routing
