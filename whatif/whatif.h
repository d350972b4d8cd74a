// What a planned change does to the routing, computed before it is made:
// the fabric without some switches, nodes or links routed with the SM's own
// chain and gate, scored with the route analyzer, and compared with the
// tables of now (docs/operations.md, "Planned maintenance").
//
// Why one pure function: `ibsm whatif` (offline, from a net file or a
// daemon's state directory) and the daemon's `drain --dry-run` must predict
// the same thing, and the drain's actual re-route runs the same chain.
//
// Data structures: Input, the fabric as it is with its LIDs, the SM's node,
// links already out of the routing (isolations, other drains) and, when the
// caller has them, the tables programmed now (else they are routed here);
// Setup, the chain, the engines' options and the analysis options; Result,
// the prediction as values (names, counts, figures), with its text and JSON
// forms.
//
// Algorithm: reduce the fabric (reduce.h), find what the SM no longer
// reaches, route the component the SM still sees with routing::run_chain
// (the gate included), analyze both routings (EBB, the busiest channel),
// and count the 64-LID LFT blocks that differ on every switch left
// (lft_diff.h): the blocks the LFT programmer would send.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/analysis/analyze.h"
#include "routing/chain.h"
#include "routing/tables.h"
#include "topology/fabric.h"
#include "whatif/reduce.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::whatif {

struct Setup {
    routing::ChainSpec chain;
    routing::Options route; // sm_port_guid, lmc, max_vls, roots ... as the SM routes
    routing::analysis::Options analysis;
    bool keep_routings = false; // fill Result::routings (ibsm whatif --out)
};

// One routing as `ibsm route` writes it: the fabric it routes (the LIDs on
// its ports), the LIDs and the tables.
struct Routing {
    topology::Fabric fabric;
    lidassign::LidMap lids;
    routing::RoutingTables tables;
};

struct Input {
    const topology::Fabric& fabric; // as it is now (links already isolated still cabled)
    const lidassign::LidMap& lids;  // LIDs now
    topology::NodeId sm_node;
    std::set<topology::PortRef> isolated; // links out of the routing before and after the change
    // The tables programmed now, on `fabric`'s NodeIds; null: routed here.
    const routing::RoutingTables* now = nullptr;
};

struct Side {
    std::string engine;          // "" when no engine produced tables
    bool gate_passed = false;
    std::string gate;            // "passed" or the gate's reason (degraded), or "programmed"
    std::vector<routing::Refusal> refusals;
    double ebb = 0;              // fraction of full bisection bandwidth
    std::uint64_t max_load = 0;  // routes over the busiest channel
    std::string max_link;        // "a[3] -> b[1]"
    std::uint64_t ca_unreachable = 0;
};

struct Result {
    std::vector<std::string> taken;   // what was taken away, as named
    std::vector<std::string> cut_off; // nodes the SM no longer reaches
    std::uint64_t unreachable_pairs = 0; // CA (source port, destination LID) pairs not delivered afterwards
    Side before, after;
    std::uint64_t lft_blocks_changed = 0;
    std::size_t switches_changed = 0;
    double seconds = 0;
    std::vector<std::pair<std::string, double>> stages; // "route now", "route after", "analyze", "diff": seconds
    // Set when the change cannot be routed at all (no tables).
    std::string failure;
    // With Setup::keep_routings: now and after (null when there are no tables).
    std::shared_ptr<const Routing> routing_before, routing_after;
};

Result evaluate(const Input& in, const Reduction& change, const Setup& setup);

std::string to_text(const Result& r);
nlohmann::json to_json(const Result& r);

} // namespace ibsm::whatif
