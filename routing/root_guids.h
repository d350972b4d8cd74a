// Fat-tree root GUIDs as operators list them (OpenSM's root_guid_file): one
// node GUID per line, blank lines and '#' comments allowed. Read by the
// daemon (routing.root_guid_file) and by `ibsm route --roots`.
#pragma once

#include "mad/types.h"

#include <istream>
#include <string>
#include <vector>

namespace ibsm::routing {

// Throws std::runtime_error "NAME:LINE: expected one node GUID, got '...'"
// for a line that is not exactly one non-zero number (hex with 0x or decimal).
std::vector<Guid> parse_root_guids(std::istream& in, const std::string& name);

} // namespace ibsm::routing
