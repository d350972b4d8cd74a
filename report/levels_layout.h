// The fat-tree drawing: one row per level, tops at the top, leaf switches
// below them and each leaf's hosts in a small block under it.
//
// Why: the levels are what an operator knows a fat-tree by (seed 003 §II-B
// numbering, from routing::fattree::rank_fat_tree via Model::level); a
// force-directed layout scrambles them. Within a row the order decides how
// long and how tangled the lines are, so it is chosen from the neighbours.
//
// Data structures: per switch its up and down neighbours (switches of a
// higher / lower level; sibling links between leaves do not order anything),
// per leaf its hosts sorted by the leaf's port, an x per node.
//
// Algorithm (Sugiyama-style crossing reduction, barycentre heuristic):
// 1. Leaves start in model order (fabric order); each gets a slot wide enough
//    for its switch label and its host block, and sits at the slot's centre.
// 2. Upward sweep: each level 2..h is ordered by the mean x of its down
//    neighbours (ties keep the current order) and placed by least squares:
//    as close to those means as a minimum spacing allows (isotonic
//    regression, pool-adjacent-violators, O(n)). The spacing is at least the
//    switch pitch and at least the leaf row's width divided by the row's
//    size, so an upper level spans the leaves instead of bunching.
// 3. Downward sweep: levels h-1..1 re-ordered by the mean x of their up
//    neighbours (this groups the leaves of one pod even when discovery
//    numbered them apart), leaves re-slotted; then step 2 once more.
// 4. Hosts: a grid of ceil(sqrt(2n)) (at least 4, at most n) columns under
//    their leaf, by leaf port. A host's leaf is the lowest-level switch it is
//    cabled to. Folded models have no host nodes.
// 5. Anything left (switches outside the tree, level 0; hosts not cabled to a
//    leaf) goes into one extra row at the bottom, so every node has a place.
// Row distance grows with the drawing's width (12%) so large trees keep a
// readable aspect ratio instead of becoming a thin strip.
#pragma once

#include "report/layout.h"
#include "report/model.h"

namespace ibsm::report {

// Spacing, in user units (the SVG viewBox). Switch labels are assumed to be
// set in an ~11-unit sans-serif font: level_char_width per character.
inline constexpr double level_min_switch_pitch = 64;
inline constexpr double level_max_switch_pitch = 160;
inline constexpr double level_char_width = 6.5;
inline constexpr double level_host_pitch = 28;  // between host centres, both ways
inline constexpr double level_host_drop = 90;   // leaf centre to its first host row
inline constexpr double level_min_row_gap = 160;
inline constexpr double level_margin = 40;

// Requires model.height > 0. method = "levels".
Layout levels_layout(const Model& model);

} // namespace ibsm::report
