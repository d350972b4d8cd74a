// What the daemon tells the operator after a sweep: a summary line, every
// missing item and duplicate GUID, the transport's trouble, the subnet
// summary (summary.txt) and the dump of the discovered topology in
// ibnetdiscover format.
#pragma once

#include "daemon/core/fabric_state.h"
#include "daemon/core/subnet.h"
#include "daemon/core/sweep_outcome.h"
#include "mad/transport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm::daemon {

void log_discovery(const DiscoveryResult& result, const mad::TransportCounters& counters);

// One line when SMPs timed out, were dropped or failed; nothing otherwise.
void log_transport_trouble(const mad::TransportCounters& counters);

// What the link check of a sweep says in the log: one summary line ("link
// check: N links, M downshifted, K with MTU/VLs below their ends': first
// ..."), then one warning per link with a finding (both ends' findings on
// one line), at most `max_warnings` of them and then a count of the rest.
struct LinkCheckLog {
    std::string summary;
    std::vector<std::string> warnings;
};
LinkCheckLog link_check_log(const topology::Fabric& fabric, const health::LinkChecks& checks,
                            std::size_t max_warnings = 20);

// summary.txt of a configured generation: state, fabric, LIDs, routing and
// the phases with their times and SMPs. `lmc`: the configured LMC (a path
// engine may give CA ports their own).
std::string subnet_summary(const SweepOutcome& o, const DiscoveryResult& found, const LidAssignment& lids,
                           std::uint8_t lmc);

// Writes DIR/topology.net (atomically: daemon/core/atomic_file.h) and
// returns its path. Throws std::runtime_error naming the file on I/O errors.
std::string write_topology_dump(const DiscoveryResult& result, const std::string& dir);

} // namespace ibsm::daemon
