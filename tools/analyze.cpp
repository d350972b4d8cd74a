// `ibsm analyze`: score forwarding tables — ours from `ibsm route`, or any
// SM's read back from a live fabric with ibnetdiscover + dump_fts — with the
// route-quality analysis of routing/analysis (reachability, forwarding and
// credit loops, edge-forwarding index, effective bisection bandwidth, shift
// permutations, hops and stretch). This file only does the file and
// command-line work.
//
// --qos CONFIG: the daemon's gate checks each routing SL on every VL the QoS
// SL2VL tables may give it (one per band); analyze reads the same qos:
// section and builds the same plan (qos::plan_sl_vl for the SL file's
// layers), so a read-back fabric is scored on the VLs it really uses.
#include "cli/app.h"
#include "config/config.h"
#include "qos/sl_vl_plan.h"
#include "tools/args.h"
#include "tools/progress.h"
#include "tools/route_input.h"
#include "tools/subcommands.h"

#include <array>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace ibsm::tools {

namespace {

constexpr const char* analyze_description = R"(Scores unicast forwarding tables. DIR is an `ibsm route` output directory
(DIR/topology.net + DIR/lfts.dump, and DIR/sl.txt and DIR/paths.txt when
they exist); otherwise
give a topology in ibnetdiscover format (a live fabric's `ibnetdiscover`
output) and the matching `dump_fts` output, or OpenSM's opensm-lfts.dump
(written at log level 0x40 to its dump_files_dir; the format is detected). LIDs are taken from the topology
file as ibnetdiscover shows them. Without an SL file every pair uses SL 0.
With --qos, each SL of the SL file (the routing's layer) is checked on every
VL the configuration's qos: tables give it between switches, as ibsmd's
verification gate does; without it SL s travels on VL s.
Exit status 2 with --fail-on-problem when there are problems.
)";

// The VLs the ports operate for routing.max_vls (1, 2, 4, 8 or 15), the
// budget ibsmd plans against.
unsigned operational_vls(unsigned max_vls)
{
    for (unsigned n : {15u, 8u, 4u, 2u})
        if (max_vls >= n) return n;
    return 1;
}

// Per routing SL, the VLs the qos: section of `config_path` gives it for a
// routing on `layers` layers; throws with the numbers when it does not fit.
std::array<std::uint16_t, 16> qos_vl_masks(const std::string& config_path, unsigned layers, std::string* line)
{
    const config::Config cfg = config::load_config_file(config_path);
    if (!cfg.qos.enabled) throw std::runtime_error(config_path + ": no qos: section");
    const unsigned max_vls = operational_vls(cfg.routing.max_vls);
    auto plan = qos::plan_sl_vl(cfg.qos, layers, max_vls);
    if (auto* why = std::get_if<std::string>(&plan))
        throw std::runtime_error(config_path + ": qos: " + *why);
    const auto& p = std::get<qos::SlVlPlan>(plan);
    *line = "qos: " + config_path + ": " + std::to_string(layers) + (layers == 1 ? " layer" : " layers") + " in " +
            std::to_string(p.vls / p.layers) + " VL bands, " + std::to_string(p.vls) + " VLs";
    return p.vl_mask_of_routing_sl;
}

int analyze_main(const Args& args)
{
    const RouteFiles files = route_files(args);
    routing::analysis::Options opt = analysis_options(args);
    // Stage and percentage on stderr when it is a terminal (tools/progress.h).
    ProgressLine progress("ibsm analyze");
    const RouteInput input = load_route_input(files, progress);
    progress.message("ibsm analyze: " + input.summary);
    if (auto qos_config = args.value("qos")) {
        std::string line;
        opt.vl_mask_of_sl = qos_vl_masks(*qos_config, input.tables.vls_used, &line);
        progress.message("ibsm analyze: " + line);
    }
    routing::analysis::Report report = run_analysis(input, std::move(opt), args, progress);
    progress.stop();
    const double total = report.seconds.back().second;

    std::string text = args.has("json") ? routing::analysis::to_json(report) : routing::analysis::to_text(report);
    if (auto out = args.value("out")) {
        std::ofstream f(*out);
        if (!f) throw std::runtime_error(*out + ": cannot write");
        f << text;
        if (!f.flush()) throw std::runtime_error(*out + ": write failed");
    } else {
        std::cout << text;
    }
    std::cerr << "ibsm analyze: done in " << total << " s\n";
    return args.has("fail-on-problem") && has_problem(report) ? cli::exit_partial : cli::exit_ok;
}

} // namespace

const CommandSpec& analyze_command()
{
    static const CommandSpec spec{
        "analyze",
        "score forwarding tables: reachability, credit loops, EBB, shifts, hops",
        analyze_description,
        [] {
            std::vector<OptionSpec> o = route_input_options();
            o.push_back({"qos", "CONFIG",
                         "ibsmd configuration whose qos: section was programmed: each SL of the SL file is "
                         "checked on every VL its SL2VL tables give it between switches, as ibsmd's gate does"});
            o.push_back({"json", "", "print the report as JSON instead of text"});
            o.push_back({"out", "FILE", "write the report to FILE instead of stdout"});
            for (auto& t : analysis_tuning_options()) o.push_back(std::move(t));
            o.push_back({"fail-on-problem", "",
                         "exit 2 when there are unreachable CA pairs, forwarding loops or credit loops"});
            return o;
        }(),
        "DIR",
        "an `ibsm route` output directory (or give --topology and --lfts)",
        {},
        analyze_main,
    };
    return spec;
}

} // namespace ibsm::tools
