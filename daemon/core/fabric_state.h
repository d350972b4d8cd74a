// The fabric as a sweep found it, and what a re-route asks to look at again:
// the values discovery produces and every later stage (LIDs, routing, the
// programmers, the snapshot, the dumps) reads.
//
// Why here, in core: the programmers, the snapshot and the publishers all
// take a DiscoveryResult, but none of them needs the discovery code itself.
#pragma once

#include "health/port_health.h"
#include "mad/port_info.h"
#include "mad/switch_info.h"
#include "mad/types.h"
#include "topology/fabric.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
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
    // Nodes (by GUID) that answered a PortInfo Get carrying
    // SMSupportExtendedSpeeds with a bad status and a plain one without it:
    // devices older than the bit (port_info_attr_mod). Carried into every
    // re-route's copy, so each such node costs one extra Get per process.
    std::set<Guid> plain_port_info;
    std::uint64_t smps = 0; // requests completed during the sweep
    std::chrono::steady_clock::duration elapsed{};

    const DrPath& path_to(topology::NodeId n) const { return paths.at(n.value); }
    bool complete() const { return missing.empty() && duplicates.empty(); }
};

// What a re-route asks discovery to look at again (docs/design.md, "The
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
    // Both ends of every link found down / up (the health monitor counts
    // link-downs per port for its flapping rule).
    std::vector<health::PortId> ports_down, ports_up;
    bool any() const { return links_down || links_up || nodes_new || nodes_lost || ports_changed; }
};

// The DR path a PortInfo query or Set for port `p` takes: a CA answers
// PortInfo only for the port an SMP arrives on, so a CA port is addressed
// through the switch it is cabled to; a switch port by its switch's path.
DrPath path_to_port(const DiscoveryResult& found, topology::PortRef p);

// The PortInfo whose CapabilityMask speaks for port `p`: its own for a CA or
// router port and a switch's port 0, the switch's port 0 one for its
// external ports (IBA 14.2.5.6: a switch states its capabilities on port 0).
// Null when that PortInfo has not been read.
const mad::PortInfo* capability_source(const DiscoveryResult& found, topology::PortRef p);

// The AttributeModifier of a PortInfo Get or Set of port `p`: the port
// number with bit 31, SMSupportExtendedSpeeds (IBA 14.2.5.6): this SM
// supports extended speeds, so it says so on every PortInfo it sends, and a
// port that has extended speeds answers with its LinkSpeedExt fields filled
// in (an NDR switch asked without the bit leaves them zero, and a Set
// without it cannot change them). Ports without extended speeds ignore the
// bit (ibsim 0.10 and later mask it off the port number). Whether the
// fields mean anything is the port's CapabilityMask's to say
// (IsExtendedSpeedsSupported, read through capability_source): the decoding
// (mad/link_speed.h) looks there, not here. Asking with the bit first and
// without it only after a bad status costs nothing on a modern fabric,
// where asking first without it and again with it would cost a second Get
// per port. Nodes in `found.plain_port_info` go without the bit.
std::uint32_t port_info_attr_mod(const DiscoveryResult& found, topology::PortRef p);

} // namespace ibsm::daemon
