// Heavy sweep: discovers the fabric breadth-first over directed routes and
// builds a topology::Fabric.
//
// Why: everything after discovery (LIDs, routing, programming) needs the
// whole graph with port states and the DR path to every switch.
//
// Data structures: the Fabric under construction; `paths_` (NodeId -> the DR
// path the node was first reached by); a count of in-flight tasks, the sweep
// being done when it falls to zero.
//
// Algorithm: start at the SM's own node (path "0"). For a node reached over
// path P through its port q: NodeInfo; if the node GUID is new, create the
// node, then ask NodeDescription, and for a switch SwitchInfo and PortInfo of
// every port (0..N), for a CA/router PortInfo of port q only. Every switch
// port in INIT/ARMED/ACTIVE whose far end is not yet known is followed over
// P+port. A node reached again only adds the link (and, for a CA, the port
// reached). Queries wait as small task values in one FIFO (breadth first);
// twice the transport window of worker coroutines take them, so the window
// stays full and the sweep runs at the SMP rate, not the latency, without a
// coroutine frame per query of the whole frontier.
// Failures never stop the sweep: a NodeInfo that times out is recorded as a
// missing node behind its port, a PortInfo as an unknown port; the same GUID
// appearing at a port that already leads elsewhere is reported as a
// duplicate GUID.
#pragma once

#include "daemon/core/fabric_state.h"
#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct RefreshResult {
    // The next fabric: the previous one with the changes applied, only the
    // part reachable from the SM's port, DR paths recomputed (shortest, over
    // links that are up). NodeIds are renumbered when nodes were lost.
    DiscoveryResult found;
    FabricChanges changes;
};

// Re-reads what `request` names, starting from `previous` (a heavy sweep's
// or an earlier refresh's result), follows ports that came up (discovering
// new nodes behind them as a heavy sweep would), and drops links whose
// ports went down. A switch at the far end of a link found down that the
// snapshot still reaches another way is confirmed too (a switch unlinked
// whole: neighbours whose way back ran through it send no trap): the ports
// facing it on its other neighbours are read first, over paths that avoid
// it, and it is re-read itself only when one of them still sees the link.
// Queries that fail land in found.missing, like in a heavy sweep; callers
// fall back to one then.
boost::asio::awaitable<RefreshResult> refresh(mad::Transport& transport, const DiscoveryResult& previous,
                                              const RefreshRequest& request);

// Pure: `found` without the nodes the SM's port cannot reach over links
// that are up, with shortest DR paths for every node, nodes in GUID order. Lost node GUIDs are
// appended to `lost`.
// Taken by value: a refresh hands its result over (moved), and when every
// node is still reached only the paths change, so nothing is copied (at
// 27 648 hosts a copy is 165 888 PortInfo map entries).
DiscoveryResult reachable_part(DiscoveryResult found, std::vector<Guid>* lost);

// Pure: a shortest DR path from the SM's port to every node it reaches over
// links that are up, indexed by NodeId, entering no node `avoid` marks
// (indexed by NodeId; shorter than the node count: the rest are not
// avoided). Nullopt for a node not reached.
std::vector<std::optional<DrPath>> shortest_paths(const DiscoveryResult& found, const std::vector<bool>& avoid);

// Pure: `found` with its nodes numbered in node GUID order (paths and
// attribute maps re-keyed), so what comes after discovery sees the same
// graph wherever the SM sits and in whatever order the DR paths met the
// nodes. reachable_part's result is in this order too.
DiscoveryResult in_guid_order(DiscoveryResult found);

// Runs one heavy sweep; its result is in GUID order (in_guid_order). Never throws for fabric problems; those are in the
// result. Throws std::runtime_error only when the SM's own node does not
// answer (nothing can be discovered). The switches of `no_discover` (the
// health policy's) are read but their ports not followed: what lies
// beyond them is found from elsewhere or not at all.
boost::asio::awaitable<DiscoveryResult> discover(mad::Transport& transport, std::set<Guid> no_discover = {});

} // namespace ibsm::daemon
