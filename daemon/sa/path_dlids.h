// Which LIDs a path between two ports uses, as the routing of a snapshot
// realised it: the one place the SA's PathRecords (and anything else that
// names a path by its LIDs) ask.
//
// Why a function of its own: with LMC > 0 a port owns 2^LMC LIDs and path i
// of a pair is (source base + i, destination base + i), the fully redundant
// set OpenSM calls preference 0. Under per-pair path routing (seed 002:
// pathsel / shortest-widest + color/L) the routing chose ONE path per
// (source, destination) and realised it by one DLID of the destination's
// block (RoutingTables::pair_dlids): that pair has exactly one path, the
// source's base LID to that DLID; the other DLIDs of the block realise other
// sources' paths and would take this source along a path nobody chose.
#pragma once

#include "daemon/core/subnet.h"

#include <optional>

namespace ibsm::daemon {

// The LID-owning port of `p`: itself for CA/router ports, port 0 for a
// switch port.
topology::PortRef endport_of(const SubnetSnapshot& s, topology::PortRef p);

// How many distinct paths the pair has (2^LMC of the destination, at least 1);
// 0 when either end has no LID.
unsigned path_count(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst);

// The LIDs of path `index` (0 .. path_count-1) from `src` to `dst`;
// nullopt when either end has no LID or index is out of range.
std::optional<Lid> dlid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index);
std::optional<Lid> slid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index);

} // namespace ibsm::daemon
