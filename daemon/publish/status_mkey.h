// The M_Key part of the status: "mkey" in state.json, the ibsmd_mkey_*
// families of metrics.prom and the "M_Key:" line of `ibsm status`.
//
// Why apart from status.cpp: the M_Key counters come from three owners
// (the trap receiver's Bad M_Key traps, the key book's incidents and
// rotations, the recovery's lease waits) and their words are the ones
// docs/operations.md ("M_Key") names; nothing here ever holds a key. Pure.
#pragma once

#include "daemon/publish/status.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ibsm::daemon {

nlohmann::json mkey_to_json(const StatusMkey& m);
StatusMkey mkey_from_json(const nlohmann::json& j); // throws nlohmann::json::exception on a wrong type
std::string mkey_metrics(const StatusMkey& m);
// "M_Key:        per-port, protect bits 1, lease 60 s, secret 0123...; 2 violations, ..." (one line).
std::string mkey_status_text(const StatusMkey& m);

} // namespace ibsm::daemon
