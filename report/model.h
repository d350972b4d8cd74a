// What the route-quality report draws: the fabric as nodes and link bundles,
// each bundle carrying the loads the analysis measured on its cables.
//
// Why: the analysis (routing/analysis) reports per directed channel; a
// drawing wants one line per pair of nodes (parallel cables bundled), hosts
// folded into their leaf switch on very large fabrics, and the credit-loop
// cycle marked on the lines it runs over. This is that reduction, kept apart
// from layout and HTML so each can be tested on its own.
//
// Data structures: nodes are indexed 0..N-1, switches first in fabric order,
// then hosts (unless folded); a Link joins nodes a < b and lists its cables.
// Loads are routes per directed cable (the edge-forwarding index of seed 001
// §I-A): a bundle is as hot as its hottest cable in either direction.
#pragma once

#include "mad/types.h"
#include "report/link_health.h"
#include "routing/analysis/report.h"
#include "topology/fabric.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::report {

enum class NodeKind : std::uint8_t { switch_node, host };

struct Node {
    std::string name; // display name as the analysis prints it
    Guid guid;        // node GUID
    NodeKind kind = NodeKind::switch_node;
    // Fat-tree level from routing::fattree::rank_fat_tree (1 = leaf ..
    // height = top); 0 when the fabric does not rank or for hosts.
    unsigned level = 0;
    std::size_t folded_hosts = 0; // hosts drawn inside this (leaf) switch
};

struct Example {
    std::string source, destination;
};

// One cable of a bundle, with the routes over it in each direction.
struct Cable {
    unsigned port_a = 0, port_b = 0;
    std::uint64_t load_ab = 0, load_ba = 0;
};

// Every cable between nodes a and b (a < b), drawn as one line.
struct Link {
    std::size_t a = 0, b = 0;
    std::vector<Cable> cables;
    bool switch_link = false;   // both ends switches
    bool on_credit_loop = false; // a cable of a reported credit-loop cycle
    std::vector<Example> examples; // a few routes over the bundle
    // Counters, link checks and the health policy's state of its cables
    // (report/health_overlay.h); none when no cable of it has a health row.
    std::optional<LinkHealth> health;
    std::uint64_t max_load() const; // hottest cable, either direction
};

struct ModelOptions {
    // Hosts are folded into their switch (and not drawn) from this many hosts on.
    std::size_t fold_hosts_from = 11664;
    std::size_t examples_per_link = 3;
};

struct Model {
    std::vector<Node> nodes;
    std::vector<Link> links;
    bool hosts_folded = false;
    unsigned height = 0; // fat-tree height; 0 = not a fat-tree (force-directed layout)
    std::uint64_t max_load = 0; // over all links
    // Set by add_health (report/health_overlay.h): the page then draws the
    // fabric a second time, coloured by utilisation, and lists the worst links.
    std::optional<HealthOverlay> health;
    // Index of the node with this GUID, or -1.
    std::int64_t find(Guid guid) const;
};

// `report` must come from analyze() with Options::keep_link_loads set (its
// link_loads list every channel); throws std::invalid_argument otherwise.
Model build_model(const topology::Fabric& fabric, const routing::analysis::Report& report,
                  const ModelOptions& options = {});

} // namespace ibsm::report
