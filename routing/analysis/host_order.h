// Resolving a host order (for shift permutations) from text lines.
//
// Why: shift permutations only make sense for a stated numbering of the hosts
// (an MPI rank order); operators give it as one host per line.
//
// Each non-empty line (text after '#' ignored, surrounding quotes stripped)
// names a CA/router node by description, node GUID (0x...), or one port by
// port GUID, LID (decimal) or "description/port"; a node stands for all its
// ports that have LIDs, in port order. Unknown names, switches and repeats are
// errors naming the line.
#pragma once

#include "routing/analysis/network.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm::routing::analysis {

// Endpoint indices in the order given. Throws std::invalid_argument
// ("line N: ...") on bad lines or when no host is named.
std::vector<std::int32_t> resolve_host_order(const Network& net, const std::vector<std::string>& lines);

} // namespace ibsm::routing::analysis
