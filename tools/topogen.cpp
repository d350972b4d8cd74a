// `ibsm topogen`: build a fabric with one of the topology generators, apply
// the requested depopulation/degradation, and write it as a net file that
// ibsim and our reader accept, with a CA (the SM host) first.
#include "tools/args.h"
#include "tools/subcommands.h"

#include "topology/fabric.h"
#include "topology/gen_chain.h"
#include "topology/gen_degrade.h"
#include "topology/gen_dragonfly.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"
#include "topology/gen_scattered.h"
#include "topology/gen_ranger.h"
#include "topology/netfile_file.h"
#include "topology/netfile_format.h"
#include "topology/netfile_writer.h"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace ibsm::tools {

namespace {

using topology::Fabric;

constexpr const char* description = R"(Writes the fabric as an ibsim / ibnetdiscover net file with a CA (the SM host)
first. Every kind takes the common options; `ibsm topogen <kind> --help` lists
them with the kind's own.
)";

OptionSpec opt(std::string name, std::string value_name, std::string help)
{
    return {std::move(name), std::move(value_name), std::move(help)};
}

const std::vector<OptionSpec> common_options = {
    opt("out", "FILE", "write the net file here (default: stdout)"),
    opt("hosts-missing", "N", "remove N hosts chosen at random (seeded)"),
    opt("hosts-missing-per-leaf", "K", "remove the last K hosts of every leaf"),
    opt("remove-switches", "M", "remove M host-less switches (seeded)"),
    opt("remove-links", "N", "remove N switch-to-switch links (seeded)"),
    opt("seed", "S", "seed for the random choices (default 1)"),
    opt("allow-disconnect", "", "let removals split the fabric"),
    opt("sm-host", "NAME|GUID", "CA written first (ibsim attaches the SM there); default: the first CA with a cable"),
};

CommandSpec kind(std::string name, std::string summary, std::string text, std::vector<OptionSpec> options)
{
    options.insert(options.end(), common_options.begin(), common_options.end());
    return {std::move(name), std::move(summary), std::move(text), std::move(options), {}, {}, {}, nullptr};
}

