// `ibsm route`: offline routing of a net file. Reads the topology, assigns
// base LIDs (honouring LIDs in the file and an optional guid2lid), runs the
// engine chain, and writes what an SM would program in the files operators
// already know: topology.net (ibnetdiscover text with the LIDs), lfts.dump
// (dump_fts text), guid2lid (OpenSM's LID cache) and, when the engine uses
// more than one SL (dfsssp), sl.txt (routing/sl_file.h). The report (engine
// used, refusals, the verification gate's verdict) goes to stdout; progress
// and timings to stderr. Exit status (cli/app.h): 0 verified tables
// written, 1 no engine produced tables (or an error), 2 degraded: no
// engine's tables passed the gate and the least bad were written anyway,
// 64 usage. Defaults are ibsmd's: the same engine chain, LMC and VLs.
#include "tools/args.h"
#include "tools/progress.h"
#include "tools/route_input.h"
#include "tools/subcommands.h"

#include "cli/app.h"
#include "config/config.h"

#include "lidassign/base_lids.h"
#include "lidassign/guid2lid.h"
#include "routing/chain.h"
#include "routing/lft_dump.h"
#include "routing/path_file.h"
#include "routing/paths/path_stage.h"
#include "routing/registry.h"
#include "routing/root_guids.h"
#include "routing/sl_file.h"
#include "topology/netfile_file.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ibsm::tools {

namespace {

constexpr const char* description = R"(Assigns LIDs, routes the fabric with a chain of engines and writes
  DIR/topology.net   the fabric as ibnetdiscover prints it, with the LIDs
  DIR/lfts.dump      the forwarding tables as dump_fts prints them
  DIR/guid2lid       OpenSM's LID cache format (port GUID, first and last LID)
  DIR/sl.txt         only when the engine uses more than one SL (dfsssp): the
                     SL of every (source port, destination LID) pair, one
                     line per source, one hex digit per LID (format in the
                     file's header); `ibsm analyze DIR` reads it
  DIR/paths.txt      only for per-pair path engines (updn-paths, pathsel,
                     shortest-widest): the DLID every source port uses
                     toward every destination port (routing/path_file.h);
                     `ibsm analyze DIR` follows each pair on it
The engine used, every refusal and the verification gate's verdict are
reported on stdout. Every engine's tables are checked (every CA<->CA,
CA->switch and switch->CA pair delivered, switch pairs too for engines that
promise them, no credit loop per VL); tables that fail count as a refusal.
If none pass, the least bad are written, "DEGRADED: ..." is printed and the
exit status is 2 (0: verified, 1: no tables, 64: usage error).
The defaults (engine chain, LMC, VLs) are ibsmd's (config/config.h).
)";



using Clock = std::chrono::steady_clock;

// ibsmd's default chain (routing.engines), so both route alike.
std::string default_engines()
{
    std::string list;
    for (const auto& e : config::RoutingConfig{}.engines) list += (list.empty() ? "" : ",") + e;
    return list;
}

double seconds_since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A timing line above the progress line (tools/progress.h).
void progress(ProgressLine& line, const std::string& what, Clock::time_point t0)
{
    std::ostringstream text;
    text << "ibsm route: " << what << " (" << std::fixed << std::setprecision(3) << seconds_since(t0) << " s)";
    line.message(text.str());
}

std::ifstream open_input(const std::string& path, const std::string& what)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + what + " '" + path + "'");
    return in;
}

std::vector<Guid> read_roots(const std::string& path)
{
    auto in = open_input(path, "roots file");
    return routing::parse_root_guids(in, path);
}

// Where ibsim attaches the first client: the first node in the file.
Guid default_sm_port(const topology::Fabric& fabric)
{
    if (fabric.node_count() == 0) return Guid();
    const auto& n = fabric.node(topology::NodeId{0});
    if (n.is_switch()) return n.guid;
    for (std::size_t p = 1; p < n.ports.size(); ++p)
        if (n.ports[p].remote) return n.ports[p].guid;
    return Guid();
}

