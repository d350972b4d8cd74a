// What the daemon tells the operator after a heavy sweep: a summary line,
// every missing item and duplicate GUID, and the dump of the discovered
// topology in ibnetdiscover format.
#pragma once

#include "daemon/core/fabric_state.h"
#include "mad/transport.h"

#include <string>

namespace ibsm::daemon {

void log_discovery(const DiscoveryResult& result, const mad::TransportCounters& counters);

// Writes DIR/topology.net (atomically: daemon/core/atomic_file.h) and
// returns its path. Throws std::runtime_error naming the file on I/O errors.
std::string write_topology_dump(const DiscoveryResult& result, const std::string& dir);

} // namespace ibsm::daemon
