// SA records of the tables the SM programs into ports (IBA 15.2.5):
// SLtoVLMappingTableRecord (15.2.5.4), P_KeyTableRecord (15.2.5.11) and
// VLArbitrationTableRecord (15.2.5.9). The MulticastForwardingTableRecord is
// the multicast service's (mcast_service.h), which holds the confirmed MFTs.
//
// Why from the snapshot: a record must name what the port holds. The VL
// tables are the ones the VL programmer wrote or found in place for that
// generation (SubnetSnapshot::vl_tables); a port it left alone
// (routing.vl_tables: auto with a one-VL engine) keeps tables nobody read,
// so it has no record here, where OpenSM answers zeros it never read. A
// VLArb block wholly past the port's VLArbitrationLowCap/HighCap holds no
// entry on any port, so it is answered empty (as OpenSM lists every block
// 1..4). The
// P_Key blocks are those the P_Key programmer laid out for each port in
// that generation (SubnetSnapshot::pkey_tables, its IndexBook's indexes),
// confirmed before the snapshot was published.
//
// Algorithm (each, as OpenSM's osm_sa_*_record.c walk them): the endports
// of the snapshot (or the one owning a queried LID, any of its LMC range);
// a CA port stands for itself, a switch for its ports 0..N (or the queried
// port, and for SL2VL the queried input and output); each table held there
// becomes a record under the endport's base LID, kept when its selected
// components equal the query's (component_mask.h).
//
// Trust (sa_trust.h): P_KeyTableRecords go to trusted requesters only (IBA
// 1.2.1 p. 922, with P_KeyTableRecord: "shall only be provided in response
// to trusted requests"; OpenSM's osm_sa_pkey_record.c cites the same page);
// the others to anyone.
#pragma once

#include "daemon/sa/sa_agent.h"

namespace ibsm::daemon {

SaAnswer sa_sl2vl_records(const SaRequest& req);
SaAnswer sa_vlarb_records(const SaRequest& req);
SaAnswer sa_pkey_table_records(const SaRequest& req);

// Registers the three (Get and GetTable each) with the agent.
void register_table_records(SaAgent& agent);

} // namespace ibsm::daemon
