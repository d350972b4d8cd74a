// SA records describing the fabric as the last confirmed snapshot holds it
// (IBA 15.2.5): NodeRecord, PortInfoRecord, LinkRecord, SwitchInfoRecord,
// LinearForwardingTableRecord, GUIDInfoRecord, SMInfoRecord.
//
// Why from the snapshot: it is the fabric the switches confirmed (LIDs,
// port states, LFTs of one generation), so a record never mixes what one
// sweep read with what another programmed; no SMP is sent to answer.
//
// Algorithm (each): check the component mask against the record's table
// (ERR_REQ_INVALID for a component the record lacks); when the query names
// a LID, any LID of a port's LMC range selects that port and the query is
// rewritten to its base LID (the records carry base LIDs, as OpenSM's do),
// and only that port's records are built; otherwise every candidate is
// built; a record answers when its selected components equal the query's
// (component_mask.h).
#pragma once

#include "daemon/sa/sa_agent.h"
#include "mad/sm_info.h"

#include <functional>

namespace ibsm::daemon {

SaAnswer sa_node_records(const SaRequest& req);
SaAnswer sa_port_info_records(const SaRequest& req);
SaAnswer sa_link_records(const SaRequest& req);
SaAnswer sa_switch_info_records(const SaRequest& req);
SaAnswer sa_lft_records(const SaRequest& req);
SaAnswer sa_guid_info_records(const SaRequest& req);
// `ours`: this SM's SMInfo now; its SM_Key is shown only to a trusted
// requester (sa_trust.h). PortInfoRecords likewise show the M_Key only to
// trusted requesters.
SaAnswer sa_sm_info_records(const SaRequest& req, const mad::SmInfo& ours);

// The SA's ClassPortInfo (IBA 13.4.8.1, 15.2.2): class version 2, what it
// supports (MultiPathRecord; full PortInfoRecords, extended speeds), its
// response time, no redirection.
SaAnswer sa_class_port_info(const SaRequest& req, bool ud_multicast = false);
inline constexpr std::size_t class_port_info_size = 72;
// Capability bits (IBA 15.2.2, table 194) this SA sets; UDMulticast only
// when an MCMemberRecord handler is registered (daemon/sa/mcast_service.h).
namespace sa_cap {
inline constexpr std::uint16_t ud_multicast = 1 << 9;
inline constexpr std::uint16_t multipath = 1 << 10;
inline constexpr std::uint32_t full_port_info_records = 1 << 6; // CapabilityMask2
inline constexpr std::uint32_t extended_speeds = 1 << 7;
} // namespace sa_cap

// Registers the handlers above (Get and GetTable each) with the agent.
void register_fabric_records(SaAgent& agent, std::function<mad::SmInfo()> sm_info);

} // namespace ibsm::daemon
