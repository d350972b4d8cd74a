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

#include "mad/port_info.h"
#include "mad/switch_info.h"
#include "mad/transport.h"
#include "mad/types.h"
#include "topology/fabric.h"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct MissingItem {
    DrPath path;      // where the query went
    std::string what; // "NodeInfo", "PortInfo port 7", ...
    std::string why;  // "timeout", "bad status 0x001c", ...
};

struct DuplicateGuid {
    Guid guid;
    DrPath first;  // path the GUID was first seen at
    DrPath second; // path where a different node answered with the same GUID
    std::string detail;
};

struct DiscoveryResult {
    topology::Fabric fabric;
    std::vector<DrPath> paths; // indexed by NodeId: how the SM reaches each node
    topology::PortRef sm_port; // the SM's own port
    std::vector<MissingItem> missing;
    std::vector<DuplicateGuid> duplicates;
    // The decoded attributes as read, kept so programming can
    // read-modify-write them instead of re-reading.
    std::map<topology::PortRef, mad::PortInfo> port_info;
    std::map<topology::NodeId, mad::SwitchInfo> switch_info;
    std::uint64_t smps = 0; // requests completed during the sweep
    std::chrono::steady_clock::duration elapsed{};

    const DrPath& path_to(topology::NodeId n) const { return paths.at(n.value); }
    bool complete() const { return missing.empty() && duplicates.empty(); }
};

// What a re-route asks discovery to look at again (DESIGN.md, "The
// long-running SM"): the ports an event names, over the snapshot's DR paths.
struct RefreshRequest {
    // SwitchInfo (a set PortStateChange is cleared, IBA 14.2.5.4) and the
    // PortInfo of every port 1..N.
    std::vector<topology::NodeId> switches;
    // One CA/router port each (trap 144 from a CA, GID in/out of service).
    std::vector<topology::PortRef> ports;
    // NodeDescription again (trap 144 "node description changed").
    std::vector<topology::NodeId> describe;
    bool empty() const { return switches.empty() && ports.empty() && describe.empty(); }
};

// What a refresh found, relative to the snapshot it started from.
struct FabricChanges {
    std::vector<std::string> text; // one line per change, for the log
    std::size_t links_down = 0, links_up = 0, nodes_new = 0, nodes_lost = 0, ports_changed = 0;
    std::vector<Guid> lost;        // node GUIDs no longer reachable
    bool any() const { return links_down || links_up || nodes_new || nodes_lost || ports_changed; }
};

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
// snapshot still reaches another way is re-read too (a switch unlinked
// whole: neighbours whose way back ran through it send no trap). Queries
// that fail land in found.missing, like in a heavy sweep; callers fall back
// to one then.
boost::asio::awaitable<RefreshResult> refresh(mad::Transport& transport, const DiscoveryResult& previous,
                                              const RefreshRequest& request);

// Pure: `found` without the nodes the SM's port cannot reach over links
// that are up, with shortest DR paths for every node. Lost node GUIDs are
// appended to `lost`.
DiscoveryResult reachable_part(const DiscoveryResult& found, std::vector<Guid>* lost);

// The DR path a PortInfo query or Set for port `p` takes: a CA answers
// PortInfo only for the port an SMP arrives on, so a CA port is addressed
// through the switch it is cabled to; a switch port by its switch's path.
DrPath path_to_port(const DiscoveryResult& found, topology::PortRef p);

// Runs one heavy sweep. Never throws for fabric problems; those are in the
// result. Throws std::runtime_error only when the SM's own node does not
// answer (nothing can be discovered).
boost::asio::awaitable<DiscoveryResult> discover(mad::Transport& transport);

} // namespace ibsm::daemon
