// `ibsm whatif`: what taking switches, nodes or links out of a fabric would
// do to its routing, before anyone touches a cable (docs/operations.md,
// "Planned maintenance"). The prediction is whatif/'s (the SM's chain and
// gate, the route analyzer, the LFT blocks that change); this file reads
// the fabric, the LIDs and the configuration and prints the result.
//
// Inputs: a daemon's state directory (DIR, or the state_dir of --config):
// its topology.net (the SM's node first, the LIDs on the ports), the tables
// programmed now (lfts.dump, when dump.lfts wrote it: the disruption is
// counted against them), guid2lid and the links isolated or drained now
// (isolated_links.json, drains.json), which stay out before and after; or --topology NET with an optional --guid2lid. The routing
// chain and its options are the configuration's (--config), else ibsmd's
// defaults.
#include "cli/app.h"
#include "config/config.h"
#include "lidassign/base_lids.h"
#include "lidassign/guid2lid.h"
#include "routing/lft_dump.h"
#include "routing/root_guids.h"
#include "tools/args.h"
#include "tools/progress.h"
#include "tools/route_input.h"
#include "tools/subcommands.h"
#include "topology/netfile_file.h"
#include "whatif/targets.h"
#include "whatif/whatif.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ibsm::tools {

namespace {

constexpr const char* description = R"(Predicts what taking switches, nodes or links out of the fabric does to
its routing, with the SM's own code: the fabric without them is routed by
the configured engine chain, its tables go through the verification gate,
and both routings (now and after) are scored by the route analyzer.
Printed: the nodes cut off (the SM no longer reaches them), the CA pairs
(source port, destination LID) not delivered afterwards, the engine chosen
and the gate's verdict, EBB and the busiest channel's load before and
after, the LFT blocks that would change (what the SM would send) and the
time it took.
  ibsm whatif /var/lib/ibsmd --config /etc/ibsmd/ibsmd.yaml --without switch:spine-3
  ibsm whatif --topology fabric.net --without link:0x0002c90300001234/17 --json
With --out DIR, both routings are written as `ibsm route` writes them
(DIR/before and DIR/after: topology.net, lfts.dump), so that
  ibsm report DIR/before --compare DIR/after --out whatif.html
draws them side by side with the per-link load difference.
Targets: switch:NAME|GUID (every link of the switch), node:NAME|GUID (any
node), link:GUID/PORT (node GUID, or a CA's port GUID, and the port);
NAME is the node-name-map name or the NodeDescription. From a state
directory, the links isolated or drained now stay out on both sides, and
the tables programmed now are DIR/lfts.dump when the daemon writes it
(else they are routed again).
Exit status: 0 nothing cut off and the gate passes, 2 something would be
cut off, pairs lost or the gate fails, 1 error, 64 usage.
)";

std::string read_text(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

Guid guid_of(const std::string& s, const std::string& where)
{
    return Guid(parse_number(s, where, 1, UINT64_MAX));
}

// The link ends isolated_links.json and drains.json of `dir` keep out of the routing.
std::set<topology::PortRef> kept_out(const std::filesystem::path& dir, const topology::Fabric& f)
{
    std::set<topology::PortRef> out;
    auto add = [&](const nlohmann::json& e, const std::string& file) {
        const auto node = f.find_node(guid_of(e.at("node_guid").get<std::string>(), file + ": node_guid"));
        const unsigned port = e.at("port").get<unsigned>();
        if (!node || port == 0 || port > f.node(*node).num_ports()) return; // not in this fabric
        out.insert(topology::PortRef{*node, PortNum(static_cast<std::uint8_t>(port))});
    };
    for (const auto& [file, list] : {std::pair{"isolated_links.json", "isolated"}, std::pair{"drains.json", "drains"}}) {
        const auto path = dir / file;
        if (!std::filesystem::exists(path)) continue;
        try {
            const auto j = nlohmann::json::parse(read_text(path));
            for (const auto& e : j.at(list)) {
                if (std::string(list) == "isolated")
                    add(e, path.string());
                else
                    for (const auto& l : e.at("links")) add(l, path.string());
            }
        } catch (const nlohmann::json::exception& e) {
            throw std::runtime_error(path.string() + ": " + e.what());
        }
    }
    return out;
}

// The configuration's routing as the daemon maps it (daemon/service/settings.cpp).
void configure(const config::Config& cfg, whatif::Setup& s)
{
    s.chain.engines = cfg.routing.engines;
    s.chain.no_fallback = cfg.routing.no_fallback;
    s.route.root_guids = cfg.routing.root_guids;
    if (cfg.routing.root_guid_file) {
        std::ifstream in(*cfg.routing.root_guid_file);
        if (!in) throw std::runtime_error("routing.root_guid_file '" + *cfg.routing.root_guid_file + "': cannot read");
        auto more = routing::parse_root_guids(in, *cfg.routing.root_guid_file);
        s.route.root_guids.insert(s.route.root_guids.end(), more.begin(), more.end());
    }
    if (cfg.routing.cn_guid_file) s.route.compute_nodes = read_guid_file(*cfg.routing.cn_guid_file, "routing.cn_guid_file");
    if (cfg.routing.io_guid_file) s.route.io_nodes = read_guid_file(*cfg.routing.io_guid_file, "routing.io_guid_file");
    if (cfg.routing.guid_routing_order_file)
        s.route.routing_order = read_guid_file(*cfg.routing.guid_routing_order_file, "routing.guid_routing_order_file");
    s.route.max_vls = static_cast<std::uint8_t>(cfg.routing.max_vls);
    s.route.lmc = static_cast<std::uint8_t>(cfg.routing.lmc);
    s.route.lid_assignment =
        lidassign::config_heuristic_from(cfg.routing.lid_assignment).value_or(lidassign::ConfigHeuristic::color_l);
    s.route.lid_order = lidassign::lid_order_from(cfg.routing.lid_order).value_or(lidassign::LidOrder::colour_first);
}

void write_routing(const std::filesystem::path& dir, const whatif::Routing& r, topology::NodeId first,
                   const std::string& what)
{
    std::filesystem::create_directories(dir);
    topology::WriteOptions wo;
    if (first.value < r.fabric.node_count()) wo.first = first;
    wo.comments.push_back("ibsm whatif: " + what);
    topology::save_net_file((dir / "topology.net").string(), r.fabric, wo);
    std::ofstream out(dir / "lfts.dump");
    routing::write_dump_fts(out, r.fabric, r.lids, r.tables);
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + (dir / "lfts.dump").string());
}

int whatif_main(const Args& args)
{
    const auto targets = args.values("without");
    if (targets.empty()) throw UsageError("give at least one --without switch:NAME|GUID, link:GUID/PORT or node:NAME|GUID");
    std::optional<config::Config> cfg;
    if (auto c = args.value("config")) cfg = config::load_config_file(*c);
    std::filesystem::path dir;
    std::string net = args.value("topology").value_or("");
    std::string guid2lid = args.value("guid2lid").value_or("");
    if (args.positional().size() > 1) throw UsageError("one state directory at most");
    if (!args.positional().empty()) dir = args.positional()[0];
    if (!net.empty() && !dir.empty()) throw UsageError("give a state directory or --topology, not both");
    if (net.empty() && dir.empty()) {
        if (!cfg) throw UsageError("give a state directory, --config (its state_dir) or --topology NET");
        dir = cfg->state_dir;
    }
    if (!dir.empty()) {
        net = (dir / "topology.net").string();
        if (!std::filesystem::exists(net))
            throw std::runtime_error(net + " does not exist: is dump.topology on in the daemon's configuration, and "
                                           "has it swept the fabric?");
        if (guid2lid.empty() && std::filesystem::exists(dir / "guid2lid")) guid2lid = (dir / "guid2lid").string();
    }

    ProgressLine line("ibsm whatif");
    auto fabric = [&] {
        ProgressFileStream in(net, line, "read topology");
        return topology::read_net(in, net);
    }();
    if (auto names = args.value("node-name-map")) apply_node_name_map(*names, fabric);
    else if (cfg && cfg->node_name_map) apply_node_name_map(*cfg->node_name_map, fabric);

    whatif::Setup setup;
    setup.chain.engines = config::RoutingConfig{}.engines;
    if (cfg) configure(*cfg, setup);
    if (auto e = args.value("engine")) {
        try {
            setup.chain.engines = routing::split_engine_list(*e);
        } catch (const std::invalid_argument& err) {
            throw UsageError(std::string("--engine: ") + err.what());
        }
    }
    setup.analysis = analysis_options(args);
    setup.analysis.run_shifts = false;
    if (!args.has("bisections")) setup.analysis.ebb.bisections = 100;

    // The SM's port: --sm-port, else the first node of the file (the daemon
    // writes its own node first; ibsim attaches the first client there).
    topology::NodeId sm_node{0};
    if (fabric.node_count() == 0) throw std::runtime_error(net + ": no nodes");
    if (auto sm = args.value("sm-port")) {
        auto p = fabric.find_port(guid_of(*sm, "--sm-port"));
        if (!p) throw std::runtime_error("SM port " + *sm + " is not in " + net);
        sm_node = p->node;
        setup.route.sm_port_guid = fabric.port(*p).guid;
    } else {
        const auto& n = fabric.node(sm_node);
        setup.route.sm_port_guid = n.guid;
        if (!n.is_switch())
            for (std::size_t p = 1; p < n.ports.size(); ++p)
                if (n.ports[p].remote) {
                    setup.route.sm_port_guid = n.ports[p].guid;
                    break;
                }
    }

    lidassign::GuidLidMap previous;
    if (!guid2lid.empty()) {
        std::ifstream in(guid2lid);
        if (!in) throw std::runtime_error("cannot read guid2lid '" + guid2lid + "'");
        previous = lidassign::read_guid2lid(in, guid2lid);
    }
    lidassign::BaseLidOptions lid_options;
    lid_options.lmc = setup.route.lmc;
    // A daemon's topology.net carries the LIDs it programmed: those, so its
    // lfts.dump reads against them; else the LIDs the SM would assign.
    lidassign::LidMap lids = lidassign::lids_from_ports(fabric);
    if (lids.port_count() == 0) lids = lidassign::assign_base_lids(fabric, previous, lid_options).lids;
    setup.route.previous_lids = previous;
    std::optional<routing::RoutingTables> now;
    if (!dir.empty() && std::filesystem::exists(dir / "lfts.dump") && lids.port_count() != 0) {
        const std::string dump = (dir / "lfts.dump").string();
        std::ifstream in(dump);
        if (!in) throw std::runtime_error("cannot read " + dump);
        try {
            now = routing::tables_from_dump(routing::parse_dump_fts(in, dump), fabric, dump, "programmed");
        } catch (const routing::LftDumpError& e) {
            throw std::runtime_error(std::string(e.what()) + " (is lfts.dump of the same generation as topology.net?)");
        }
    }

    whatif::Reduction change;
    for (const auto& t : targets) {
        whatif::Resolved r;
        try {
            r = whatif::resolve(fabric, whatif::parse_target(t));
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--without ") + e.what());
        }
        if (r.target.kind == whatif::TargetKind::link)
            change.links.insert(r.link_end);
        else
            change.removed.insert(r.node);
        change.labels.push_back(std::string(whatif::kind_name(r.target.kind)) + " " + r.label);
    }
    whatif::Input input{fabric, lids, sm_node, dir.empty() ? std::set<topology::PortRef>{} : kept_out(dir, fabric),
                        now ? &*now : nullptr};
    const auto out_dir = args.value("out");
    setup.keep_routings = out_dir.has_value();
    line.update("route and score");
    const auto result = whatif::evaluate(input, change, setup);
    line.stop();
    if (out_dir) {
        const std::filesystem::path d = *out_dir;
        if (result.routing_before) write_routing(d / "before", *result.routing_before, sm_node, "the routing now");
        if (result.routing_after) {
            // The SM's node keeps its place first (it is never cut off from itself).
            auto first = result.routing_after->fabric.find_node(fabric.node(sm_node).guid);
            std::string what;
            for (const auto& t : change.labels) what += (what.empty() ? "without " : ", ") + t;
            write_routing(d / "after", *result.routing_after, first.value_or(topology::NodeId{0}), what);
        }
        std::cerr << "ibsm whatif: wrote " << (d / "before").string() << " and " << (d / "after").string()
                  << "; `ibsm report " << (d / "before").string() << " --compare " << (d / "after").string()
                  << " --out whatif.html` draws them\n";
    }
    if (args.has("json"))
        std::cout << whatif::to_json(result).dump(2) << '\n';
    else
        std::cout << whatif::to_text(result);
    const bool harmless = result.cut_off.empty() && result.unreachable_pairs == 0 && result.failure.empty() &&
                          result.after.gate_passed;
    return harmless ? 0 : 2;
}

} // namespace

