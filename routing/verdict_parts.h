// The pieces of a gate verdict that the full gate (verify.cpp) and the
// incremental gate (incremental_gate.cpp) both assemble, so the two cannot
// word or order a problem differently: the table checks, the undelivered
// pairs per class with their first example, and the credit loops.
#pragma once

#include "routing/analysis/connectivity.h"
#include "routing/analysis/credit_loops.h"
#include "routing/analysis/network.h"
#include "routing/incremental_gate.h"
#include "routing/verify.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ibsm::routing::detail {

// One pair class's counts and the first undelivered pair of each kind
// (least destination LID; -1: none).
struct ClassTally {
    PairCounts counts;
    std::int32_t unreachable_source = -1;
    std::uint32_t unreachable_lid = 0;
    std::int32_t loop_source = -1;
    std::uint32_t loop_lid = 0;
};
using Tallies = std::array<ClassTally, 4>; // analysis::PairClass order

// The totals of a whole pass, or of the destinations' tallies (their sums and
// the least LID's example: what a counter merged over all of them keeps).
Tallies tallies_of(const analysis::Connectivity& c);
// One destination's tally from a counter that saw only it.
LidTally tally_of(const analysis::Connectivity& c);
Tallies tallies_of(const std::vector<LidTally>& by_lid);
// The LIDs as the incremental gate compares them across fabrics: (node GUID, port, base, LMC) by base.
std::vector<std::tuple<std::uint64_t, std::uint8_t, std::uint16_t, std::uint8_t>>
lid_keys(const topology::Fabric& fabric, const lidassign::LidMap& lids);

// LinearFDBTop below the top LID, more VLs than the ports offer, SLs past the VLs.
std::vector<std::string> table_problems(const lidassign::LidMap& lids, const RoutingTables& tables,
                                        const VerifyOptions& options);
// Fills the verdict's counts from `tallies` and appends "N CA pairs unreachable, e.g. ..." lines.
void pair_problems(const analysis::Network& net, const Tallies& tallies, Verdict& v, std::vector<std::string>& problems);
// Runs the cycle searches (the graph with switch traffic only when the
// tables promise switch pairs) and appends the credit loop found first.
void credit_problems(const analysis::Network& net, const analysis::CdgBuilder& cdg, Verdict& v,
                     std::vector<std::string>& problems);
std::string join_problems(const std::vector<std::string>& problems);

} // namespace ibsm::routing::detail
