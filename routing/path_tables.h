// Realising per-pair paths in linear forwarding tables (seed 002 §2, Lemma 2):
// destination d's paths are partitioned into k configurations
// (lidassign/path_configs.h) and d owns 2^⌈lg k⌉ LIDs (lidassign/path_lids.h);
// LID base+c carries configuration c, so every switch on a path of
// configuration c forwards base+c on that path's output port — no two paths
// of one configuration split, so each such switch has exactly one.
//
// Why the rest of the table matters: Lemma 2 says a switch that no path of a
// configuration crosses needs no entry, and the paper says no more. We fill
// it anyway so every LID is delivered from every source: a switch a
// configuration does not touch forwards that LID like the destination's base
// LID in the destination-based tables the path engine supplies for switch
// destinations (its Up*/Down* tree toward d). Following the tree from an
// untouched switch either reaches d's switch (touched by every
// configuration) or joins a touched switch, from where the configuration's
// path leads to d: no drop, no loop. Without it, a host handed the wrong
// DLID, or a switch-originated packet to a CA LID the switch's own path does
// not use, would be dropped. LIDs of a block beyond k (k = 5 -> LIDs 5..7)
// repeat configuration (offset mod k), so any LID of the block follows a
// selected path. Switch LIDs are routed as in the destination-based tables.
//
// Data structures: per destination and configuration a dense per-switch
// output port (no_route = untouched), filled from the paths' hops; the
// result's LFTs are dense per LID like every engine's.
//
// Pure: no I/O.
#pragma once

#include "lidassign/lid_map.h"
#include "lidassign/path_configs.h"
#include "routing/engine.h"
#include "routing/pair_dlids.h"
#include "routing/tables.h"
#include "topology/fabric.h"
#include "topology/pair_paths.h"

#include <span>
#include <string>
#include <variant>

namespace ibsm::routing {

struct PathRealisation {
    RoutingTables tables; // pair_dlids set
    PairDlids dlids;      // the same mapping, for callers that keep it apart
};

using RealiseResult = std::variant<PathRealisation, Refusal>;

// `lids`: the final LIDs (each destination of `paths` owns at least as many
// LIDs as it has configurations). `base` and `base_lids`: destination-based
// tables and the LIDs they were computed with (they may differ from `lids`
// in the colour-first order); every switch must have a table in `base`.
// `configs[i]` partitions `paths.destinations[i]`. Refuses, with the pair
// named, when a path is not a path of the fabric (a hop's port is not
// cabled to the next hop's switch, the first switch is not the source's,
// the last hop does not lead to the destination), when two paths of one
// configuration split, or when a destination has too few LIDs.
RealiseResult realise_paths(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                            const topology::PairPaths& paths, std::span<const lidassign::DestinationConfigs> configs,
                            const RoutingTables& base, const lidassign::LidMap& base_lids);

// The same from paths a destination at a time (each visited once, by
// `threads` workers, 0 for common::worker_count's default; the result does
// not depend on their number);
// `sources`: every source port the paths name, sorted.
RealiseResult realise_paths(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                            const topology::PairPathSource& paths, std::span<const topology::PortRef> sources,
                            std::span<const lidassign::DestinationConfigs> configs, const RoutingTables& base,
                            const lidassign::LidMap& base_lids, unsigned threads = 1);

} // namespace ibsm::routing
