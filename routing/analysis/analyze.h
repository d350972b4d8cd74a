// The analyzer's entry point: scores a set of forwarding tables on a fabric.
//
// Why: one call used by `ibsm analyze` and by tests; it works for tables from
// any SM (ours, or OpenSM's read back with dump_fts), because it only follows
// the LFTs and the LIDs shown on the fabric's ports.
//
// Algorithm: build the dense Network view, then one pass over every
// destination LID (split over threads) tracing the in-tree of routes to it and
// feeding connectivity/hop counts, the channel dependency graphs, the
// edge-forwarding loads and the per-host path table; then the congestion
// patterns (random bisections, shifts) over the path table.
#pragma once

#include "routing/analysis/ebb.h"
#include "routing/analysis/progress.h"
#include "routing/analysis/report.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::routing::analysis {

struct Options {
    bool run_ebb = true;
    EbbOptions ebb;
    bool run_shifts = true;
    // Host order for shifts as text lines (see host_order.h); empty = name order.
    std::vector<std::string> order_lines;
    // Include switch-originated traffic (switch -> * pairs, second CDG).
    bool switch_traffic = true;
    // Per routing SL, the VLs its pairs travel on between switches (a QoS
    // SL2VL spreads one routing SL over a VL per band: qos::SlVlPlan::
    // vl_mask_of_routing_sl), so the credit-loop check sees the VLs the
    // programmed tables give; unset: SL s on VL s.
    std::optional<std::array<std::uint16_t, 16>> vl_mask_of_sl;
    unsigned threads = 0; // 0 = hardware concurrency
    std::size_t max_examples = 5;
    // Fill Report::link_loads (every channel's load and up to link_examples
    // routes over it) for ibsm report.
    bool keep_link_loads = false;
    std::size_t link_examples = 3;
    // Called as the stages advance (progress.h); from worker threads, never
    // concurrently. Empty: no reporting.
    ProgressFn progress;
};

// Throws std::invalid_argument for inconsistent input (duplicate LIDs, bad
// host order lines).
Report analyze(const topology::Fabric& fabric, const RoutingTables& tables, const Options& options);

} // namespace ibsm::routing::analysis
