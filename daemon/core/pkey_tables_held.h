// The P_Key tables one generation's P_Key programmer wants at every port
// (program/pkey_programmer.h), kept with the snapshot so the SA's
// P_KeyTableRecords name what the ports hold: the blocks as the IndexBook
// laid them out (a kept partition keeps its index), not a layout the SA
// would work out again on its own.
//
// Data structures: (node GUID, port) -> the port's blocks in block order;
// a switch's port 0 and its CA-facing ports under the switch's GUID.
#pragma once

#include "mad/pkey_table.h"
#include "mad/types.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ibsm::daemon {

using PKeyTablesHeld = std::map<std::pair<Guid, std::uint8_t>, std::vector<mad::PKeyTable>>;

} // namespace ibsm::daemon
