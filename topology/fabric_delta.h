// What changed between two fabrics of one subnet, by identity: node GUIDs and
// port numbers, never NodeIds. Nodes are numbered by GUID, so a node that
// leaves shifts the index of every node after it; a re-route that maps its
// last routing onto the new fabric must go by GUID.
//
// Why here: the re-route (routing/chain.h with a ChainMemory) needs the
// delta to decide whether an engine may start from its last routing, and
// the daemon names it in the route phase's log line. Pure: two fabrics in,
// a value out.
#pragma once

#include "topology/fabric.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::topology {

// One end of a link by identity.
struct PortKey {
    Guid node;
    PortNum port;
    auto operator<=>(const PortKey&) const = default;
};

struct FabricDelta {
    // Links in one fabric and not the other, each once (lower end first).
    std::vector<std::pair<PortKey, PortKey>> links_down, links_up;
    // Nodes (node GUIDs) only in the old fabric / only in the new one.
    std::vector<Guid> nodes_gone, nodes_new;

    bool empty() const { return links_down.empty() && links_up.empty() && nodes_gone.empty() && nodes_new.empty(); }
    std::size_t size() const { return links_down.size() + links_up.size() + nodes_gone.size() + nodes_new.size(); }
    // "2 link(s) down, 1 switch gone" or "no change".
    std::string summary() const;
};

// `before` -> `after`. Links between nodes of which one left are counted
// with the node (nodes_gone), not again as links down; likewise for new nodes.
FabricDelta fabric_delta(const Fabric& before, const Fabric& after);

} // namespace ibsm::topology
