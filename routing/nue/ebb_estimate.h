// The analyzer's EBB estimate of candidate tables (seed 001 §IV-A, the
// figure `ibsm analyze` prints), for nue to keep the best of several
// routings it tried (issue 35).
//
// Why: whether Up*/Down*-shaped escape routes or the paper's tree serve a
// fabric better depends on the fabric (tree-like or not), and the routings
// differ by a few percent, less than any structural rule predicts. Scoring
// each candidate the way the benchmarks score the result decides by what is
// measured. Only the part of the analyzer that the EBB needs runs: the CA
// destinations traced into the path table, then random bisections; no
// connectivity counts, CDG or shifts (those are the gate's and analyze's).
//
// Data structures and algorithm: analysis::Network with the LidMap's LIDs
// (the fabric given to an engine carries none), one DestinationTree per
// worker, analysis::PathTable, analysis::effective_bisection_bandwidth.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <cstdint>
#include <string>

namespace ibsm::routing::nue {

double estimate_ebb(const topology::Fabric& fabric, const lidassign::LidMap& lids, const RoutingTables& tables,
                    unsigned bisections, std::uint32_t seed);

// An estimate as the notes print it: four decimals, as `ibsm analyze` does.
std::string fixed4(double v);

} // namespace ibsm::routing::nue