std::vector<CommandSpec> kinds()
{
    const auto m = opt("m", "M1,..,Mh", "down-link counts per level, e.g. 12,12,24");
    const auto w = opt("w", "W1,..,Wh", "up-link counts per level, e.g. 1,12,12");
    const auto hosts = opt("hosts-per-switch", "K", "hosts on every switch");
    return {
        kind("pgft", "parallel-ports generalized fat-tree PGFT(h; m; w; p) (seed 003)",
             "Level 0 = hosts; switch ports: down ports first, then up ports.\n"
             "  e.g. --m 12,12,24 --w 1,12,12 --p 1,1,1   (3456 hosts, 720 switches)\n",
             {m, w, opt("p", "P1,..,Ph", "parallel links per level (default all 1)"),
              opt("levels", "H", "number of levels, checked against --m/--w/--p"),
              opt("dual-port", "", "hosts with two ports")}),
        kind("kary", "k-ary n-tree (k^n hosts, n*k^(n-1) switches)", "",
             {opt("k", "K", "switch half-radix, 1..127"), opt("n", "N", "levels, 1..16"),
              opt("dual-port", "", "hosts with two ports")}),
        kind("ranger", "multi-core fat-tree like TACC Ranger",
             "C cores, each a PGFT of switches without hosts (its leaves have M1 free ports), and N edge switches\n"
             "(NEMs) of K hosts with U uplinks to distinct leaves of every core; groups of M1 NEMs share the same\n"
             "U leaves of each core. Defaults: Ranger, 2 cores of PGFT(3;12,12,24;1,12,12;1,1,1), 328 NEMs, 12\n"
             "hosts, 6 uplinks per core (3936 hosts, 1768 switches).\n",
             {opt("cores", "C", "cores (default 2)"), opt("nems", "N", "edge switches (default 328)"),
              opt("hosts-per-nem", "K", "hosts per NEM (default 12)"),
              opt("uplinks-per-core", "U", "uplinks of each NEM to each core (default 6)"),
              opt("core-m", "M1,..,Mh", "core shape: down-link counts per level"),
              opt("core-w", "W1,..,Wh", "core shape: up-link counts per level"),
              opt("core-p", "P1,..,Ph", "core shape: parallel links per level")}),
        kind("chain", "N two-level trees in a row, neighbours joined leaf to leaf",
             "N two-level trees (S spines, L leaves of P-port switches, H host ports per leaf) in a row;\n"
             "neighbouring trees joined by C leaf-to-leaf cables that take host ports (leaves picked by --seed).\n"
             "Defaults: 3 x (12 spines, 24 leaves, 24 ports, 12 hosts), 30 cables: the 744-host \"Deimos-like\"\n"
             "fabric of seed 001.\n",
             {opt("trees", "N", "trees (default 3)"), opt("spines", "S", "spines per tree (default 12)"),
              opt("leaves", "L", "leaves per tree (default 24)"), opt("ports", "P", "switch ports (default 24)"),
              opt("hosts-per-leaf", "H", "host ports per leaf (default 12)"),
              opt("cables", "C", "cables between neighbouring trees (default 30)")}),
        kind("ring", "ring of switches", "", {opt("switches", "N", "switches"), hosts}),
        kind("torus", "2-D torus", "", {opt("x", "X", "switches along x"), opt("y", "Y", "switches along y"), hosts}),
        kind("mesh", "2-D mesh", "", {opt("x", "X", "switches along x"), opt("y", "Y", "switches along y"), hosts}),
        kind("torus3d", "3-D torus (6 switch ports per switch)", "",
             {opt("x", "X", "switches along x"), opt("y", "Y", "switches along y"),
              opt("z", "Z", "switches along z"), hosts}),
        kind("hypercube", "2^D switches, switch i cabled to i xor 2^b for every bit b", "",
             {opt("dimension", "D", "dimension, 1..16"), hosts}),
        kind("dragonfly", "Dragonfly+: groups of two-level trees, spines joined across groups",
             "G groups of L leaves and P spines; every leaf cabled to every spine of its group, H hosts per leaf.\n"
             "Spine s of each group is cabled to spine s of K other groups (default K = G-1: every group pair on\n"
             "every spine; fewer are spread round robin over the spines). Leaf ports: hosts, then spines; spine\n"
             "ports: leaves, then global links.\n  e.g. --groups 4 --leaves 2 --spines 2 --hosts-per-leaf 2\n",
             {opt("groups", "G", "groups, at least 2"), opt("leaves", "L", "leaf switches per group"),
              opt("spines", "P", "spine switches per group"), opt("hosts-per-leaf", "H", "hosts on every leaf"),
              opt("global-per-spine", "K", "global links per spine, 1..G-1 (default G-1)")}),
        kind("random", "random cabling between switches (connected; seeded)",
             "N switches of P ports, K hosts each, the other ports cabled at random between switches\n"
             "(connected; seeded, default seed 1).\n  e.g. --switches 64 --hosts-per-switch 12 --ports 24\n",
             {opt("switches", "N", "switches"), hosts, opt("ports", "P", "ports per switch")}),
        kind("scattered", "seed 002's random irregular fabric",
             "N switches, exactly N*D/2 random switch-to-switch cables (average degree D, default 8; connected),\n"
             "M machines each on a uniformly drawn switch.\n  e.g. --switches 64 --machines 512\n",
             {opt("switches", "N", "switches"), opt("machines", "M", "machines (hosts)"),
              opt("degree", "D", "average switch-to-switch degree (default 8)")}),
    };
}

std::string join(const std::vector<unsigned>& v)
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(v[i]);
    }
    return s;
}

