// The verification gate: every engine's tables are checked before the chain
// accepts them (chain.h), so nothing unchecked is ever programmed.
//
// Why: an engine can accept a fabric it does not understand and leave holes
// (ftree on a chain of three trees: 133 128 CA pairs unreachable) or route
// everything with a credit loop (MinHop on a random fabric: a deadlock
// waiting to happen). The engines' own checks cover the shapes they were
// written for; this one is independent of how the tables were made.
//
// What every engine owes: every CA<->CA, CA->switch and switch->CA pair
// delivered (no drop, no forwarding loop), and an acyclic channel dependency
// graph (CDG) of CA-originated traffic on each VL. An engine that sets
// RoutingTables::switch_to_switch also owes every switch pair and an acyclic
// CDG with switch-originated traffic added. VL = SL of the (source port,
// destination LID) pair (RoutingTables::sl; identity SL->VL over vls_used, as
// the VL programmer writes it without QoS; with QoS every VL the pair's SL
// may take through the SL2VL tables, VerifyOptions::vl_mask_of_sl); the engine may need at most
// VerifyOptions::max_vls VLs. Forwarding stops at LinearFDBTop, so a LID
// above it is a problem too.
//
// Per-pair path routing (RoutingTables::pair_dlids, routing/path_tables.h):
// every LID of a block is still traced from every source, but a CA
// destination's LID carries only the pairs whose DLID it is, so those pairs
// must be delivered and only their routes enter the CDG (the fill-in routes
// toward a LID nobody is told to use may turn where no real route does).
// The users of a LID are one scan of the DLID map kept destination-major.
//
// Data structures: the analyzer's dense Network view, built from the LID
// assignment the daemon will program (the discovered fabric's ports carry no
// LIDs yet); per worker an LftBlock (the first hops of 64 LIDs), a
// DestinationTree, a ConnectivityCounter (counts and a few example pairs,
// no shortest paths) and a CdgBuilder.
//
// Algorithm: the analyzer's single pass (routing/analysis/analyze.h) without
// hop statistics, edge loads, EBB or shifts: the LIDs go in blocks of 64
// over the workers; a block's first hops are resolved switch by switch (one
// line of every LFT, forwarding.h LftBlock), then every LID of it is traced
// once for all sources (O(switches) per LID) and its dependencies carried
// down its tree into the worker's CDG; the workers' CDGs are OR-ed (or, when
// remembering, their counts summed), then one cycle search per VL. Figures:
// docs/scale.md, "Gate" (tests/bench/gate_bench.cpp).
#pragma once

#include "lidassign/lid_map.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include "routing/analysis/progress.h"

namespace ibsm::routing {

struct VerifyOptions {
    std::uint8_t max_vls = 8; // data VLs the ports offer (Options::max_vls)
    // Per SL of RoutingTables::sl, the VLs its pairs travel on between
    // switches (Options::vl_masks: a QoS SL2VL spreads one routing SL over
    // several VLs, and may put two on one). Absent: SL s on VL s.
    std::optional<std::array<std::uint16_t, 16>> vl_mask_of_sl;
    unsigned threads = 0;     // 0 = hardware concurrency
    analysis::ProgressFn progress; // stage "verify (<engine>)", per block of LIDs
};

struct PairCounts {
    std::uint64_t pairs = 0;
    std::uint64_t unreachable = 0; // dropped somewhere (no route, dead end)
    std::uint64_t looping = 0;     // caught in a forwarding loop
    std::uint64_t undelivered() const { return unreachable + looping; }
};

// The gate's finding on one engine's tables.
struct Verdict {
    std::string engine;
    // False when the tables could not be checked at all (two ports with one
    // LID, ...); `reason` says why. Such a result is worse than any other.
    bool checked = false;
    // The engine promised switch pairs (RoutingTables::switch_to_switch), so
    // they and the CDG with switch traffic were part of the verdict. The
    // switch pairs are counted either way.
    bool switch_pairs_checked = false;
    PairCounts ca_to_ca, ca_to_switch, switch_to_ca, switch_to_switch;
    bool ca_credit_loop = false;     // a CDG cycle in CA-originated traffic, on some VL
    bool switch_credit_loop = false; // ... with switch traffic added (computed only when promised)
    // Empty when the tables pass. Otherwise every problem, "; "-separated,
    // each with counts and one example by name, e.g.
    // "133 128 CA pairs unreachable, e.g. H-1 → H-700 (LID 700)".
    std::string reason;

    bool passed() const { return checked && reason.empty(); }
    // CA->switch, switch->CA and switch->switch pairs not delivered.
    std::uint64_t other_undelivered() const
    {
        return ca_to_switch.undelivered() + switch_to_ca.undelivered() + switch_to_switch.undelivered();
    }
};

// Checks `tables` against the fabric with the LIDs in `lids`. Never throws
// for bad tables (that is a verdict); std::bad_alloc and the like pass.
Verdict verify(const topology::Fabric& fabric, const lidassign::LidMap& lids, const RoutingTables& tables,
               const VerifyOptions& options = {});

// The chain's order among results that all failed: fewer CA<->CA pairs not
// delivered, then no credit loop in CA traffic, then fewer other pairs not
// delivered; unchecked results last. Strict: a tie keeps the earlier engine.
bool less_bad(const Verdict& a, const Verdict& b);

// 133128 -> "133 128" (how the reasons print counts).
std::string group_digits(std::uint64_t n);

} // namespace ibsm::routing
