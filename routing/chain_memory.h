// What the chain keeps from one routing to the next: the daemon's Bringup
// owns one across sweeps and hands it to run_chain (chain.h); `ibsm route`
// and the what-if planner pass none and get the full gate.
//
// The gate's part (GateMemory, incremental_gate.h): the routing it verified
// last, so that after a re-route it traces again only the destinations
// whose routes can have changed.
#pragma once

#include "routing/incremental_gate.h"

namespace ibsm::routing {

struct ChainMemory {
    GateMemory gate;
};

} // namespace ibsm::routing
