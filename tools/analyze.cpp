// `ibsm analyze`: score forwarding tables — ours from `ibsm route`, or any
// SM's read back from a live fabric with ibnetdiscover + dump_fts — with the
// route-quality analysis of routing/analysis (reachability, forwarding and
// credit loops, edge-forwarding index, effective bisection bandwidth, shift
// permutations, hops and stretch). This file only does the file and
// command-line work.
#include "cli/app.h"
#include "tools/args.h"
#include "tools/progress.h"
#include "tools/subcommands.h"

#include "routing/analysis/analyze.h"
#include "routing/lft_dump.h"
#include "routing/path_file.h"
#include "routing/sl_file.h"
#include "topology/netfile_file.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
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

std::vector<std::string> read_lines(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot open");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

bool has_problem(const routing::analysis::Report& r)
{
    using routing::analysis::PairClass;
    for (const auto& c : r.classes)
        if (c.loops) return true;
    return r.of(PairClass::ca_to_ca).unreachable || r.credit_ca_only.has_loop() || r.credit_all.has_loop();
}

int analyze_main(const Args& args)
{
    std::string net_path, lft_path;
    std::string sl_path = args.value("sl").value_or("");
    std::string paths_path = args.value("paths").value_or("");
    if (args.positional().size() == 1) {
        if (args.has("topology") || args.has("lfts"))
            throw UsageError("give either a route directory or --topology and --lfts, not both");
        net_path = args.positional()[0] + "/topology.net";
        lft_path = args.positional()[0] + "/lfts.dump";
        if (!std::filesystem::exists(lft_path) && std::filesystem::exists(args.positional()[0] + "/opensm-lfts.dump"))
            lft_path = args.positional()[0] + "/opensm-lfts.dump";
        if (sl_path.empty() && std::filesystem::exists(args.positional()[0] + "/sl.txt"))
            sl_path = args.positional()[0] + "/sl.txt";
        if (paths_path.empty() && std::filesystem::exists(args.positional()[0] + "/paths.txt"))
            paths_path = args.positional()[0] + "/paths.txt";
    } else if (args.positional().empty()) {
        net_path = args.required("topology");
        lft_path = args.required("lfts");
    } else {
        throw UsageError("expected one route directory, got " + std::to_string(args.positional().size()) + " arguments");
    }

    routing::analysis::Options opt;
    opt.ebb.bisections = static_cast<unsigned>(args.number("bisections", 1000, 0, 100000000));
    opt.run_ebb = opt.ebb.bisections > 0;
    opt.ebb.seed = static_cast<std::uint32_t>(args.number("seed", std::mt19937::default_seed, 0, 0xFFFFFFFFu));
    opt.ebb.bidirectional = args.has("bidirectional");
    opt.run_shifts = !args.has("no-shifts");
    opt.switch_traffic = !args.has("no-switch-traffic");
    opt.threads = static_cast<unsigned>(args.number("threads", 0, 0, 1024));
    opt.max_examples = args.number("examples", 5, 0, 100000);
    std::string order_path = args.value("order").value_or("");
    if (!order_path.empty()) opt.order_lines = read_lines(order_path);

    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    // Stage and percentage on stderr when it is a terminal (tools/progress.h).
    ProgressLine progress("ibsm analyze");
    topology::Fabric fabric = [&] {
        ProgressFileStream in(net_path, progress, "read topology");
        return topology::read_net(in, net_path);
    }();
    ProgressFileStream lft_in(lft_path, progress, "read LFTs");
    auto dumps = routing::parse_dump_fts(lft_in, lft_path);
    const bool opensm = !dumps.empty() && std::all_of(dumps.begin(), dumps.end(), [](const auto& d) { return d.opensm; });
    routing::RoutingTables tables = routing::tables_from_dump(dumps, fabric, lft_path, opensm ? "opensm-lfts" : "dump_fts");
    if (!sl_path.empty()) {
        ProgressFileStream sl_in(sl_path, progress, "read SLs");
        auto sls = routing::read_sl_file(sl_in, sl_path, fabric);
        tables.sl = std::move(sls.sl);
        tables.vls_used = sls.vls;
    }
    if (!paths_path.empty()) {
        std::ifstream in(paths_path);
        if (!in) throw std::runtime_error(paths_path + ": cannot open");
        auto dl = routing::resolve_path_file(routing::read_path_file(in, paths_path), fabric, paths_path);
        // The blocks must be the ones the topology shows, or the DLIDs mean nothing.
        for (const auto& d : dl.destinations) {
            const auto& port = fabric.port(d.port);
            if (port.lid != d.base || port.lmc != d.lmc)
                throw std::runtime_error(paths_path + ": port " + port.guid.str() + " has LID " +
                                         std::to_string(d.base.value()) + " LMC " + std::to_string(d.lmc) +
                                         " in the path file but LID " + std::to_string(port.lid.value()) + " LMC " +
                                         std::to_string(port.lmc) + " in " + net_path);
        }
        tables.pair_dlids = std::make_shared<const routing::PairDlids>(std::move(dl));
    }
    double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::ostringstream loaded;
    loaded << "ibsm analyze: " << fabric.switch_count() << " switches, " << fabric.ca_count() << " CAs, "
           << tables.lfts.size() << " forwarding tables"
           << (sl_path.empty() ? std::string() : ", SLs of " + std::to_string(tables.sl.sources().size()) +
                                                     " sources over " + std::to_string(tables.vls_used) + " VLs")
           << (paths_path.empty() ? std::string()
                                  : ", DLIDs of " + std::to_string(tables.pair_dlids->sources.size()) + " sources to " +
                                        std::to_string(tables.pair_dlids->destinations.size()) + " destinations")
           << " read in " << load_s << " s";
    progress.message(loaded.str());
    opt.progress = [&](std::string_view stage, std::size_t done, std::size_t total) {
        progress.update(stage, done, total);
    };

    routing::analysis::Report report;
    try {
        report = routing::analysis::analyze(fabric, tables, opt);
    } catch (const std::invalid_argument& e) {
        // Bad host order lines name their line; say which file.
        std::string what = e.what();
        if (!order_path.empty() && what.rfind("line ", 0) == 0) throw std::runtime_error(order_path + ": " + what);
        throw;
    }
    progress.stop();
    report.seconds.insert(report.seconds.begin(), {"load", load_s});
    double total = 0;
    for (const auto& [stage, s] : report.seconds) total += s;
    report.seconds.emplace_back("total", total);

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
        {
            {"topology", "NETFILE", "topology in ibnetdiscover format (instead of DIR)"},
            {"lfts", "DUMPFILE", "the matching dump_fts output, or OpenSM's opensm-lfts.dump (instead of DIR)"},
            {"sl", "FILE",
             "SL of every (source port, destination LID) pair, as `ibsm route` and ibsmd's state dump write it "
             "(sl.txt); the credit-loop check then runs per VL (SL = VL)"},
            {"paths", "FILE",
             "per-pair path routing: the DLID of every (source, destination) pair, as `ibsm route` and ibsmd's "
             "state dump write it (paths.txt); reachability, hops, link loads, EBB and the credit-loop check then "
             "follow each pair on the DLID it uses, not the base LID"},
            {"json", "", "print the report as JSON instead of text"},
            {"out", "FILE", "write the report to FILE instead of stdout"},
            {"bisections", "N",
             "random bisect patterns for the effective bisection bandwidth (default 1000; 0 skips it)"},
            {"seed", "S", "std::mt19937 seed for the patterns (default 5489)"},
            {"bidirectional", "",
             "bisect pairs send both ways (default: the first host of each pair sends to the second, as in "
             "P-SSSP IV-A)"},
            {"order", "FILE",
             "host order for shift permutations: one host per line (node description, node/port GUID, or LID); "
             "default: hosts in name order"},
            {"no-shifts", "", "skip the shift permutations"},
            {"no-switch-traffic", "",
             "leave switch-originated traffic out (switch->* pairs and the second channel dependency graph)"},
            {"threads", "N", "worker threads (default: all cores)"},
            {"examples", "N", "example pairs listed per problem class (default 5)"},
            {"fail-on-problem", "",
             "exit 2 when there are unreachable CA pairs, forwarding loops or credit loops"},
        },
        "DIR",
        "an `ibsm route` output directory (or give --topology and --lfts)",
        {},
        analyze_main,
    };
    return spec;
}

} // namespace ibsm::tools
