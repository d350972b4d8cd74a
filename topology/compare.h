// Compares two fabrics by identity (node GUIDs, port numbers), not by NodeId:
// the same fabric seen by two tools (our discovery, ibnetdiscover) numbers
// its nodes differently. Used to check discovery against infiniband-diags and
// by operators to see what changed between two sweeps.
#pragma once

#include "topology/fabric.h"

#include <string>
#include <vector>

namespace ibsm::topology {

struct FabricDiff {
    // One readable line per difference, e.g.
    // "node 0x...0012 (sw-L1-0003): only in B", "link 0x..[3] <-> 0x..[1]: only in A".
    std::vector<std::string> differences;
    std::size_t nodes_a = 0, nodes_b = 0, links_a = 0, links_b = 0;
    bool equal() const { return differences.empty(); }
};

// Nodes are equal when GUID, type and port count match; links when both ends
// (node GUID, port number) match. Descriptions are compared only when
// `compare_descriptions` (ibnetdiscover and ibsim both carry them).
FabricDiff compare(const Fabric& a, const Fabric& b, bool compare_descriptions = true);

} // namespace ibsm::topology
