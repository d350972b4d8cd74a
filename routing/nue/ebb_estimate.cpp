// EBB estimate of candidate tables (see header).
#include "routing/nue/ebb_estimate.h"

#include "common/parallel_for.h"
#include "routing/analysis/congestion.h"
#include "routing/analysis/ebb.h"
#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"

#include <cstdio>
#include <memory>
#include <vector>

namespace ibsm::routing::nue {

namespace a = analysis;

double estimate_ebb(const topology::Fabric& fabric, const lidassign::LidMap& lids, const RoutingTables& tables,
                    unsigned bisections, std::uint32_t seed)
{
    std::vector<a::PortLids> port_lids;
    for (const auto& [port, pl] : lids.entries()) port_lids.push_back(a::PortLids{port, pl.base, pl.lmc});
    const a::Network net(fabric, tables, std::move(port_lids));
    std::vector<std::uint32_t> dests;
    for (std::uint32_t l = 1; l < net.lid_table_size(); ++l)
        if (net.lid_owner(l) >= 0 && !net.endpoint(net.lid_owner(l)).is_switch) dests.push_back(l);
    const auto workers = static_cast<unsigned>(
        std::min<std::size_t>(common::worker_count(0), std::max<std::size_t>(dests.size(), 1)));
    std::vector<std::unique_ptr<a::DestinationTree>> trees;
    for (unsigned w = 0; w < workers; ++w) trees.push_back(std::make_unique<a::DestinationTree>());
    a::PathTable paths(net);
    common::parallel_for(dests.size(), workers, [&](std::size_t i, unsigned w) {
        a::trace_destination(net, dests[i], *trees[w]);
        paths.add(*trees[w]);
    });
    const a::FlowEvaluator eval(net, paths);
    a::EbbOptions o;
    o.bisections = bisections;
    o.seed = seed;
    return a::effective_bisection_bandwidth(eval, net.hosts_by_name(), o, 0).ebb;
}

std::string fixed4(double v)
{
    char b[16];
    std::snprintf(b, sizeof b, "%.4f", v);
    return b;
}

} // namespace ibsm::routing::nue
