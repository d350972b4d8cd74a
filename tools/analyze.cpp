// `ibsm analyze`: score forwarding tables — ours from `ibsm route`, or any
// SM's read back from a live fabric with ibnetdiscover + dump_fts — with the
// route-quality analysis of routing/analysis (reachability, forwarding and
// credit loops, edge-forwarding index, effective bisection bandwidth, shift
// permutations, hops and stretch). This file only does the file and
// command-line work.
#include "cli/app.h"
#include "tools/args.h"
#include "tools/progress.h"
#include "tools/route_input.h"
#include "tools/subcommands.h"

#include <fstream>
#include <iostream>
#include <string>
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
Exit status 2 with --fail-on-problem when there are problems.
)";

int analyze_main(const Args& args)
{
    const RouteFiles files = route_files(args);
    routing::analysis::Options opt = analysis_options(args);
    // Stage and percentage on stderr when it is a terminal (tools/progress.h).
    ProgressLine progress("ibsm analyze");
    const RouteInput input = load_route_input(files, progress);
    progress.message("ibsm analyze: " + input.summary);
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
