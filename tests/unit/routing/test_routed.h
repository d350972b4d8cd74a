// Routing one engine over a generated fabric the way the SM would (base
// LIDs assigned and written into the ports so the analyzer sees them), and
// judging the result with the route-quality analyzer: shared by the sssp,
// dfsssp and nue tests.
#pragma once

#include "lidassign/base_lids.h"
#include "routing/analysis/analyze.h"
#include "routing/engine.h"

#include <catch2/catch.hpp>

namespace ibsm::test {

struct Routed {
    topology::Fabric fabric;
    lidassign::LidMap lids;
    routing::RoutingTables tables;
};

inline routing::Result run(const routing::Engine& engine, const topology::Fabric& f, const lidassign::LidMap& lids,
                           std::uint8_t max_vls = 8)
{
    routing::Options o;
    o.max_vls = max_vls;
    return engine.compute(f, lids, o);
}

// A refusal fails the test.
inline Routed route(const routing::Engine& engine, topology::Fabric f, std::uint8_t lmc = 0,
                    std::uint8_t max_vls = 8)
{
    lidassign::BaseLidOptions lo;
    lo.lmc = lmc;
    auto lids = lidassign::assign_base_lids(f, {}, lo).lids;
    lidassign::apply_lids(lids, f);
    auto r = run(engine, f, lids, max_vls);
    if (auto* refusal = std::get_if<routing::Refusal>(&r)) FAIL(refusal->engine << ": " << refusal->reason);
    return {std::move(f), std::move(lids), std::get<routing::RoutingTables>(std::move(r))};
}

// Reachability and credit loops (switch traffic included), no EBB or shifts.
inline routing::analysis::Report analyze(const Routed& r)
{
    routing::analysis::Options o;
    o.run_ebb = false;
    o.run_shifts = false;
    o.threads = 1;
    return routing::analysis::analyze(r.fabric, r.tables, o);
}

inline bool same_lfts(const routing::RoutingTables& a, const routing::RoutingTables& b)
{
    if (a.lfts.size() != b.lfts.size()) return false;
    for (const auto& [sw, lft] : a.lfts) {
        auto it = b.lfts.find(sw);
        if (it == b.lfts.end() || it->second.port != lft.port) return false;
    }
    return true;
}

} // namespace ibsm::test
