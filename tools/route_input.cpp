#include "tools/route_input.h"

#include "routing/lft_dump.h"
#include "routing/path_file.h"
#include "routing/sl_file.h"
#include "topology/netfile_file.h"
#include "topology/node_map_file.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace ibsm::tools {

namespace {

std::vector<std::string> read_lines(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot open");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

} // namespace

RouteFiles route_dir_files(const std::string& dir, const std::string& sl, const std::string& paths)
{
    RouteFiles f{dir + "/topology.net", dir + "/lfts.dump", sl, paths, {}};
    if (!std::filesystem::exists(f.lfts) && std::filesystem::exists(dir + "/opensm-lfts.dump"))
        f.lfts = dir + "/opensm-lfts.dump";
    if (f.sl.empty() && std::filesystem::exists(dir + "/sl.txt")) f.sl = dir + "/sl.txt";
    if (f.paths.empty() && std::filesystem::exists(dir + "/paths.txt")) f.paths = dir + "/paths.txt";
    return f;
}

RouteFiles route_files(const Args& args)
{
    const std::string sl = args.value("sl").value_or("");
    const std::string paths = args.value("paths").value_or("");
    const std::string names = args.value("node-name-map").value_or("");
    if (args.positional().size() == 1) {
        if (args.has("topology") || args.has("lfts"))
            throw UsageError("give either a route directory or --topology and --lfts, not both");
        RouteFiles f = route_dir_files(args.positional()[0], sl, paths);
        f.node_name_map = names;
        return f;
    }
    if (args.positional().empty())
        return RouteFiles{args.required("topology"), args.required("lfts"), sl, paths, names};
    throw UsageError("expected one route directory, got " + std::to_string(args.positional().size()) + " arguments");
}

RouteInput load_route_input(const RouteFiles& files, ProgressLine& progress)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    RouteInput in;
    {
        ProgressFileStream net(files.topology, progress, "read topology");
        in.fabric = topology::read_net(net, files.topology);
    }
    if (!files.node_name_map.empty()) apply_node_name_map(files.node_name_map, in.fabric);
    const topology::Fabric& fabric = in.fabric;
    ProgressFileStream lft_in(files.lfts, progress, "read LFTs");
    auto dumps = routing::parse_dump_fts(lft_in, files.lfts);
    const bool opensm = !dumps.empty() && std::all_of(dumps.begin(), dumps.end(), [](const auto& d) { return d.opensm; });
    in.tables = routing::tables_from_dump(dumps, fabric, files.lfts, opensm ? "opensm-lfts" : "dump_fts");
    routing::RoutingTables& tables = in.tables;
    if (!files.sl.empty()) {
        ProgressFileStream sl_in(files.sl, progress, "read SLs");
        auto sls = routing::read_sl_file(sl_in, files.sl, fabric);
        tables.sl = std::move(sls.sl);
        tables.vls_used = sls.vls;
    }
    if (!files.paths.empty()) {
        std::ifstream p(files.paths);
        if (!p) throw std::runtime_error(files.paths + ": cannot open");
        auto dl = routing::resolve_path_file(routing::read_path_file(p, files.paths), fabric, files.paths);
        // The blocks must be the ones the topology shows, or the DLIDs mean nothing.
        for (const auto& d : dl.destinations) {
            const auto& port = fabric.port(d.port);
            if (port.lid != d.base || port.lmc != d.lmc)
                throw std::runtime_error(files.paths + ": port " + port.guid.str() + " has LID " +
                                         std::to_string(d.base.value()) + " LMC " + std::to_string(d.lmc) +
                                         " in the path file but LID " + std::to_string(port.lid.value()) + " LMC " +
                                         std::to_string(port.lmc) + " in " + files.topology);
        }
        tables.pair_dlids = std::make_shared<const routing::PairDlids>(std::move(dl));
    }
    in.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    std::ostringstream s;
    s << fabric.switch_count() << " switches, " << fabric.ca_count() << " CAs, " << tables.lfts.size()
      << " forwarding tables"
      << (files.sl.empty() ? std::string()
                           : ", SLs of " + std::to_string(tables.sl.sources().size()) + " sources over " +
                                 std::to_string(tables.vls_used) + " VLs")
      << (files.paths.empty() ? std::string()
                              : ", DLIDs of " + std::to_string(tables.pair_dlids->sources.size()) + " sources to " +
                                    std::to_string(tables.pair_dlids->destinations.size()) + " destinations")
      << " read in " << in.seconds << " s";
    in.summary = s.str();
    return in;
}

