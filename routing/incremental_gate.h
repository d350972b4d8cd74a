// The incremental verification gate: after a re-route, only the destinations
// whose routes can have changed are traced again, and the channel dependency
// graph is updated by the dependencies their old routes made and their new
// ones make. Its verdict is the full gate's (verify.h), word for word.
//
// Why: on a fat-tree of 27 648 hosts the full gate traces 30 528 LIDs
// through 2 880 switches for every pulled cable; a cable changes the routes
// of a few hundred destinations.
//
// Data structures (GateMemory, kept by the daemon across sweeps in
// ChainMemory): the fabric and tables last gated, shared with the chain by
// shared_ptr (no copies), and the analyzer's Network over them; the CDG with a count per dependency (how many
// destination LIDs make it; credit_loops.h, counting); per destination LID
// its share of the pair counts and its first undelivered pair of each kind
// (LidTally), so the totals and the examples follow without a full pass.
//
// Algorithm: the new fabric must be comparable with the remembered one:
// the same LIDs on the same ports, or some of them gone with the nodes
// that left; the same switches with the same port counts, or some gone;
// every CA cabled to the same switch (the sources each switch stands for);
// and the tables must agree on everything but the LFTs and LinearFDBTop
// (SLs, no per-pair DLIDs, VLs, the switch-pair promise, the gate's VL
// masks); otherwise the caller runs the full gate. Nodes that left (a top
// switch failed, a host switched off) are followed when that keeps the
// graph exact without them, with no SLs (every source on SL 0): a CA that
// left leaves another CA on its switch, whose traffic makes the same
// dependencies beyond it (when one CA is left there, that CA's own LIDs
// are traced again); a switch that left had no CA, its neighbours have
// LIDs (their own traffic makes what its traffic made past them), and the
// turns into them from it are dropped. The lost sources' pairs come off
// every destination's counts (they were delivered: a destination with an
// undelivered pair is traced again, its example could be the lost
// source), the lost LIDs' trees come out of the graph, and the graph is
// laid out for the smaller view (CdgBuilder::remap) between taking the old
// trees out and putting the new ones in. A destination's trace reads, at
// every switch, its LFT entry and where the cable on that port leads; so a
// destination is traced again when an entry differs on some switch, or when
// its old entry at some switch names a port whose cable changed (pulled,
// added, moved); the switches' LFT rows are compared over the workers. The
// changed LIDs go in chunks of consecutive ones over the workers: a worker
// resolves its chunk's old and new first hops switch by switch (forwarding.h
// LftBlock: each LFT row read forward, not a cache line per switch and LID)
// and, for each LID, traces the old tables on the old view and takes its
// dependencies back, traces the new tables on the new view and adds them,
// both into its own delta builder (counts modulo 2^16, credit_loops.h), and
// replaces the LID's LidTally. The deltas are then applied to the
// remembered graph (a sum: the order of the chunks does not matter). The
// totals are summed from the tallies; the cycle search runs over the whole
// graph as the full gate's does, so the
// loop it names is the same one. With more than half the destinations to
// trace again it declines (GateMemory::max_retrace_share).
#pragma once

#include "routing/analysis/credit_loops.h"
#include "routing/analysis/network.h"
#include "routing/verify.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace ibsm::routing {

// One destination LID's share of the verdict's pair counts.
struct LidTally {
    std::array<std::array<std::uint32_t, 3>, 4> n{}; // [pair class][pairs, unreachable, looping]
    // [pair class][unreachable, looping]: the source endpoint of this LID's
    // first such pair, -1 when none.
    std::array<std::array<std::int32_t, 2>, 4> example{{{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}}};
};

// What the gate keeps of the routing it verified last.
struct GateState {
    std::shared_ptr<const topology::Fabric> fabric;
    std::shared_ptr<const RoutingTables> tables;
    std::unique_ptr<analysis::Network> net;   // over *fabric and *tables
    std::unique_ptr<analysis::SlLookup> sls;  // of *tables on *net
    std::unique_ptr<analysis::CdgBuilder> cdg; // counting
    std::vector<LidTally> tallies;            // by LID
    // The gate's options and the LIDs it ran with: (node GUID, port, base, LMC) by base LID.
    std::uint8_t max_vls = 0;
    std::optional<std::array<std::uint16_t, 16>> vl_masks;
    std::vector<std::tuple<std::uint64_t, std::uint8_t, std::uint16_t, std::uint8_t>> lid_keys;
};

struct GateMemory {
    // --verify-incremental (routing.verify_incremental): run the full gate
    // too after every incremental one and report where they differ.
    bool cross_check = false;
    // Above this share of the destinations to trace again the incremental
    // gate declines and the full one runs (cheaper then: it traces in
    // parallel and without the old routes). Tests raise it to 1.
    double max_retrace_share = 0.5;
    // Null until a gated routing is remembered; dropped when the chain keeps
    // tables other than the last it gated.
    std::unique_ptr<GateState> state;
};

// The full gate (verify.h), leaving in `memory` what the incremental gate
// needs next time. Per-pair path tables (pair_dlids) and tables that cannot
// be checked leave the memory empty. `fabric` and `tables` are kept.
Verdict verify_and_remember(std::shared_ptr<const topology::Fabric> fabric, const lidassign::LidMap& lids,
                            std::shared_ptr<const RoutingTables> tables, const VerifyOptions& options,
                            GateMemory& memory);

struct IncrementalVerdict {
    Verdict verdict;
    std::size_t retraced = 0;     // destination LIDs traced again
    std::size_t destinations = 0; // destination LIDs in all
};

// The incremental gate against `memory`, which it then holds for these
// tables; or why it cannot be used here (memory left empty: run
// verify_and_remember).
std::variant<IncrementalVerdict, std::string> verify_incremental(std::shared_ptr<const topology::Fabric> fabric,
                                                                 const lidassign::LidMap& lids,
                                                                 std::shared_ptr<const RoutingTables> tables,
                                                                 const VerifyOptions& options, GateMemory& memory);

// "" when the verdicts agree, else the first field that differs with both values.
std::string first_difference(const Verdict& full, const Verdict& incremental);

} // namespace ibsm::routing
