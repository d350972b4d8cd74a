// Which of the SL/VL plan's tables (qos/sl_vl_plan.h) each port gets, and
// those tables cut to what the port operates.
//
// Why apart: the VL programmer (SL2VL, VLArb) and the port programmer
// (VLHighLimit in PortInfo) must pick the same class of tables for a port;
// one function decides it for both.
//
// Which: a CA port takes the tables of the first port group (configuration
// order) that has tables of its own and holds the port, else the CA tables;
// a switch's external ports the switch-external tables; switch port 0 its
// own SL2VL (it has no arbitration table).
//
// Cut to the port: an SL2VL entry naming a VL the port does not operate
// folds onto VL (vl mod operational VLs), as the identity table does without
// a policy; an arbitration entry for such a VL is left out (the port would
// not schedule it anyway), and the table stops at the port's capacity.
#pragma once

#include "mad/sl2vl_table.h"
#include "mad/types.h"
#include "mad/vl_arbitration.h"
#include "qos/qos_policy.h"
#include "qos/sl_vl_plan.h"

#include <vector>

namespace ibsm::daemon {

// `port_guid`: the CA port's GUID (group membership); unused for switches.
const qos::PortVlTables& port_vl_tables(const qos::SlVlPlan& plan, const qos::QosPolicy* policy, bool is_switch,
                                        PortNum port, Guid port_guid);

// The plan's SL -> VL for a port operating `vls` data VLs.
mad::Sl2VlTable sl2vl_for_port(const std::array<std::uint8_t, 16>& table, unsigned vls);

// Block `half` (0: entries 0..31, 1: 32..63) of an arbitration table for a
// port operating `vls` data VLs with `cap` entries.
mad::VlArbitrationTable vlarb_block(const std::vector<config::QosVlArbEntry>& entries, unsigned half, unsigned vls,
                                    unsigned cap);

} // namespace ibsm::daemon
