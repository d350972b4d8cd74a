// Isolated links held physically down (health.disable_port): the
// switch-side port of each isolated link set DISABLED, and set back to
// Polling when its isolation is lifted so the link trains again.
//
// Why: leaving a link out of the routing keeps data off it, but a cable
// that flaps or throws errors still raises traps and retrains; an operator
// who wants it quiet until the cable is replaced asks for the port to be
// disabled (PortPhysicalState 3, IBA 14.2.5.6). The SM that disabled it is
// the one that must enable it again: nothing else will.
//
// Data structures: the plan, one entry per port whose physical state is to
// change (its DR path, AttributeModifier, the PortInfo as read and the
// desired one); `disabled_`, isolation -> the port this process disabled
// for it (the port is no longer linked once down, so the isolation's other
// end cannot be found from the fabric afterwards).
//
// Algorithm: plan() (pure) picks, for each isolated link still up, the end
// the isolation names when it is a switch port, unless the SM's DR path to
// that switch arrives over this very link (the Set's answer would have to
// cross the port it disables): then the far end, when that is a switch.
// A CA-to-CA link is never disabled. For each lifted isolation, the port
// disabled for it (or the named port) is set to Polling when it reads
// Disabled. apply() sends each Set as a read-modify-write of the PortInfo
// read (PortState "no change"), with bit 31 of the AttributeModifier as
// port_info_attr_mod() says, and checks the answer.
#pragma once

#include "daemon/core/fabric_state.h"
#include "health/port_health.h"
#include "mad/port_info.h"
#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ibsm::daemon {

// PortPhysicalState values a Set uses (IBA 14.2.5.6).
inline constexpr std::uint8_t phys_state_polling = 2;
inline constexpr std::uint8_t phys_state_disabled = 3;

struct PhysStateChange {
    health::PortId isolation; // the isolation this change serves
    topology::PortRef port;   // the switch port set
    health::PortId port_id;
    std::string name;         // for messages
    DrPath path;
    std::uint32_t attr_mod = 0;
    mad::PortInfo desired;    // as read, PortState no_change, PortPhysicalState set
    bool disable = false;     // false: back to Polling
};

// Pure: the Sets that make the fabric hold `disable` disabled and release
// what `release` held (see the header comment). `disabled_for`: the ports
// disabled earlier per isolation.
std::vector<PhysStateChange> plan_phys_states(const DiscoveryResult& found, const std::set<health::PortId>& disable,
                                              const std::set<health::PortId>& release,
                                              const std::map<health::PortId, health::PortId>& disabled_for);

struct PhysStateReport {
    std::size_t disabled = 0, enabled = 0, failed = 0;
    std::vector<std::string> failures;
    std::vector<topology::NodeId> switches; // whose ports changed: the refresh re-reads them
};

class PortDisabler {
public:
    // Sends the plan for `found`: `disable` are the isolations to hold down
    // (empty when health.disable_port is off), `release` the isolations
    // lifted since the last call.
    boost::asio::awaitable<PhysStateReport> apply(mad::Transport& transport, const DiscoveryResult& found,
                                                  const std::set<health::PortId>& disable,
                                                  const std::set<health::PortId>& release);
    const std::map<health::PortId, health::PortId>& disabled() const { return disabled_; }

private:
    std::map<health::PortId, health::PortId> disabled_;
};

} // namespace ibsm::daemon
