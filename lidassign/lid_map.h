// The LID assignment every routing engine and the switch programmer read:
// which base LID and LMC each addressable port has (every CA/router port and
// every switch's port 0), and the reverse lookup LID -> port.
//
// Data structures: `by_lid` is a dense vector indexed by LID (0..top) so the
// engines' inner loops are array lookups; `by_port` maps the port to its base
// LID. A port with LMC l owns the 2^l LIDs base..base+2^l-1, all of which map
// back to it in `by_lid`.
#pragma once

#include "mad/types.h"
#include "topology/fabric.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace ibsm::lidassign {

struct PortLids {
    Lid base;
    std::uint8_t lmc = 0;
    std::uint16_t count() const { return static_cast<std::uint16_t>(1u << lmc); }
};

class LidMap {
public:
    // Assigns base..base+2^lmc-1 to `port`. Throws std::invalid_argument if
    // any of those LIDs is taken or invalid, or base is not 2^lmc aligned.
    void assign(topology::PortRef port, Lid base, std::uint8_t lmc);

    std::optional<PortLids> lids_of(topology::PortRef port) const;
    // The port owning `lid` (any of its 2^LMC LIDs).
    std::optional<topology::PortRef> port_of(Lid lid) const;
    // Highest assigned LID (0 when empty).
    Lid top() const { return Lid(static_cast<std::uint16_t>(by_lid_.empty() ? 0 : by_lid_.size() - 1)); }
    // Every assigned (port, lids), ordered by base LID.
    std::vector<std::pair<topology::PortRef, PortLids>> entries() const;
    std::size_t port_count() const { return by_port_.size(); }
    // LIDs handed out: 2^LMC per port, each port with its own LMC.
    std::size_t lid_count() const;

private:
    std::vector<std::optional<topology::PortRef>> by_lid_;
    std::map<topology::PortRef, PortLids> by_port_;
};

} // namespace ibsm::lidassign
