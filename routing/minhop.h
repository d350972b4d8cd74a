// MinHop: least-hop routing to every LID, balanced locally per switch.
// The engine every fallback chain ends with; it never refuses.
#pragma once

#include "routing/engine.h"
#include "topology/fabric.h"

namespace ibsm::routing {

// A link is usable for routing when both ends answered (Port::known) and
// neither end is DOWN. INIT/ARMED count as usable: routes are computed before
// the SM brings ports to ACTIVE.
bool port_usable(const topology::Port& port);
bool link_usable(const topology::Fabric& fabric, topology::PortRef end);

class MinHopEngine final : public Engine {
public:
    std::string name() const override { return "minhop"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
    // Re-chooses only the entries whose least-hop candidates or delivery
    // changed (minhop_state.h, minhop_reroute.cpp).
    EngineRun compute_after(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                            const Previous* previous) const override;
};

} // namespace ibsm::routing
