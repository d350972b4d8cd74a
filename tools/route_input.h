// What `ibsm analyze` and `ibsm report` share: finding the files of a
// routing (a route directory, or --topology/--lfts/--sl/--paths), reading
// them into a Fabric and RoutingTables, the analysis' tuning options, and
// running the analysis with the tools' progress line and timings.
//
// Why: both commands must read a routing the same way and score it with the
// same options, or the report's numbers would drift from analyze's.
#pragma once

#include "routing/analysis/analyze.h"
#include "routing/tables.h"
#include "tools/args.h"
#include "tools/progress.h"
#include "topology/fabric.h"

#include <string>
#include <vector>

namespace ibsm::tools {

struct RouteFiles {
    std::string topology, lfts, sl, paths; // sl, paths: empty = none
    std::string node_name_map;             // --node-name-map; empty = none
};

// DIR/topology.net + DIR/lfts.dump (or DIR/opensm-lfts.dump), and DIR/sl.txt,
// DIR/paths.txt when they exist, unless `sl` / `paths` are given.
RouteFiles route_dir_files(const std::string& dir, const std::string& sl = {}, const std::string& paths = {});
// One positional DIR, or --topology and --lfts; --sl/--paths override.
// Throws UsageError for any other combination.
RouteFiles route_files(const Args& args);

struct RouteInput {
    topology::Fabric fabric;
    routing::RoutingTables tables;
    double seconds = 0;   // reading took
    std::string summary;  // "N switches, M CAs, ... read in S s"
};
RouteInput load_route_input(const RouteFiles& files, ProgressLine& progress);

// --topology --lfts --sl --paths --node-name-map, as route_files reads them.
std::vector<OptionSpec> route_input_options();

// --node-name-map FILE (infiniband-diags' format, topology/node_map_file.h):
// the names replace NodeDescription wherever the command names a node; the
// files it writes for other tools keep NodeDescription.
OptionSpec node_name_map_option();
// Reads the map at `path` onto the fabric; std::runtime_error naming
// file and line.
void apply_node_name_map(const std::string& path, topology::Fabric& fabric);
// One of OpenSM's GUID files (cn_guid_file, ...), named by the option in
// errors.
std::vector<Guid> read_guid_file(const std::string& path, const std::string& option);
// --bisections --seed --bidirectional --order --no-shifts --no-switch-traffic
// --threads --examples, as analysis_options reads them.
std::vector<OptionSpec> analysis_tuning_options();
routing::analysis::Options analysis_options(const Args& args);

// analyze() with the progress line, stage timings ("load" first, "total"
// last) and the order file named in its errors.
routing::analysis::Report run_analysis(const RouteInput& input, routing::analysis::Options options, const Args& args,
                                       ProgressLine& progress);

// Unreachable CA pairs, forwarding loops or credit loops.
bool has_problem(const routing::analysis::Report& r);

} // namespace ibsm::tools
