// The JSON form of health::PortHealth, the one encoder and decoder of a
// port row: what `ibsm ports --json` and the control socket's `ports`
// answer print, the `ports` list of the daemon's state.json (which `ibsm
// status` reads back) and what `ibsm report --health FILE` reads.
//
// Why one file for both directions: the printer and the reader must agree
// on every key, and a round-trip test can only hold them to it if they sit
// side by side.
//
// Data structures: one object per port,
//   {"node_guid": "0x...", "node_desc": "...", "port": N, "lid": L,
//    "remote": {"node_guid": "0x...", "port": N},
//    "state": "ok|reported|isolated|isolation-refused", "since": S,
//    "link_downs_recent": K, "reasons": [...],
//    "counters": {"symbol_errors": {"total": T, "delta": D}, ...},
//    "rates": {"xmit_bytes_per_s": x, "rcv_bytes_per_s": y,
//              "xmit_pkts_per_s": .., "rcv_pkts_per_s": .., "xmit_wait_share": z},
//    "poll": {"extended": b, "interval_s": .., "reads": .., "resets_seen": ..,
//             "failures": .., "failure_history": .., "last_read": ..},
//    "link": {"downshifted": b, "findings": [...], "width_active": "4x",
//             "width_possible": .., "speed_active": "NDR", "speed_possible": ..,
//             "mtu_active": .., "mtu_possible": .., "vls_active": .., "vls_possible": ..}}
// and the document {"ports": [ ... ]}, worst first. "counters", "rates" and
// "poll" are present only when the port was polled, "link" only when the
// heavy sweep checked it, "remote" only for a linked port; a counter the
// port does not support is left out of "counters".
#pragma once

#include "health/port_health.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string_view>
#include <vector>

namespace ibsm::health {

nlohmann::json to_json(const PortHealth& row);
nlohmann::json to_json(const LinkCheck& link);
// The list of rows, in the order given.
nlohmann::json to_json(const std::vector<PortHealth>& rows);
// {"ports": [...]} in the order given.
nlohmann::json ports_to_json(const std::vector<PortHealth>& rows);

// What a malformed document gets: the message names the JSON path of the
// first bad value, e.g. "ports[2].counters.symbol_errors.total: expected an
// unsigned integer".
class HealthJsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throw HealthJsonError. Unknown keys are ignored (a newer daemon may add
// some); missing required keys (node_guid, port) and wrong types are errors.
PortHealth port_health_from_json(const nlohmann::json& j, std::string_view where = "port");
LinkCheck link_check_from_json(const nlohmann::json& j, std::string_view where = "link");
std::vector<PortHealth> ports_from_json(const nlohmann::json& doc);
// A list of rows alone (state.json's "ports"); `where` names it in errors.
std::vector<PortHealth> port_list_from_json(const nlohmann::json& list, std::string_view where = "ports");
// The text of a document; a JSON syntax error is a HealthJsonError too.
std::vector<PortHealth> parse_ports_json(std::string_view text);

} // namespace ibsm::health
