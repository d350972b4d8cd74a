// What the programmers' Sets confirmed, as the outcome and the next
// snapshot see it: why the subnet is not up, and the fabric state the next
// re-route compares against.
//
// Why: a re-route sends only what differs from what the ports and switches
// hold, so the snapshot must carry what they confirmed, not what discovery
// read before the Sets (every port would be reprogrammed) nor blindly what
// was desired (a Set that was lost would never be sent again).
//
// Data structures: the four programmers' reports (ProgramReport) and the
// activation's PortReport; the port plan (port_programmer.h), one entry per
// port with the PortInfo read (`current`) and the one sent (`desired`).
//
// Algorithm: pure functions of those values. The reason names the first
// stage in pipeline order that left a Set unconfirmed (LFT blocks before VL
// tables before PortInfo before P_Key tables before activation), the one
// the operator should look at first.
#pragma once

#include "daemon/core/fabric_state.h"
#include "daemon/program/lft_programmer.h"
#include "daemon/program/pkey_programmer.h"
#include "daemon/program/port_programmer.h"
#include "daemon/program/vl_programmer.h"
#include "lidassign/lid_map.h"
#include "routing/tables.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct ProgramReport {
    LftReport lfts;
    VlReport vls;
    PortReport ports;
    PKeyReport pkeys;
    bool complete() const { return lfts.complete() && vls.complete() && ports.complete() && pkeys.complete(); }
};

// Why the subnet is not up after programming and `activation` (a default
// PortReport when activation did not run), or nullopt when every Set was
// confirmed.
std::optional<std::string> unconfirmed_reason(const ProgramReport& programmed, const PortReport& activation);

// The fabric as the programmed ports and switches hold it: `found` with the
// PortInfo of every port in `plan` and the SwitchInfo they confirmed, and
// the LIDs of `lids` on the fabric's ports (a switch's on every port, as
// ibnetdiscover shows them). `all_confirmed`: every Set of the sweep,
// activation included, was answered (the outcome is up).
DiscoveryResult confirmed_fabric(DiscoveryResult found, const std::vector<PortPlanEntry>& plan, bool all_confirmed,
                                 const LftReport& lfts, const routing::RoutingTables& tables,
                                 std::uint8_t life_time_value, const lidassign::LidMap& lids);

} // namespace ibsm::daemon