std::vector<OptionSpec> route_input_options()
{
    return {
        {"topology", "NETFILE", "topology in ibnetdiscover format (instead of DIR)"},
        {"lfts", "DUMPFILE", "the matching dump_fts output, or OpenSM's opensm-lfts.dump (instead of DIR)"},
        {"sl", "FILE",
         "SL of every (source port, destination LID) pair, as `ibsm route` and ibsmd's state dump write it "
         "(sl.txt); the credit-loop check then runs per VL (SL = VL)"},
        {"paths", "FILE",
         "per-pair path routing: the DLID of every (source, destination) pair, as `ibsm route` and ibsmd's "
         "state dump write it (paths.txt); reachability, hops, link loads, EBB and the credit-loop check then "
         "follow each pair on the DLID it uses, not the base LID"},
        node_name_map_option(),
    };
}

OptionSpec node_name_map_option()
{
    return {"node-name-map", "FILE",
            "infiniband-diags' node-name-map (GUID \"name\" per line, as ibnetdiscover -N reads it): nodes are "
            "named by it instead of their NodeDescription"};
}

void apply_node_name_map(const std::string& path, topology::Fabric& fabric)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open node-name-map '" + path + "'");
    topology::apply_node_names(fabric, topology::parse_node_name_map(in, path));
}

std::vector<Guid> read_guid_file(const std::string& path, const std::string& option)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("--" + option + ": cannot open '" + path + "'");
    return topology::parse_guid_file(in, path);
}

std::vector<OptionSpec> analysis_tuning_options()
{
    return {
        {"bisections", "N", "random bisect patterns for the effective bisection bandwidth (default 1000; 0 skips it)"},
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
    };
}

routing::analysis::Options analysis_options(const Args& args)
{
    routing::analysis::Options opt;
    opt.ebb.bisections = static_cast<unsigned>(args.number("bisections", 1000, 0, 100000000));
    opt.run_ebb = opt.ebb.bisections > 0;
    opt.ebb.seed = static_cast<std::uint32_t>(args.number("seed", std::mt19937::default_seed, 0, 0xFFFFFFFFu));
    opt.ebb.bidirectional = args.has("bidirectional");
    opt.run_shifts = !args.has("no-shifts");
    opt.switch_traffic = !args.has("no-switch-traffic");
    opt.threads = static_cast<unsigned>(args.number("threads", 0, 0, 1024));
    opt.max_examples = args.number("examples", 5, 0, 100000);
    if (auto order = args.value("order")) opt.order_lines = read_lines(*order);
    return opt;
}

routing::analysis::Report run_analysis(const RouteInput& input, routing::analysis::Options options, const Args& args,
                                       ProgressLine& progress)
{
    options.progress = [&](std::string_view stage, std::size_t done, std::size_t total) {
        progress.update(stage, done, total);
    };
    routing::analysis::Report report;
    try {
        report = routing::analysis::analyze(input.fabric, input.tables, options);
    } catch (const std::invalid_argument& e) {
        // Bad host order lines name their line; say which file.
        std::string what = e.what();
        auto order = args.value("order");
        if (order && what.rfind("line ", 0) == 0) throw std::runtime_error(*order + ": " + what);
        throw;
    }
    report.seconds.insert(report.seconds.begin(), {"load", input.seconds});
    double total = 0;
    for (const auto& [stage, s] : report.seconds) total += s;
    report.seconds.emplace_back("total", total);
    return report;
}

bool has_problem(const routing::analysis::Report& r)
{
    using routing::analysis::PairClass;
    for (const auto& c : r.classes)
        if (c.loops) return true;
    return r.of(PairClass::ca_to_ca).unreachable || r.credit_ca_only.has_loop() || r.credit_all.has_loop();
}

} // namespace ibsm::tools
