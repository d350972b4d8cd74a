// A copy of a Fabric without some of its nodes (and their cables).
//
// Why: a Fabric never removes nodes (NodeIds stay stable for its lifetime),
// so generators that take nodes away build a new Fabric instead. Everything
// else about the kept nodes is copied (except the link rate of ports whose
// cable went with a dropped node); their relative order is kept, but
// their NodeIds are renumbered.
#pragma once

#include "topology/fabric.h"

#include <vector>

namespace ibsm::topology {

// `drop[id]` true removes node id; drop.size() must equal node_count().
Fabric without_nodes(const Fabric& fabric, const std::vector<bool>& drop);

} // namespace ibsm::topology