// Returns the fabric and a short label naming its parameters.
std::pair<Fabric, std::string> generate(const std::string& kind, const Args& args)
{
    if (kind == "pgft" || kind == "kary") {
        topology::PgftParams p;
        std::string label;
        if (kind == "pgft") {
            p.m = args.number_list("m", 1, 254);
            p.w = args.number_list("w", 1, 254);
            p.p = args.number_list("p", 1, 254);
            if (p.m.empty()) throw UsageError("pgft needs --m (down-link counts per level, e.g. 12,12,24)");
            if (p.w.empty()) throw UsageError("pgft needs --w (up-link counts per level, e.g. 1,12,12)");
            if (p.p.empty()) p.p.assign(p.m.size(), 1);
            if (args.has("levels")) {
                auto h = args.required_number("levels", 1, 16);
                if (h != p.m.size() || h != p.w.size() || h != p.p.size())
                    throw UsageError("--levels " + std::to_string(h) + " but --m/--w/--p give " +
                                     std::to_string(p.m.size()) + "/" + std::to_string(p.w.size()) + "/" +
                                     std::to_string(p.p.size()) + " values");
            }
            label = "PGFT(" + std::to_string(p.m.size()) + "; " + join(p.m) + "; " + join(p.w) + "; " + join(p.p) + ")";
        } else {
            auto k = static_cast<unsigned>(args.required_number("k", 1, 127));
            auto n = static_cast<unsigned>(args.required_number("n", 1, 16));
            p = topology::kary_ntree(k, n);
            label = std::to_string(k) + "-ary " + std::to_string(n) + "-tree";
        }
        p.dual_port_hosts = args.has("dual-port");
        if (p.dual_port_hosts) label += ", dual-port hosts";
        return {topology::generate_pgft(p), label};
    }
    if (kind == "ranger") {
        topology::MulticoreParams r;
        r.cores = static_cast<unsigned>(args.number("cores", r.cores, 1, topology::MulticoreShape::max_cores));
        r.nems = static_cast<unsigned>(args.number("nems", r.nems, 1, UINT32_MAX));
        r.hosts_per_nem = static_cast<unsigned>(args.number("hosts-per-nem", r.hosts_per_nem, 1, 254));
        r.uplinks_per_core = static_cast<unsigned>(args.number("uplinks-per-core", r.uplinks_per_core, 1, 254));
        if (args.has("core-m") || args.has("core-w") || args.has("core-p")) {
            r.core.m = args.number_list("core-m", 1, 254);
            r.core.w = args.number_list("core-w", 1, 254);
            r.core.p = args.number_list("core-p", 1, 254);
            if (r.core.m.empty() || r.core.w.empty())
                throw UsageError("a core shape needs both --core-m and --core-w "
                                 "(e.g. --core-m 12,12,24 --core-w 1,12,12)");
            if (r.core.p.empty()) r.core.p.assign(r.core.m.size(), 1);
        }
        const auto& c = r.core;
        return {topology::generate_multicore(r),
                std::to_string(r.cores) + " cores of PGFT(" + std::to_string(c.m.size()) + "; " + join(c.m) + "; " +
                    join(c.w) + "; " + join(c.p) + "), " + std::to_string(r.nems) + " NEMs x " +
                    std::to_string(r.hosts_per_nem) + " hosts, " + std::to_string(r.uplinks_per_core) +
                    " uplinks per core"};
    }
    if (kind == "chain") {
        topology::ChainParams c;
        c.trees = static_cast<unsigned>(args.number("trees", c.trees, 1, 4096));
        c.spines = static_cast<unsigned>(args.number("spines", c.spines, 1, 254));
        c.leaves = static_cast<unsigned>(args.number("leaves", c.leaves, 1, 254));
        c.ports = static_cast<unsigned>(args.number("ports", c.ports, 2, 254));
        c.hosts_per_leaf = static_cast<unsigned>(args.number("hosts-per-leaf", c.hosts_per_leaf, 0, 253));
        c.cables = static_cast<unsigned>(args.number("cables", c.cables, 0, 65536));
        c.seed = args.number("seed", 1, 0, UINT64_MAX);
        return {topology::generate_chain(c),
                std::to_string(c.trees) + " chained trees of " + std::to_string(c.spines) + " spines, " +
                    std::to_string(c.leaves) + " leaves (" + std::to_string(c.ports) + " ports, " +
                    std::to_string(c.hosts_per_leaf) + " host ports each), " + std::to_string(c.cables) +
                    " cables between neighbours (seed " + std::to_string(c.seed) + ")"};
    }
    if (kind == "ring") {
        topology::RingParams r;
        r.switches = static_cast<unsigned>(args.required_number("switches", 2, 65536));
        r.hosts_per_switch = static_cast<unsigned>(args.required_number("hosts-per-switch", 0, 250));
        return {topology::generate_ring(r),
                "ring of " + std::to_string(r.switches) + " switches x " + std::to_string(r.hosts_per_switch) + " hosts"};
    }
    if (kind == "torus3d") {
        topology::Torus3dParams t;
        t.x = static_cast<unsigned>(args.required_number("x", 1, 65536));
        t.y = static_cast<unsigned>(args.required_number("y", 1, 65536));
        t.z = static_cast<unsigned>(args.required_number("z", 1, 65536));
        t.hosts_per_switch = static_cast<unsigned>(args.required_number("hosts-per-switch", 0, 248));
        return {topology::generate_torus3d(t), "3-D torus " + std::to_string(t.x) + "x" + std::to_string(t.y) + "x" +
                                                   std::to_string(t.z) + " x " + std::to_string(t.hosts_per_switch) +
                                                   " hosts"};
    }
    if (kind == "hypercube") {
        topology::HypercubeParams h;
        h.dimension = static_cast<unsigned>(args.required_number("dimension", 1, 16));
        h.hosts_per_switch = static_cast<unsigned>(args.required_number("hosts-per-switch", 0, 253));
        return {topology::generate_hypercube(h), std::to_string(h.dimension) + "-dimensional hypercube x " +
                                                     std::to_string(h.hosts_per_switch) + " hosts"};
    }
    if (kind == "dragonfly") {
        topology::DragonflyParams d;
        d.groups = static_cast<unsigned>(args.required_number("groups", 2, 65536));
        d.leaves = static_cast<unsigned>(args.required_number("leaves", 1, 65536));
        d.spines = static_cast<unsigned>(args.required_number("spines", 1, 254));
        d.hosts_per_leaf = static_cast<unsigned>(args.required_number("hosts-per-leaf", 0, 253));
        d.global_per_spine = static_cast<unsigned>(args.number("global-per-spine", d.groups - 1, 1, 65535));
        return {topology::generate_dragonfly(d),
                "Dragonfly+ of " + std::to_string(d.groups) + " groups x (" + std::to_string(d.leaves) + " leaves, " +
                    std::to_string(d.spines) + " spines, " + std::to_string(d.hosts_per_leaf) + " hosts per leaf), " +
                    std::to_string(d.global_per_spine) + " global links per spine"};
    }
    if (kind == "scattered") {
        topology::ScatteredParams sp;
        sp.switches = static_cast<unsigned>(args.required_number("switches", 2, 4096));
        sp.machines = static_cast<unsigned>(args.required_number("machines", 0, 1u << 20));
        sp.degree = static_cast<unsigned>(args.number("degree", 8, 1, 4095));
        sp.seed = args.number("seed", 1, 0, UINT64_MAX);
        return {topology::generate_scattered(sp), "scattered " + std::to_string(sp.machines) + " machines on " +
                                                      std::to_string(sp.switches) + " switches of degree " +
                                                      std::to_string(sp.degree) + " (seed " + std::to_string(sp.seed) + ")"};
    }
    if (kind == "random") {
        topology::RandomParams r;
        r.switches = static_cast<unsigned>(args.required_number("switches", 2, 65536));
        r.hosts_per_switch = static_cast<unsigned>(args.required_number("hosts-per-switch", 0, 253));
        r.ports_per_switch = static_cast<unsigned>(args.required_number("ports", 1, 254));
        r.seed = args.number("seed", 1, 0, UINT64_MAX);
        return {topology::generate_random(r), "random " + std::to_string(r.switches) + " switches of " +
                                                  std::to_string(r.ports_per_switch) + " ports x " +
                                                  std::to_string(r.hosts_per_switch) + " hosts (seed " +
                                                  std::to_string(r.seed) + ")"};
    }
    topology::TorusParams t;
    t.x = static_cast<unsigned>(args.required_number("x", 1, 65536));
    t.y = static_cast<unsigned>(args.required_number("y", 1, 65536));
    t.hosts_per_switch = static_cast<unsigned>(args.required_number("hosts-per-switch", 0, 250));
    t.wrap = kind == "torus";
    return {topology::generate_torus(t), kind + " " + std::to_string(t.x) + "x" + std::to_string(t.y) + " x " +
                                             std::to_string(t.hosts_per_switch) + " hosts"};
}

