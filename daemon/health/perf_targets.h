// Which ports a counter sweep reads, and the rows the status shows for them.
//
// Why pure: the poller's I/O is "send these GMPs"; what "these" is (every
// linked port of every node in the last snapshot, addressed by LID) and how
// the table maps back to node names and cable ends are decisions the unit
// tests check without a transport.
//
// Data structures: one `PerfNode` per node with a LID to address: a
// switch's linked ports all go through its port 0 LID (PortSelect names the
// port); a CA's PMA answers only for the port a MAD arrives on, so each CA
// port is its own target with its own LID.
#pragma once

#include "daemon/core/subnet.h"
#include "health/port_health.h"

#include <memory>
#include <vector>

namespace ibsm::daemon {

struct PerfNode {
    Guid node_guid;          // ClassPortInfo is cached per node GUID
    Lid lid;                 // where the GMPs go
    std::vector<PortNum> ports; // PortSelect values, linked ports only
};

// Every linked port with a LID to reach it, switches first, in node order.
std::vector<PerfNode> perf_targets(const SubnetSnapshot& snap);

// One row per port of `table`: node description, far end and LID from the
// snapshot (ports the snapshot no longer has keep their counters, no names).
// The rows share their counters with `table`.
std::vector<health::PortHealth> perf_rows(const std::shared_ptr<const health::CounterTable>& table,
                                          const SubnetSnapshot* snap);

} // namespace ibsm::daemon
