// Per-pair paths read off destination-based tables: each (source, CA
// destination) pair's path is the walk of the LFTs from the source's switch
// toward the destination's base LID.
//
// Why: it turns any destination-based engine (MinHop, Up*/Down*, ...) into
// a path set, so the LID-assignment stage and the path file can be used and
// tested without a path engine, and it is seed 002 §5.2's "fully explicit"
// row: all paths to a destination form one tree, so every destination needs
// exactly one configuration (one LID) — the baseline the path engines'
// LID counts and link loads are compared with.
//
// Sources: every CA/router port with a LID and a switch at the end of its
// cable, and every switch (port 0), so switches also get a DLID for every
// CA. Destinations: every CA/router port with a LID.
//
// Pure: no I/O.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/engine.h"
#include "routing/tables.h"
#include "topology/fabric.h"
#include "topology/pair_paths.h"

#include <variant>

namespace ibsm::routing::paths {

// Refuses, naming the first pair, when a walk is dropped or loops.
std::variant<topology::PairPaths, Refusal> paths_from_tables(const topology::Fabric& fabric,
                                                             const lidassign::LidMap& lids,
                                                             const RoutingTables& tables);

} // namespace ibsm::routing::paths
