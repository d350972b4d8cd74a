// The drains' part of the status: "drains" in state.json, the
// ibsmd_drain* families of metrics.prom and the "drains:" lines of
// `ibsm status` (docs/operations.md, "Planned maintenance"). Pure.
#pragma once

#include "daemon/publish/status.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ibsm::daemon {

nlohmann::json drains_to_json(const std::vector<StatusDrain>& d);
std::vector<StatusDrain> drains_from_json(const nlohmann::json& j); // throws nlohmann::json::exception on a wrong type
// ibsmd_drains (gauge), ibsmd_drained_links (gauge), ibsmd_drain_info{kind,node_guid,port,label} 1.
std::string drains_metrics(const std::vector<StatusDrain>& d);
// "drains:       none", or one line per drain.
std::string drains_status_text(const std::vector<StatusDrain>& d);

} // namespace ibsm::daemon
