// Fabric variations for routing tests: partially populated leaves and seeded
// removal of switch-to-switch links and switches.
//
// Why: real fabrics are rarely complete. Fat-tree engines must cope with
// missing hosts and must refuse (with a reason) or degrade gracefully when
// links or switches are gone; the seed makes a failing case reproducible.
//
// All functions are pure: they return a new Fabric and say what they took
// away by GUID (NodeIds of the result are renumbered).
#pragma once

#include "topology/fabric.h"

#include <cstdint>
#include <vector>

namespace ibsm::topology {

struct RemovedLink {
    Guid a_node;
    PortNum a_port;
    Guid b_node;
    PortNum b_port;
};

struct Removal {
    std::vector<Guid> hosts;
    std::vector<Guid> switches;
    std::vector<RemovedLink> links; // switch-to-switch cables removed on their own
};

struct Degraded {
    Fabric fabric;
    Removal removed;
};

// Removes `count` CAs chosen uniformly at random (seeded). Throws
// std::invalid_argument if the fabric has fewer CAs.
Degraded remove_random_hosts(const Fabric& fabric, std::size_t count, std::uint64_t seed);

// Removes the last `per_leaf` CAs (by leaf port number) of every leaf switch.
// A CA belongs to the switch its lowest-numbered cabled port reaches.
Degraded remove_hosts_per_leaf(const Fabric& fabric, unsigned per_leaf);

struct DegradeSpec {
    std::size_t switches = 0; // removed first; only switches with no CA cabled
    std::size_t links = 0;    // then switch-to-switch cables
    std::uint64_t seed = 1;
    // Skip a removal that would split the fabric into more pieces than it
    // had; throw if not enough removals remain possible.
    bool keep_connected = true;
};

// Throws std::invalid_argument when the requested removals are impossible.
Degraded degrade(const Fabric& fabric, const DegradeSpec& spec);

} // namespace ibsm::topology
