// `dfsssp-or-nue`: the default chain's engine off fat-trees (issue 35):
// dfsssp when its layers fit the VL budget without an escape layer and its
// tables score at least as well as nue's, nue otherwise.
//
// Why: where dfsssp's layers fit, its routes are sssp's minimal, globally
// balanced ones and usually the best a destination-based routing gets; but
// not always: on tori minus a few links and on the chain of trees at 4 VLs
// nue's search balanced better (table in docs/routing.md, "The default
// chain"). Where they do not fit, dfsssp's escape layer carries the
// overflow on one VL and nue, routing inside every layer, is ahead. So the
// rule: no fit, nue; a fit, the better of the two by the analyzer's EBB
// estimate (nue/ebb_estimate.h), dfsssp on a tie (minimal paths). Above
// NueEngine::compare_host_limit hosts the estimate is skipped and a fit
// means dfsssp.
//
// Data structures: none of its own; the two engines' tables.
//
// Algorithm: dfsssp with the options' budget and no escape layer (it
// refuses when its layers do not fit); then nue and the two estimates. The tables keep the name of the engine
// that made them (the chain keeps that name, chain.cpp), with a note
// saying why.
#pragma once

#include "routing/engine.h"

namespace ibsm::routing {

class DfssspOrNueEngine final : public Engine {
public:
    std::string name() const override { return "dfsssp-or-nue"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
};

} // namespace ibsm::routing
