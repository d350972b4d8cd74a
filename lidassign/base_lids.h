// Base LID assignment: which base LID every addressable port gets.
//
// Addressable ports: port 0 of every switch, and every cabled port of a CA or
// router (an uncabled CA port cannot be reached, OpenSM never sees it either).
//
// LMC: CA/router ports get 2^lmc LIDs, base aligned to 2^lmc. A switch's port
// 0 gets a single LID unless `lmc_esp0` is set AND the switch has enhanced
// port 0 — OpenSM's rule (its lmc_esp0 option, default off).
//
// Pure: takes the fabric and what to honour, returns the map; no I/O.
#pragma once

#include "lidassign/lid_map.h"
#include "mad/types.h"
#include "topology/fabric.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ibsm::lidassign {

struct BaseLidOptions {
    std::uint8_t lmc = 0;    // 0..7
    bool lmc_esp0 = false;   // give enhanced switch port 0 the LMC too
    // The highest LID handed out; lowered in tests to exercise exhaustion.
    std::uint16_t max_lid = Lid::max_unicast;
};

// Previous assignment to honour (the persisted guid2lid): port GUID -> base LID.
using GuidLidMap = std::map<Guid, Lid>;

// Why a previous or present LID was not kept, for the caller to log.
struct LidNote {
    topology::PortRef port;
    std::string text;
};

struct BaseLidResult {
    LidMap lids;
    std::vector<LidNote> notes;
};

// Thrown when the unicast LID space cannot hold every addressable port.
class LidSpaceExhausted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The addressable ports in assignment order (node id, then port number).
std::vector<topology::PortRef> addressable_ports(const topology::Fabric& fabric);

// The LMC `port` gets under `options`.
std::uint8_t port_lmc(const topology::Fabric& fabric, topology::PortRef port, const BaseLidOptions& options);

// Assigns base LIDs. Precedence, each step skipping LIDs already granted:
//   1. `previous` (by port GUID) when valid, aligned and in range;
//   2. the LID already on the port (Port::lid) when valid, aligned, in range;
//   3. fresh: the lowest free aligned block, ports in addressable_ports order.
// LIDs that `previous` names for GUIDs absent from the fabric stay reserved
// (a port that returns gets its LID back) unless the space is needed.
// Deterministic: equal input gives equal output. Throws LidSpaceExhausted.
BaseLidResult assign_base_lids(const topology::Fabric& fabric, const GuidLidMap& previous,
                               const BaseLidOptions& options);

// As above with a per-port LMC for the CA/router ports listed (the path LID
// stage's colour-first order, lidassign/path_lids.h: each destination gets
// the LMC its number of configurations needs); other ports as `options`.
BaseLidResult assign_base_lids(const topology::Fabric& fabric, const GuidLidMap& previous,
                               const BaseLidOptions& options,
                               const std::map<topology::PortRef, std::uint8_t>& lmc_of_port);

// Writes the assignment into the fabric's ports (Port::lid / Port::lmc) so a
// topology writer shows it; a switch's LID goes on all its ports, as
// ibnetdiscover reports it. Ports without LIDs are left unchanged.
void apply_lids(const LidMap& lids, topology::Fabric& fabric);

// The LidMap the fabric's ports already carry (Port::lid/lmc of addressable
// ports, e.g. read from ibnetdiscover output). Ports with LID 0 are skipped.
// Throws std::invalid_argument naming the ports when two ports overlap.
LidMap lids_from_ports(const topology::Fabric& fabric);

} // namespace ibsm::lidassign
