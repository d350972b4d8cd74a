// `ibsm report --health FILE`: the file `ibsm ports --json` wrote, read back
// as health rows (health/port_health_json.h).
//
// Why its own file: the reading is the tool's (a path, an open, a read); the
// format is the health library's. Kept apart from report.cpp so its errors
// can be tested without running a whole report.
#pragma once

#include "health/port_health.h"

#include <string>
#include <vector>

namespace ibsm::tools {

// The rows of FILE. Throws std::runtime_error naming the file, and for a
// malformed document the JSON path of the first bad value:
// "ports.json: ports[2].port: expected an unsigned integer".
std::vector<health::PortHealth> read_health_file(const std::string& path);

} // namespace ibsm::tools
