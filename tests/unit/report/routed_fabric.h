// Test and benchmark support: a generated fabric made healthy (every cabled
// port ACTIVE), given base LIDs and routed by one engine, as the report's
// tests and link_loads_bench need it before analysing.
#pragma once

#include "lidassign/base_lids.h"
#include "routing/registry.h"
#include "topology/fabric.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace ibsm::report::test {

struct Routed {
    topology::Fabric fabric;
    routing::RoutingTables tables;
};

// Throws std::runtime_error with the engine's reason when it refuses.
inline Routed route_fabric(const std::string& engine, topology::Fabric f)
{
    for (auto id : f.node_ids())
        for (auto& port : f.node(id).ports) {
            port.known = true;
            port.state = port.remote ? topology::PortState::active : topology::PortState::down;
        }
    auto lids = lidassign::assign_base_lids(f, {}, {}).lids;
    lidassign::apply_lids(lids, f);
    auto r = routing::default_registry().create(engine)->compute(f, lids, routing::Options{});
    if (auto* refusal = std::get_if<routing::Refusal>(&r))
        throw std::runtime_error(refusal->engine + ": " + refusal->reason);
    return Routed{std::move(f), std::get<routing::RoutingTables>(std::move(r))};
}

} // namespace ibsm::report::test
