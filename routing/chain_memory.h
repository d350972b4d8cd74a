// What the chain keeps from one routing to the next, so a re-route can
// start from the last verified routing instead of routing afresh
// (docs/routing.md, "Re-route"). The daemon owns one across sweeps
// (daemon/sweep/bringup.h) and forgets it on a configuration reload;
// `ibsm` passes none.
//
// Why: an engine that knows its last tables, the fabric they were made for
// and its own state can recompute only what a delta changes
// (routing/incremental.h). The chain decides when that is allowed: the same
// engine, the same options, the same LID for every port both fabrics have.
// Anything else is a full run, and the route phase's log says which and why.
//
// The gate's part (GateMemory, incremental_gate.h): the routing it verified
// last, so that after a re-route it traces again only the destinations
// whose routes can have changed. Both parts share the one copy of the
// fabric and of the kept tables.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/incremental.h"
#include "routing/incremental_gate.h"
#include "routing/tables.h"
#include "topology/fabric.h"
#include "topology/fabric_delta.h"

#include <memory>
#include <string>

namespace ibsm::routing {

struct ChainMemory {
    // The last routing that passed the gate (all null before the first, and
    // after a routing none of whose tables passed).
    std::shared_ptr<const topology::Fabric> fabric; // as routed: isolated links left out
    std::shared_ptr<const lidassign::LidMap> lids;
    std::shared_ptr<const RoutingTables> tables;
    std::shared_ptr<const EngineMemory> engine_state; // the winning engine's
    std::string options_key;                          // chain.cpp: the Options that shape routes

    // Set by every run_chain with this memory: the delta from the last
    // routing (empty when there was none) and whether it was used.
    topology::FabricDelta delta;

    GateMemory gate;

    // Everything but the gate's cross_check setting.
    void forget()
    {
        gate.state.reset();
        fabric.reset();
        lids.reset();
        tables.reset();
        engine_state.reset();
        options_key.clear();
        delta = {};
    }
};

} // namespace ibsm::routing