template <typename Write> void write_file(const std::filesystem::path& path, Write&& write)
{
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write '" + path.string() + "'");
    write(out);
    out.flush();
    if (!out) throw std::runtime_error("error writing '" + path.string() + "'");
}

int route_main(const Args& args)
{
    const std::string net = args.required("topology");
    const std::filesystem::path out_dir = args.required("out");

    routing::ChainSpec chain;
    try {
        chain.engines = routing::split_engine_list(args.value("engine").value_or(default_engines()));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--engine: ") + e.what());
    }
    chain.no_fallback = args.has("no-fallback");
    const auto registry = routing::default_registry();
    try {
        routing::validate(registry, chain);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--engine: ") + e.what());
    }

    routing::Options options;
    const config::RoutingConfig defaults;
    options.lmc = static_cast<std::uint8_t>(args.number("lmc", defaults.lmc, 0, 7));
    options.max_vls = static_cast<std::uint8_t>(args.number("max-vls", defaults.max_vls, 1, 15));
    if (auto roots = args.value("roots")) options.root_guids = read_roots(*roots);
    if (auto f = args.value("cn-guid-file")) options.compute_nodes = read_guid_file(*f, "cn-guid-file");
    if (auto f = args.value("io-guid-file")) options.io_nodes = read_guid_file(*f, "io-guid-file");
    options.max_reverse_hops =
        static_cast<std::uint16_t>(args.number("max-reverse-hops", defaults.max_reverse_hops, 0, 65535));
    if (auto f = args.value("guid-routing-order-file"))
        options.routing_order = read_guid_file(*f, "guid-routing-order-file");
    if (auto b = args.value("balancing")) {
        if (*b == "global")
            options.balancing = routing::Balancing::global;
        else if (*b == "local")
            options.balancing = routing::Balancing::local;
        else
            throw UsageError("--balancing: expected global or local, got '" + *b + "'");
    }

    if (auto h = args.value("lid-assignment")) {
        auto v = lidassign::config_heuristic_from(*h);
        if (!v) throw UsageError("--lid-assignment: expected color-l, color-s, greedy, split-merge-l or split-merge-s, got '" + *h + "'");
        options.lid_assignment = *v;
    }
    if (auto o = args.value("lid-order")) {
        auto v = lidassign::lid_order_from(*o);
        if (!v) throw UsageError("--lid-order: expected colour-first or fixed-lmc, got '" + *o + "'");
        options.lid_order = *v;
    }

    const auto t0 = Clock::now();
    // Stage and percentage on stderr when it is a terminal.
    ProgressLine line("ibsm route");
    auto fabric = [&] {
        ProgressFileStream in(net, line, "read topology");
        return topology::read_net(in, net);
    }();
    if (auto names = args.value("node-name-map")) apply_node_name_map(*names, fabric);
    progress(line, "read " + net + ": " + std::to_string(fabric.switch_count()) + " switches, " +
                 std::to_string(fabric.node_count() - fabric.switch_count()) + " CAs/routers, " +
                 std::to_string(fabric.link_count()) + " links",
             t0);
    for (Guid g : options.root_guids) {
        auto id = fabric.find_node(g);
        if (!id || !fabric.node(*id).is_switch())
            throw std::runtime_error("root " + g.str() + " is not a switch of " + net);
    }
    options.sm_port_guid = args.has("sm-port") ? Guid(parse_number(*args.value("sm-port"), "--sm-port", 1, UINT64_MAX))
                                               : default_sm_port(fabric);
    if (!options.sm_port_guid.is_zero() && !fabric.find_port(options.sm_port_guid))
        throw std::runtime_error("SM port " + options.sm_port_guid.str() + " is not in " + net);

    lidassign::GuidLidMap previous;
    if (auto path = args.value("guid2lid")) {
        auto in = open_input(*path, "guid2lid file");
        previous = lidassign::read_guid2lid(in, *path);
    }
    lidassign::BaseLidOptions lid_options;
    lid_options.lmc = options.lmc;
    auto t1 = Clock::now();
    line.update("assign LIDs");
    auto assigned = lidassign::assign_base_lids(fabric, previous, lid_options);
    for (const auto& note : assigned.notes) line.message("ibsm route: note: " + note.text);
    options.previous_lids = previous;
    progress(line, "assigned LIDs to " + std::to_string(assigned.lids.port_count()) + " ports, top LID " +
                 std::to_string(assigned.lids.top().value()),
             t1);

    auto t2 = Clock::now();
    line.message("ibsm route: routing with " + args.value("engine").value_or(default_engines()) +
                 (chain.no_fallback ? " (no fallback)" : "") + " ...");
    options.progress = [&](std::string_view stage, std::size_t done, std::size_t total) {
        line.update(stage, done, total);
    };
    auto outcome = routing::run_chain(registry, chain, fabric, assigned.lids, options);
    const double route_s = seconds_since(t2);
    progress(line, outcome.tables ? "routed by " + outcome.engine() : std::string("no engine routed the fabric"), t2);

    // The report goes to stdout once the progress line is gone.
    std::ostringstream report;
    for (const auto& r : outcome.refusals) report << "refused: " << r.engine << ": " << r.reason << '\n';
    if (!outcome.tables) {
        report << "engine: none" << (chain.no_fallback ? " (no fallback)" : "") << '\n';
        line.stop();
        std::cout << report.str();
        return 1;
    }
    report << "engine: " << outcome.engine() << (outcome.fell_back ? " (fallback)" : "") << '\n';
    if (outcome.degraded) {
        report << "DEGRADED: no engine's tables passed verification; writing the least bad, " << outcome.degraded_reason
               << '\n';
    } else if (const auto* v = outcome.verdict()) {
        report << "verified: every CA pair, CA->switch and switch->CA pair delivered"
               << (v->switch_pairs_checked ? ", every switch pair too" : "") << "; no credit loop in "
               << (v->switch_pairs_checked ? "CA and switch" : "CA") << " traffic on "
               << int(std::max<std::uint8_t>(outcome.tables->vls_used, 1)) << " VL(s)\n";
    }

    // The engine is deterministic: running it again on the same input (before
    // the LIDs are written onto the fabric) gives the paths it chose.
    std::optional<topology::PairPaths> chosen;
    if (args.has("selected-paths"))
        if (auto pe = routing::paths::chain_path_engine(outcome.engine(), 0))
            if (auto got = pe->compute(fabric, options); auto* pp = std::get_if<topology::PairPaths>(&got))
                chosen = std::move(*pp);
    // A path engine in the colour-first order assigned the LIDs itself.
    const lidassign::LidMap& lids = outcome.tables->lids ? *outcome.tables->lids : assigned.lids;
    for (const auto& note : outcome.tables->lid_notes) report << "lid-assignment: " << note << '\n';
    for (const auto& note : outcome.tables->notes) report << "note: " << outcome.engine() << ": " << note << '\n';
    lidassign::apply_lids(lids, fabric);

    auto t3 = Clock::now();
    line.update("write files");
    std::filesystem::create_directories(out_dir);
    topology::WriteOptions wo;
    wo.comments.push_back("routed by ibsm route, engine " + outcome.engine() + ", LMC " + std::to_string(options.lmc));
    topology::save_net_file((out_dir / "topology.net").string(), fabric, wo);
    write_file(out_dir / "lfts.dump",
               [&](std::ostream& o) { routing::write_dump_fts(o, fabric, lids, *outcome.tables); });
    write_file(out_dir / "guid2lid", [&](std::ostream& o) { lidassign::write_guid2lid(o, fabric, lids); });
    const bool path_file = outcome.tables->pair_dlids != nullptr;
    std::filesystem::remove(out_dir / "paths.txt");
    if (path_file)
        write_file(out_dir / "paths.txt", [&](std::ostream& o) {
            routing::write_path_file(o, fabric, *outcome.tables->pair_dlids, outcome.engine());
        });
    // A stale SL file from an earlier run must not be read with these tables.
    const bool several_sls = outcome.tables->sl.max_sl() > 0;
    std::filesystem::remove(out_dir / "sl.txt");
    if (several_sls)
        write_file(out_dir / "sl.txt", [&](std::ostream& o) { routing::write_sl_file(o, fabric, *outcome.tables); });
    std::filesystem::remove(out_dir / "selected-paths.txt");
    if (chosen)
        write_file(out_dir / "selected-paths.txt", [&](std::ostream& o) { routing::write_selected_paths(o, fabric, *chosen); });
    line.stop();
    progress(line, "wrote " + (out_dir / "topology.net").string() + ", lfts.dump, guid2lid" +
                 (several_sls ? ", sl.txt" : "") + (path_file ? ", paths.txt" : ""),
             t3);
    report << "lids: " << lids.port_count() << " ports, top " << lids.top().value() << ", LMC "
           << (outcome.tables->lids ? std::string("per port") : std::to_string(options.lmc)) << '\n'
           << "switches: " << outcome.tables->lfts.size() << '\n'
           << "vls: " << int(outcome.tables->vls_used) << " used, " << int(outcome.tables->layers_needed)
           << " needed\n"
           << "route time: " << std::fixed << std::setprecision(3) << route_s << " s\n"
           << "time: " << std::fixed << std::setprecision(3) << seconds_since(t0) << " s\n";
    std::cout << report.str();
    return outcome.degraded ? cli::exit_partial : cli::exit_ok;
}

} // namespace

