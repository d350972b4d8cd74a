// The fallback chain: engines tried in configured order; the first one whose
// tables pass the verification gate (verify.h) wins, every refusal is kept
// for the report, and MinHop is the last resort unless the chain says
// no_fallback.
//
// An engine's tables that fail the gate count as a refusal with the gate's
// reason ("ftree: 133 128 CA pairs unreachable, e.g. H-1 → H-700 (LID 700)")
// and the chain moves on. When tables were produced but none passed (the
// implicit MinHop included), the least bad of them is kept (verify.h,
// less_bad: fewest CA<->CA pairs not delivered, then no CA credit loop, then
// fewest other pairs not delivered) and the outcome is `degraded`: the
// subnet can come up, but must never be reported as a plain SUBNET UP.
#pragma once

#include "routing/chain_memory.h"
#include "routing/engine.h"
#include "routing/registry.h"
#include "routing/verify.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::routing {

inline constexpr const char* fallback_engine = "minhop";

// How the gate judged one engine's tables (ChainOutcome::gate_runs).
struct GateRun {
    bool incremental = false;
    std::size_t retraced = 0;     // incremental: destination LIDs traced again
    std::size_t destinations = 0; // ... of these
    std::string why_full;         // full gate with a memory: why not incremental
    // With GateMemory::cross_check after an incremental run: the first
    // difference from the full gate's verdict ("" when none). The verdict
    // kept is the full gate's.
    std::string mismatch;
    bool cross_checked = false;
    // "incremental gate, 312 of 30 528 destinations re-traced" or "full gate (why)".
    std::string describe() const;
};

struct ChainSpec {
    std::vector<std::string> engines; // e.g. {"sftree", "updn"}
    bool no_fallback = false;
};

struct ChainOutcome {
    // The tables to program: those of the first engine that passed the gate,
    // or when none passed, the least bad tables any engine produced
    // (degraded). Empty only when no engine produced tables at all. Shared:
    // the chain's memory keeps the same tables for the next re-route.
    std::shared_ptr<const RoutingTables> tables;
    // In the order tried: engines that refused (their reason), engines that
    // threw ("engine failed: ..."), and engines whose tables failed the gate
    // (the gate's reason, Verdict::reason). The degraded engine's failure is
    // here too.
    std::vector<Refusal> refusals;
    // The gate's verdict on every engine that produced tables, in the order
    // tried (the last one passed unless degraded).
    std::vector<Verdict> verdicts;
    // Beside each verdict: whether the gate ran incrementally (only with a ChainMemory).
    std::vector<GateRun> gate_runs;
    bool fell_back = false; // tables came from the implicit MinHop

    // How the kept tables were made and checked, for the route phase's log
    // line: "incremental (ftree: 1 link(s) down; 2 switch rows, 97 LIDs
    // re-decided)" or "full run (no previous routing)"; how the gate ran is
    // gate_run(). Empty without tables.
    std::string route_how;
    bool incremental = false;

    // True when `tables` failed the gate (no engine's passed): the daemon
    // programs them (better than no routes) but says "SUBNET UP (degraded:
    // <degraded_reason>)" in its log and summary, and `ibsmd --once` exits
    // non-zero; `ibsm route` prints "DEGRADED: ..." and exits 2 (cli/app.h).
    bool degraded = false;
    // When degraded: "<engine>: <its verdict's reason>", e.g. "minhop: credit
    // loop on VL 0 in CA traffic: sw1[2] → sw2[3] → sw1[2]"; the counts are in
    // verdict(). Empty otherwise.
    std::string degraded_reason;

    // Name of the engine that produced the tables, or "" when none did.
    std::string engine() const { return tables ? tables->engine : std::string{}; }
    // The gate's verdict on `tables` (counts per pair class, credit loops),
    // or nullptr when there are no tables.
    const Verdict* verdict() const;
    // The gate run behind verdict(), or nullptr.
    const GateRun* gate_run() const;
};

// Throws std::invalid_argument for an empty chain, an unknown engine name
// (listing the known ones) or a name given twice.
void validate(const Registry& registry, const ChainSpec& spec);

// Runs the chain, every result through the gate (with options.max_vls).
// An engine that throws is recorded as a refusal carrying the exception
// text, so one broken engine cannot stop the fallback. Validates the spec
// first (throws like validate()).
//
// `memory` (chain_memory.h): an engine that routed last time, with the same
// options and LIDs, is handed its last routing and the delta to this fabric
// (Engine::compute_after); the winner's routing is kept for the next call.
// Null: every engine routes afresh and nothing is kept.
//
// The gate runs incrementally when the memory holds the routing it verified
// last on a comparable fabric (incremental_gate.h), otherwise in full,
// remembering what it verified; afterwards the memory holds the kept
// tables, or nothing when they are not the ones gated last.
ChainOutcome run_chain(const Registry& registry, const ChainSpec& spec, const topology::Fabric& fabric,
                       const lidassign::LidMap& lids, const Options& options, ChainMemory* memory = nullptr);

// "a,b,c" -> {"a","b","c"}; blanks around names are dropped; throws
// std::invalid_argument on an empty element.
std::vector<std::string> split_engine_list(std::string_view text);

} // namespace ibsm::routing
