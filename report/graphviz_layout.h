// The force-directed drawing of a fabric that is not a fat-tree, through
// Graphviz's library (libgvc/libcgraph): neato for small graphs, sfdp for
// large ones (layout_input picks).
//
// Why: tori, random and degraded fabrics have no levels to read; a spring
// layout puts cabled switches next to each other and shows the structure.
// Graphviz is packaged in Debian and its sfdp (multilevel, Barnes-Hut) lays
// out thousands of nodes in seconds.
//
// Data structures: one cgraph graph per call, nodes named by GUID (the
// LayoutInput), every node a fixed circle of graphviz_node_size points
// without a label (no font metrics needed), one edge per bundle; its cable
// count is sfdp's edge weight and shortens neato's ideal edge length (see
// the .cpp). Positions come back in points, y up; they are turned into user
// units (1 point = 1 unit) with y down and a margin. After sfdp, hosts are
// moved beside their switch (host_placement.h: sfdp flings them to the rim).
//
// Plugins: gvContext() would read the plugin list (.../graphviz/config6a,
// written by the libgvc6 package's postinst `libgvc6-config-update -c`) and
// select the pango text-layout plugin at once; Graphviz 2.42 never frees
// that list's text and fontconfig keeps its caches, both reported as leaks
// under AddressSanitizer. Only the layout plugin is needed, so it is opened
// here (dlopen of libgvplugin_neato_layout.so.<plugin ABI>, path from
// pkg-config at build time) and handed to gvContextPlugins without demand
// loading: nothing else is loaded, gvFreeContext frees everything.
//
// Reproducible: neato starts from classical MDS (start=self), sfdp from a
// fixed seed (start=1); rand(), which sfdp's coarsening uses unseeded, is
// reseeded before each layout; positions are rounded to 1/100 unit because
// prism's overlap removal varies in the last bits with heap addresses. So
// the same input gives the same layout, in one process or another.
//
// Graphviz keeps global state (its error handler, the prototype graph of
// default attributes), so calls are serialised by a mutex: the daemon
// renders off its loop, maybe twice at once.
#pragma once

#include "report/layout.h"
#include "report/model.h"

namespace ibsm::report {

inline constexpr double graphviz_node_size = 28.8; // points: 0.4 inch circles
inline constexpr double graphviz_margin = 40;

// `input` must be layout_input(model). Throws std::runtime_error naming
// the engine when the plugin cannot be loaded or the layout fails.
Layout graphviz_layout(const Model& model, const LayoutInput& input);

} // namespace ibsm::report
