// What one sweep or re-route did, as the scheduler, the SM election, the
// publishers and the systemd notifier see it; and the gate that decides
// whether this SM may configure the subnet at all.
//
// Why here, in core: these readers need the outcome, not the bring-up
// pipeline that produces it (four programmers and the routing chain).
#pragma once

#include "partition/partitions.h"

#include "daemon/core/fabric_state.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct PhaseStats {
    std::string name;
    double seconds = 0;
    std::uint64_t smps = 0;
    std::string detail;
};

enum class SweepKind : std::uint8_t { heavy, reroute };

struct SweepOutcome {
    SweepKind kind = SweepKind::heavy;
    bool up = false;        // up or degraded: every table and port confirmed
    bool degraded = false;  // up on a routing that failed the verification gate
    std::string reason;     // why not up / why degraded
    // Re-route only: nothing had changed (no new generation), or the delta
    // could not be applied and a heavy sweep is needed (reason says why).
    bool unchanged = false;
    bool needs_heavy = false;
    // Another SM runs the subnet (MastershipGate): nothing was programmed;
    // reason says which SM and why.
    bool standby = false;
    // Not up only because some Sets stayed unconfirmed (discovery complete,
    // routing done): resume() can finish the job without a heavy sweep.
    bool partial = false;
    // The work included a configuration reload (SIGHUP); set by the
    // scheduler, so sd_notify's READY=1 follows the reload's own sweep.
    bool reload = false;
    std::uint64_t generation = 0; // of the snapshot published, 0 when none
    std::vector<PhaseStats> phases;
    double seconds = 0;
    std::uint64_t smps = 0;
    // The Sets that change what switches and ports hold, retries included:
    // a sweep, re-route, restart or takeover of an unchanged fabric sends
    // none of the first two, and PortInfo only where a port's MasterSMLID
    // must name a new master or a host is asked to re-register.
    std::uint64_t lft_blocks_sent = 0;
    std::uint64_t pkey_blocks_sent = 0;
    std::uint64_t port_info_sets = 0; // settings and activation
    std::string engine;
    std::size_t nodes = 0, switches = 0, cas = 0, links = 0;
    FabricChanges changes; // re-route: what the refresh found
    // The partitions this sweep changed against the last one's (a reload or
    // a new partitions file), one entry per partition.
    std::vector<partition::PartitionChange> partition_changes;
};

// Decides, between discovery and LID assignment, whether this SM may
// configure the subnet (master/standby, IBA 14.4.1; daemon/sm/sm_election.h).
class MastershipGate {
public:
    virtual ~MastershipGate() = default;
    // After a heavy sweep's discovery: nullopt to configure the subnet, else
    // why this SM programs nothing (it stands by).
    virtual boost::asio::awaitable<std::optional<std::string>> after_discovery(const DiscoveryResult& found) = 0;
    // Before a re-route: nullopt when this SM may program, else why not.
    virtual std::optional<std::string> standing_by() const = 0;
};

} // namespace ibsm::daemon
