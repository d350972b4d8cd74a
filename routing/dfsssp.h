// `dfsssp`: sssp's balanced minimal routes made deadlock-free with virtual
// layers, seed 001 §III-D; OpenSM's dfsssp (same authors) is the working
// reference for the layering.
//
// Why: sssp balances well on any fabric but its routes close credit loops on
// rings, tori, random and degraded fabrics, and on trees once switches send
// (U-turns at leaves). Giving every (source port, destination LID) pair a
// service level that maps to a VL whose routes have an acyclic channel
// dependency graph keeps sssp's paths and removes the deadlock risk.
//
// Data structures: the routes (sssp.h), the layer of every (source switch,
// destination LID) unit (virtual_layers.h), and the SL of every (source
// port, destination LID) pair in the dense routing::SlTable (4 bits a pair).
//
// Algorithm:
// 1. sssp's routes; 2. layers with acyclic CDGs, switch traffic included
//    (every CA port and every switch's port 0 is a source), up to 15;
// 3. more layers than Options::max_vls (an 8x8 torus needs 11 of 8): the
//    last VL becomes an escape layer for what does not fit
//    (dfsssp_escape.h), with a note saying how much; never tables with a
//    credit loop;
// 4. spare VLs go, one at a time, to the layer with the most pairs per VL
//    (OpenSM's balancing); a layer owning k VLs spreads its pairs over them
//    by (source row + LID) mod k, deterministically where OpenSM draws at
//    random on every query. Any subset of an acyclic layer is acyclic.
// SL = VL (identity SL2VL over vls_used VLs); layers_needed tells the count
// before spreading.
#pragma once

#include "routing/engine.h"

namespace ibsm::routing {

class DfssspEngine final : public Engine {
public:
    // escape_layer false: refuse instead of step 3 (dfsssp_or_nue.h asks so).
    explicit DfssspEngine(bool escape_layer = true) : escape_layer_(escape_layer) {}
    std::string name() const override { return "dfsssp"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;

private:
    bool escape_layer_;
};

} // namespace ibsm::routing
