// The LFT blocks two routings of one fabric disagree on, as the LFT
// programmer would send them: 64 LIDs a block, per switch.
//
// Why its own file: the what-if's "disruption" is this count, and it must
// count what the programmer counts (a block differs when any entry does).
//
// Algorithm: switches are matched by node GUID (the two routings may have
// renumbered nodes); a switch only in `after` counts every block it has,
// one only in `before` (gone) counts none. Entries past a table's end are
// no route.
#pragma once

#include "routing/tables.h"
#include "topology/fabric.h"

#include <cstdint>

namespace ibsm::whatif {

inline constexpr std::size_t lft_block_lids = 64;

struct LftDiff {
    std::uint64_t blocks = 0;
    std::size_t switches = 0; // switches with at least one changed block
};

LftDiff diff_lfts(const topology::Fabric& before_fabric, const routing::RoutingTables& before,
                  const topology::Fabric& after_fabric, const routing::RoutingTables& after);

} // namespace ibsm::whatif