const CommandSpec& route_command()
{
    static const CommandSpec spec{
        "route",
        "assign LIDs and route a net file with an engine chain; write LFTs as dump_fts text",
        description,
        {
            {"topology", "NET", "ibnetdiscover / ibsim net file", true},
            {"out", "DIR", "output directory, created if missing", true},
            {"engine", "E[,E2...]",
             "engines to try in order (default: " + default_engines() +
                 ", as ibsmd); unless --no-fallback, minhop is tried last if all refuse"},
            {"no-fallback", "", "do not fall back to minhop"},
            {"lmc", "N", "LID mask control, 0..7 (default 0)"},
            {"max-vls", "N", "data VLs the engines may use, 1..15 (default 8)"},
            {"roots", "FILE", "root switch node GUIDs for tree engines and updn, one per line"},
            {"cn-guid-file", "FILE",
             "OpenSM's cn_guid_file: the compute nodes' port GUIDs (ftree balances them alone; sssp, dfsssp and "
             "nue route them first)"},
            {"io-guid-file", "FILE",
             "OpenSM's io_guid_file: the I/O nodes' port GUIDs (ftree routes them after the compute nodes; sssp, "
             "dfsssp and nue after the compute nodes, before the rest)"},
            {"max-reverse-hops", "N",
             "OpenSM's max_reverse_hops: ftree and sftree may route CAs to an I/O node of --io-guid-file above "
             "the leaves going down and up again N times (default 0)"},
            {"guid-routing-order-file", "FILE",
             "OpenSM's guid_routing_order_file: port GUIDs minhop, sssp, dfsssp and nue route first, in order"},
            node_name_map_option(),
            {"balancing", "B",
             "global (default) or local: how updn spreads routes over equal-hop paths (SSSP channel loads, or "
             "the least used port at each switch as OpenSM does)"},
            {"guid2lid", "FILE", "previous LID assignment to honour (OpenSM format)"},
            {"sm-port", "GUID",
             "port GUID of the SM's port (default: the first port of the first node in the file, where ibsim "
             "puts the SM)"},
            {"lid-assignment", "H",
             "path engines: how each destination's paths are split into configurations (one LID each): color-l "
             "(default), color-s, greedy, split-merge-l, split-merge-s"},
            {"lid-order", "O",
             "path engines: colour-first (default: each CA port gets the LMC its configurations need; blocks in "
             "guid2lid are kept where they still fit) or fixed-lmc (LIDs by --lmc before routing; a destination "
             "needing more than 2^LMC LIDs makes the engine refuse)"},
            {"selected-paths", "",
             "path engines: also write DIR/selected-paths.txt, the path the engine chose for every pair (switch "
             "GUID and output port per hop), to compare with ibtracert"},
        },
        {},
        {},
        {},
        route_main,
    };
    return spec;
}

} // namespace ibsm::tools
