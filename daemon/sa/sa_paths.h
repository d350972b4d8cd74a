// PathRecord and MultiPathRecord answers (IBA 15.2.5.16, 15.2.5.20): what a
// host asks before it talks to another port — which LIDs, SL, MTU, rate and
// packet lifetime to use.
//
// Why from the routing result: the SL must be the one the routing engine
// gave the pair (dfsssp spreads pairs over virtual layers; a host using
// another SL risks the deadlock the layers avoid), and the DLID the one the
// LID assignment meant for the path (path_dlids.h); MTU and rate are the
// smallest along the links the LFTs actually send the packets over.
//
// Algorithm: resolve the ends (SGID/SLID, DGID/DLID; a GetTable may leave
// one end open: every endport), then per pair path i = 0 .. path_count-1:
// SLID/DLID from slid_for/dlid_for (a requested SLID or DLID keeps only the
// paths using it), walk the LFTs from the source to the destination
// (bounded by 64 hops; a walk that drops or loops is no path), take the
// minimum MTU and rate of the links walked, take the P_Key, apply the QoS
// level of the pair when a policy is loaded (path_qos.h: SL, MTU and rate
// caps, lifetime), and keep the path when SL, MTU/rate/lifetime selectors
// accept the result. NumbPath (1 for Get) bounds
// the paths per pair. Every path is reported reversible (the LFTs route
// both directions), NumbPath 0 in the answer, selectors "exactly", packet
// lifetime the subnet timeout (0 for loopback), as OpenSM answers.
#pragma once

#include "daemon/sa/sa_agent.h"
#include "mad/sa/records.h"

#include <optional>

namespace ibsm::daemon {

// Packet lifetime (IBA 4.096 us * 2^v) a path reports: OpenSM's default
// subnet timeout.
inline constexpr std::uint8_t default_packet_life = 18;

// A GetTable naming neither end (every pair) is answered up to this many
// endport pairs (1 024 endports; ~100 MB while the answer is built).
inline constexpr std::size_t world_paths_max = std::size_t{1} << 20;

// The PathRecord of path `index` from `src` to `dst` (endports), as it is
// answered before any selector is applied; nullopt when there is no such
// path (no LID, no routing, the LFTs do not deliver).
std::optional<mad::sa::PathRecord> build_path_record(const SubnetSnapshot& s, topology::PortRef src,
                                                     topology::PortRef dst, unsigned index);

SaAnswer sa_path_records(const SaRequest& req);
SaAnswer sa_multipath_records(const SaRequest& req);

void register_path_records(SaAgent& agent);

} // namespace ibsm::daemon