std::string describe(const Fabric& original, Guid g)
{
    auto id = original.find_node(g);
    return id ? "\"" + original.node(*id).description + "\" " + g.str() : g.str();
}

std::optional<topology::NodeId> find_sm_host(const Fabric& f, const std::string& what)
{
    for (topology::NodeId id : f.node_ids()) {
        const auto& n = f.node(id);
        if (n.type != topology::NodeType::ca) continue;
        if (n.description == what || n.guid.str() == what || topology::netfile::node_name(n.type, n.guid) == what)
            return id;
    }
    return std::nullopt;
}

int topogen_main(const Args& args)
{
    const std::string kind = args.command().back();
    const std::uint64_t seed = args.number("seed", 1, 0, UINT64_MAX);
    const auto hosts_missing = args.number("hosts-missing", 0, 0, UINT32_MAX);
    const auto per_leaf = args.number("hosts-missing-per-leaf", 0, 0, 254);
    topology::DegradeSpec spec;
    spec.switches = args.number("remove-switches", 0, 0, UINT32_MAX);
    spec.links = args.number("remove-links", 0, 0, UINT32_MAX);
    spec.seed = seed;
    spec.keep_connected = !args.has("allow-disconnect");

    Fabric fabric;
    std::string label;
    topology::Removal removed;
    Fabric original;
    try {
        std::tie(fabric, label) = generate(kind, args);
        original = fabric;
        if (per_leaf > 0) {
            auto d = topology::remove_hosts_per_leaf(fabric, static_cast<unsigned>(per_leaf));
            fabric = std::move(d.fabric);
            removed.hosts = d.removed.hosts;
        }
        if (hosts_missing > 0) {
            auto d = topology::remove_random_hosts(fabric, hosts_missing, seed);
            fabric = std::move(d.fabric);
            removed.hosts.insert(removed.hosts.end(), d.removed.hosts.begin(), d.removed.hosts.end());
        }
        if (spec.switches > 0 || spec.links > 0) {
            auto d = topology::degrade(fabric, spec);
            fabric = std::move(d.fabric);
            removed.switches = d.removed.switches;
            removed.links = d.removed.links;
        }
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }

    topology::WriteOptions wo;
    if (auto host = args.value("sm-host")) {
        wo.first = find_sm_host(fabric, *host);
        if (!wo.first) throw UsageError("--sm-host: no CA named or with GUID '" + *host + "'");
    } else {
        wo.first = topology::first_cabled_ca(fabric);
        if (!wo.first) throw UsageError("the fabric has no cabled CA for the SM to attach to");
    }

    std::ostringstream summary;
    summary << label << ": " << fabric.node_count() << " nodes (" << fabric.switch_count() << " switches, "
            << fabric.ca_count() << " CAs), " << fabric.link_count() << " links; removed " << removed.hosts.size()
            << " hosts, " << removed.switches.size() << " switches, " << removed.links.size() << " links";
    if (!removed.hosts.empty() || !removed.switches.empty() || !removed.links.empty()) summary << " (seed " << seed << ")";
    summary << "; SM host \"" << fabric.node(*wo.first).description << "\"";

    std::string cmdline = "ibsm";
    for (const auto& a : args.argv()) cmdline += " " + a;
    wo.comments.push_back("command: " + cmdline);
    wo.comments.push_back(summary.str());
    for (Guid g : removed.hosts) wo.comments.push_back("removed host " + describe(original, g));
    for (Guid g : removed.switches) wo.comments.push_back("removed switch " + describe(original, g));
    for (const auto& l : removed.links)
        wo.comments.push_back("removed link " + describe(original, l.a_node) + " [" +
                              std::to_string(l.a_port.value()) + "] - " + describe(original, l.b_node) + " [" +
                              std::to_string(l.b_port.value()) + "]");

    auto out = args.value("out");
    if (!out || *out == "-") {
        topology::write_net(std::cout, fabric, wo);
        std::cerr << summary.str() << '\n';
    } else {
        topology::save_net_file(*out, fabric, wo);
        std::cout << summary.str() << " -> " << *out << '\n';
    }
    return 0;
}

} // namespace

const CommandSpec& topogen_command()
{
    static const CommandSpec spec{
        "topogen", "generate a fabric (PGFT, k-ary n-tree, ring, torus, Dragonfly+, ...) as an ibnetdiscover/ibsim net file",
        description, {}, {}, {}, kinds(), topogen_main,
    };
    return spec;
}

} // namespace ibsm::tools
