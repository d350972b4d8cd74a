// What an engine may start from when it re-routes a delta instead of
// routing the fabric afresh (docs/routing.md, "Re-route").
//
// Why: one pulled cable changes the routes of a few destinations, but a
// full run recomputes every switch x LID entry (88 million at 27 648 hosts).
// An engine that can tell which entries a delta may change recomputes only
// those, starting from its last verified tables; one that cannot runs in
// full and says so.
//
// Data structures: `EngineMemory` is an engine's own state from its last
// run (D-Mod-K keeps its per-switch port slots, reach bitsets and per-LID
// chains, routing/fattree/dmodk_state.h); `Previous` is everything of the
// last verified routing an engine may read. Both are immutable once made.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/tables.h"
#include "topology/fabric.h"
#include "topology/fabric_delta.h"

#include <memory>
#include <string>

namespace ibsm::routing {

// An engine's private state kept from one run to the next (the engine casts
// it back to its own type; another engine's state is never handed to it).
struct EngineMemory {
    virtual ~EngineMemory() = default;
};

// The last verified routing by the same engine, with the same options and
// the same LID for every port both fabrics have.
struct Previous {
    const topology::Fabric& fabric;
    const lidassign::LidMap& lids;
    const RoutingTables& tables;
    const EngineMemory* state; // null when the engine kept none
    const topology::FabricDelta& delta;
};

} // namespace ibsm::routing
