// Where each node of a report Model is drawn.
//
// Why: a fat-tree reads best by level (tops above, leaves and hosts below,
// seed 003 §II-B numbering from the existing ranking); any other fabric gets
// a force-directed layout from Graphviz (libgvc/libcgraph): neato for small
// graphs, sfdp (multilevel, O(n log n)) for large ones.
//
// Data structures: positions in user units (the SVG's viewBox), one per node
// of the model they were computed for, keyed by node GUID for --compare so
// two models of (nearly) the same fabric share one layout.
#pragma once

#include "report/model.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::report {

struct Point {
    double x = 0, y = 0;
};

struct Layout {
    std::string method; // "levels", "neato" or "sfdp"
    double width = 0, height = 0;
    // Smallest distance between two node centres the layout aims for: how
    // large a node mark may be drawn without touching its neighbours.
    double node_spacing = 0;
    std::unordered_map<Guid, Point> at; // node GUID -> centre
};

// Graphs with at least this many nodes are laid out by sfdp: neato's stress
// majorization needs all-pairs distances (O(n^2) memory and time per pass).
inline constexpr std::size_t sfdp_from_nodes = 500;

// What is handed to Graphviz: one vertex per node, one edge per link (a
// bundle is one edge, weighted by its cable count). Exposed for unit tests.
// (sfdp leaves out hosts on a single cable and places them round their
// switch itself: report/host_placement.h.)
struct LayoutInput {
    std::vector<std::string> vertices; // node GUIDs as hex, index = model node
    std::vector<std::pair<std::size_t, std::size_t>> edges;
    std::vector<unsigned> edge_weight;
    std::string engine; // "neato" or "sfdp"
};
LayoutInput layout_input(const Model& model);

// Levels when model.height > 0, else Graphviz. Throws std::runtime_error when
// Graphviz fails (message says which engine).
Layout compute_layout(const Model& model);

// One layout for two models (--compare): nodes of both, by GUID.
Layout compute_layout(const Model& a, const Model& b);

} // namespace ibsm::report
