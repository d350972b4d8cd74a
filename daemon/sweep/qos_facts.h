// What the QoS policy needs to know of each end port of a discovered
// fabric (qos::PortFacts): its GUIDs, NodeDescription, whether it is a
// switch's port 0, and the partitions it is a member of.
#pragma once

#include "daemon/core/fabric_state.h"
#include "partition/partitions.h"
#include "qos/qos_policy.h"

#include <vector>

namespace ibsm::daemon {

// CA ports and switch port 0 (the ports with LIDs); `partitions` may be null.
std::vector<qos::PortFacts> qos_port_facts(const DiscoveryResult& found, const partition::Partitions* partitions);

} // namespace ibsm::daemon