const CommandSpec& whatif_command()
{
    static const CommandSpec spec = [] {
        CommandSpec s{"whatif",
                      "what taking switches, nodes or links away would do to the routing",
                      description,
                      {{"without", "TARGET", "switch:NAME|GUID, node:NAME|GUID or link:GUID/PORT; repeatable", true,
                        true},
                       {"config", "FILE", "the daemon's configuration: its routing chain and options, its state_dir"},
                       {"topology", "NET", "a net file (ibnetdiscover or ibsim format) instead of a state directory"},
                       {"guid2lid", "FILE", "LIDs to keep (default: DIR/guid2lid)"},
                       {"sm-port", "GUID", "the SM's port (default: the first node of the net file)"},
                       {"engine", "LIST", "engine chain instead of the configuration's"},
                       {"json", "", "print the result as one JSON object"},
                       {"out", "DIR", "write both routings to DIR/before and DIR/after (for ibsm report --compare)"}},
                      "DIR",
                      "a daemon's state directory (topology.net, guid2lid, isolations and drains)",
                      {},
                      whatif_main};
        s.options.push_back(node_name_map_option());
        for (auto o : analysis_tuning_options()) {
            if (o.name == "bisections") o.help = "random bisect patterns for EBB (default 100 here; 0 skips it)";
            s.options.push_back(o);
        }
        return s;
    }();
    return spec;
}

} // namespace ibsm::tools
