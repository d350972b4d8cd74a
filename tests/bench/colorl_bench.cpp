// Seed 002's experiments: LID-assignment heuristics over per-pair
// routings, and "separate" against destination-based schemes, on seed 002
// §5's random irregular fabrics (topology/gen_scattered.h).
//
//   colorl_bench tables [--instances N] [--threads T] [--configs 128/16,256/16,...]
//                       [--k K] [--slack S] [--per-pair]   (pathsel's parameters, pathsel.h)
//                       [--random-root | --peripheral-root]   (one root per instance, drawn at
//                       random as the paper does, or the least central switch, instead of
//                       the engines' best of 8 central roots; the updn engine keeps its own)
//   colorl_bench speed [--threads T] [--scattered M/S[,...]] [NETFILE...]
//
// tables: per configuration (machines/switches, average switch degree 8), N
// instances (seeds 1..N, default 32), the averages of
//   Table 1: total LIDs per heuristic (greedy, s-m/S, s-m/L, color/S,
//            color/L) over shortest-widest paths;
//   Table 2: the same over pathsel paths;
//   Table 3: maximum link load and LIDs of "fully explicit" (the updn
//            engine's LFTs, one LID per machine), "renaming" (shortest-widest
//            paths, LIDs assigned as the paths are computed: each path takes
//            the first of its destination's LIDs it does not split with, or
//            a new one — destination renaming's online rule) and "separate"
//            (pathsel + color/L);
// each printed beside the paper's figure. As in the paper the LIDs count
// machine-to-machine paths only, 2^ceil(lg k) per machine for k
// configurations; the column "+sw" gives color/L when the switch-to-machine
// paths (which every switch needs for its own traffic) are included too.
// Maximum link load: the most paths on one directed switch-to-switch link,
// divided by machines - 1 (every machine sends 1 in all, spread evenly).
//
// speed: wall and CPU seconds of path computation (pathsel) and color/L over
// all paths (switch paths included), per fabric. Prints figures; judges
// nothing.
#include "common/parallel_for.h"
#include "lidassign/base_lids.h"
#include "lidassign/path_configs.h"
#include "routing/paths/path_engine.h"
#include "routing/paths/pathsel.h"
#include "routing/updn.h"
#include "topology/gen_scattered.h"
#include "topology/netfile_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace ibsm;
using lidassign::ConfigHeuristic;
using topology::Fabric;
using topology::PairPaths;
using Clock = std::chrono::steady_clock;

namespace {

constexpr ConfigHeuristic kHeuristics[] = {ConfigHeuristic::greedy, ConfigHeuristic::split_merge_s,
                                           ConfigHeuristic::split_merge_l, ConfigHeuristic::color_s,
                                           ConfigHeuristic::color_l};

struct Conf {
    unsigned machines, switches;
};

// Seed 002 Tables 1, 2 (greedy, s-m/S, s-m/L, color/S, color/L) and 3
// (explicit load, LIDs; renaming load, LIDs; separate load, LIDs), as printed.
struct PaperRow {
    Conf conf;
    std::array<double, 5> t1, t2;
    std::array<double, 6> t3;
};
const PaperRow kPaper[] = {
    {{128, 16}, {478.7, 478.9, 477.3, 479.3, 476.4}, {520.9, 524.2, 514.0, 581.2, 466.0}, {4.34, 128, 3.84, 477.8, 3.70, 466.0}},
    {{256, 16}, {1044.3, 1045.4, 1041.5, 1047.7, 1039.2}, {951.3, 952.7, 935.0, 1062.6, 851.2}, {8.65, 256, 7.52, 1044.9, 7.35, 851.2}},
    {{512, 16}, {2218.3, 2220.1, 2211.8, 2220.4, 2208.5}, {1829.2, 1852.8, 1823.0, 2038.7, 1653.2}, {17.95, 512, 15.46, 2213.3, 14.91, 1653.2}},
    {{128, 32}, {451.5, 453.9, 452.9, 461.3, 443.0}, {540.3, 546.7, 539.3, 611.3, 466.0}, {3.29, 128, 3.01, 448.1, 2.75, 466.0}},
    {{256, 32}, {1078.8, 1084.7, 1079.0, 1100.0, 1062.4}, {1006.7, 1018.2, 1002.2, 1130.8, 887.2}, {6.89, 256, 6.26, 1079.2, 5.8, 887.2}},
    {{512, 32}, {2428.7, 2440.2, 2425.8, 2461.0, 2392.1}, {1904.0, 1920.3, 1895.7, 2115.8, 1688.7}, {14.71, 512, 13.24, 2422.8, 12.37, 1688.7}},
    {{128, 64}, {422.8, 427.7, 427.0, 441.5, 407.4}, {528.0, 541.1, 530.5, 599.4, 460.5}, {3.29, 128, 3.01, 420.0, 2.75, 460.5}},
    {{256, 64}, {1015.5, 1022.2, 1019.3, 1044.6, 990.6}, {1054.9, 1092.9, 1068.1, 1197.9, 921.4}, {6.15, 256, 5.72, 1011.8, 5.13, 921.4}},
    {{512, 64}, {2325.8, 2338.4, 2330.1, 2385.1, 2274.4}, {2019.9, 2075.4, 2043.4, 2278.6, 1786.6}, {11.36, 512, 10.55, 2323.4, 9.54, 1786.6}},
};

double cpu_seconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::uint64_t lids_for(std::uint32_t configs) { return configs <= 1 ? configs : std::bit_ceil(configs); }

// The machine-to-machine paths only (the paper's routing).
PairPaths machines_only(const Fabric& f, const PairPaths& all)
{
    PairPaths out;
    out.engine = all.engine;
    for (const auto& d : all.destinations) {
        topology::DestinationPaths dd;
        dd.dst = d.dst;
        for (const auto& p : d.paths)
            if (!f.node(p.src.node).is_switch())
                dd.paths.push_back(p);
        out.destinations.push_back(std::move(dd));
    }
    return out;
}

std::uint64_t total_lids(const std::vector<lidassign::DestinationConfigs>& configs)
{
    std::uint64_t total = 0;
    for (const auto& c : configs)
        total += lids_for(c.count);
    return total;
}

// Destination renaming's online rule: each path, in the order the routing
// computed it, takes the first existing LID of its destination it does not
// split with, else a new LID.
std::uint64_t renaming_lids(const Fabric& f, const PairPaths& machine_paths)
{
    std::uint64_t total = 0;
    const std::uint16_t free = 0xFFFF;
    for (const auto& d : machine_paths.destinations) {
        std::vector<std::vector<std::uint16_t>> configs; // by NodeId: out port
        for (const auto& p : d.paths) {
            bool placed = false;
            for (auto& c : configs) {
                const bool fits = std::all_of(p.hops.begin(), p.hops.end(), [&](const topology::PathHop& h) {
                    return c[h.sw.value] == free || c[h.sw.value] == h.out.value();
                });
                if (!fits)
                    continue;
                for (const auto& h : p.hops)
                    c[h.sw.value] = h.out.value();
                placed = true;
                break;
            }
            if (!placed) {
                configs.emplace_back(f.node_count(), free);
                for (const auto& h : p.hops)
                    configs.back()[h.sw.value] = h.out.value();
            }
        }
        total += lids_for(static_cast<std::uint32_t>(configs.size()));
    }
    return total;
}

// Most machine-to-machine paths on one directed switch-to-switch link.
std::uint64_t max_link_paths(const PairPaths& machine_paths)
{
    std::map<std::pair<std::uint32_t, std::uint8_t>, std::uint64_t> load;
    for (const auto& d : machine_paths.destinations)
        for (const auto& p : d.paths)
            for (std::size_t h = 0; h + 1 < p.hops.size(); ++h)
                ++load[{p.hops[h].sw.value, p.hops[h].out.value()}];
    std::uint64_t worst = 0;
    for (const auto& [k, v] : load)
        worst = std::max(worst, v);
    return worst;
}

// "Fully explicit": the updn engine's LFTs with one LID per machine, walked
// from every machine to every other.
std::uint64_t updn_max_link_paths(Fabric f)
{
    auto assigned = lidassign::assign_base_lids(f, {}, lidassign::BaseLidOptions{});
    lidassign::apply_lids(assigned.lids, f);
    auto result = routing::UpdnEngine().compute(f, assigned.lids, routing::Options{});
    if (auto* r = std::get_if<routing::Refusal>(&result))
        throw std::runtime_error("updn refused: " + r->reason);
    const auto& tables = std::get<routing::RoutingTables>(result);
    std::vector<std::pair<topology::PortRef, topology::PortRef>> machines; // (port, switch end)
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (n.is_switch())
            continue;
        for (std::size_t p = 1; p < n.ports.size(); ++p)
            if (n.ports[p].remote)
                machines.emplace_back(topology::PortRef{id, PortNum(static_cast<std::uint8_t>(p))}, *n.ports[p].remote);
    }
    std::map<std::pair<std::uint32_t, std::uint8_t>, std::uint64_t> load;
    for (const auto& [dst, dst_end] : machines) {
        const auto lid = f.port(dst).lid;
        for (const auto& [src, src_end] : machines) {
            if (src == dst)
                continue;
            auto at = src_end.node;
            for (int guard = 0; at != dst_end.node; ++guard) {
                if (guard > 64)
                    throw std::runtime_error("updn LFT walk did not arrive");
                const auto port = tables.lfts.at(at).at(lid);
                ++load[{at.value, port}];
                at = f.remote(topology::PortRef{at, PortNum(port)})->node;
            }
        }
    }
    std::uint64_t worst = 0;
    for (const auto& [k, v] : load)
        worst = std::max(worst, v);
    return worst;
}

routing::paths::PathselParams g_pathsel; // from the command line
bool g_random_root = false;               // --random-root: the paper's root choice
bool g_peripheral_root = false;           // --peripheral-root: the switch of largest eccentricity

// The Up*/Down* root of the path engines: their default (Options without
// roots: the best of the 8 most central, routing/paths/updn_paths.h), or one
// configured root: drawn per instance (--random-root, as the paper) or the
// least central switch (--peripheral-root).
routing::Options options_for(const Fabric& f, std::uint64_t seed)
{
    routing::Options o;
    std::vector<Guid> switches;
    for (auto id : f.node_ids())
        if (f.node(id).is_switch())
            switches.push_back(f.node(id).guid);
    if (g_peripheral_root) {
        // Largest eccentricity, then largest distance sum, then smallest GUID.
        std::tuple<unsigned, unsigned, Guid> best{0, 0, Guid{}};
        bool have = false;
        for (auto id : f.node_ids()) {
            if (!f.node(id).is_switch())
                continue;
            std::vector<int> dist(f.node_count(), -1);
            std::vector<topology::NodeId> queue{id};
            dist[id.value] = 0;
            unsigned ecc = 0, sum = 0;
            for (std::size_t h = 0; h < queue.size(); ++h) {
                const auto u = queue[h];
                ecc = std::max(ecc, static_cast<unsigned>(dist[u.value]));
                sum += static_cast<unsigned>(dist[u.value]);
                for (const auto& p : f.node(u).ports)
                    if (p.remote && f.node(p.remote->node).is_switch() && dist[p.remote->node.value] < 0) {
                        dist[p.remote->node.value] = dist[u.value] + 1;
                        queue.push_back(p.remote->node);
                    }
            }
            const auto g = f.node(id).guid;
            if (!have || ecc > std::get<0>(best) || (ecc == std::get<0>(best) && sum > std::get<1>(best))) {
                best = {ecc, sum, g};
                have = true;
            }
        }
        o.root_guids = {std::get<2>(best)};
        return o;
    }
    if (!g_random_root)
        return o;
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull; // a fixed mix of the seed: the same root every run
    x ^= x >> 29;
    o.root_guids = {switches[x % switches.size()]};
    return o;
}

PairPaths route(const std::string& engine, const Fabric& f, unsigned threads, std::uint64_t seed = 1)
{
    auto p = g_pathsel;
    p.threads = threads;
    const auto o = options_for(f, seed);
    auto r = engine == "pathsel" ? routing::paths::PathselEngine(p).compute(f, o)
                                 : routing::paths::make_path_engine(engine, threads)->compute(f, o);
    if (auto* refusal = std::get_if<routing::Refusal>(&r))
        throw std::runtime_error(engine + " refused: " + refusal->reason);
    return std::get<PairPaths>(std::move(r));
}

struct Sums {
    std::array<double, 5> t1{}, t2{};
    double sw_colorl_with_switches = 0, ps_colorl_with_switches = 0;
    double explicit_load = 0, renaming_load = 0, renaming_lids = 0, separate_load = 0;
    double seconds = 0;
};

int tables(unsigned instances, unsigned threads, const std::vector<Conf>& confs)
{
    std::printf("seed 002 Tables 1-3 on gen_scattered fabrics (degree 8), %u instances each; ours | paper\n\n",
                instances);
    std::map<std::pair<unsigned, unsigned>, Sums> all;
    for (const auto& conf : confs) {
        Sums s;
        const auto start = Clock::now();
        for (unsigned seed = 1; seed <= instances; ++seed) {
            const auto f = topology::generate_scattered({conf.switches, conf.machines, 8, seed});
            const auto sw_all = route("shortest-widest", f, threads, seed);
            const auto ps_all = route("pathsel", f, threads, seed);
            const auto sw = machines_only(f, sw_all);
            const auto ps = machines_only(f, ps_all);
            for (const auto* pp : {&sw, &ps}) {
                std::size_t n = 0;
                for (const auto& d : pp->destinations)
                    n += d.paths.size();
                if (n != std::size_t{conf.machines} * (conf.machines - 1))
                    throw std::runtime_error(pp->engine + " left machine pairs without a path");
            }
            for (std::size_t h = 0; h < 5; ++h) {
                s.t1[h] += static_cast<double>(total_lids(lidassign::partition_all(sw, kHeuristics[h], threads)));
                s.t2[h] += static_cast<double>(total_lids(lidassign::partition_all(ps, kHeuristics[h], threads)));
            }
            s.sw_colorl_with_switches += static_cast<double>(total_lids(lidassign::partition_all(sw_all, ConfigHeuristic::color_l, threads)));
            s.ps_colorl_with_switches += static_cast<double>(total_lids(lidassign::partition_all(ps_all, ConfigHeuristic::color_l, threads)));
            const double norm = conf.machines > 1 ? conf.machines - 1.0 : 1.0;
            s.explicit_load += static_cast<double>(updn_max_link_paths(f)) / norm;
            s.renaming_load += static_cast<double>(max_link_paths(sw)) / norm;
            s.renaming_lids += static_cast<double>(renaming_lids(f, sw));
            s.separate_load += static_cast<double>(max_link_paths(ps)) / norm;
        }
        s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        const double n = instances;
        for (auto& v : s.t1) v /= n;
        for (auto& v : s.t2) v /= n;
        s.sw_colorl_with_switches /= n;
        s.ps_colorl_with_switches /= n;
        s.explicit_load /= n;
        s.renaming_load /= n;
        s.renaming_lids /= n;
        s.separate_load /= n;
        all[{conf.machines, conf.switches}] = s;
        std::fprintf(stderr, "%u/%u done in %.1f s\n", conf.machines, conf.switches, s.seconds);
    }

    auto paper = [](const Conf& c) -> const PaperRow* {
        for (const auto& r : kPaper)
            if (r.conf.machines == c.machines && r.conf.switches == c.switches)
                return &r;
        return nullptr;
    };
    const char* names = "greedy        s-m/S         s-m/L         color/S       color/L";
    for (int table = 1; table <= 2; ++table) {
        std::printf("Table %d: average total LIDs (%s), ours | paper; +sw = color/L with switch paths\n", table,
                    table == 1 ? "shortest widest" : "path selection");
        std::printf("conf.     %s          +sw\n", names);
        for (const auto& conf : confs) {
            const auto& s = all[{conf.machines, conf.switches}];
            const auto* p = paper(conf);
            std::printf("%3u/%-3u  ", conf.machines, conf.switches);
            for (std::size_t h = 0; h < 5; ++h) {
                const double ours = table == 1 ? s.t1[h] : s.t2[h];
                const double theirs = p ? (table == 1 ? p->t1[h] : p->t2[h]) : 0.0;
                std::printf(" %6.1f|%6.1f", ours, theirs);
            }
            std::printf("   %7.1f\n", table == 1 ? s.sw_colorl_with_switches : s.ps_colorl_with_switches);
        }
        std::printf("\n");
    }
    std::printf("Table 3: maximum link load and LIDs, ours | paper\n");
    std::printf("conf.     explicit load  LIDs   renaming load   LIDs            separate load   LIDs\n");
    for (const auto& conf : confs) {
        const auto& s = all[{conf.machines, conf.switches}];
        const auto* p = paper(conf);
        const std::array<double, 6> zero{};
        const auto& t = p ? p->t3 : zero;
        std::printf("%3u/%-3u   %5.2f|%5.2f  %4u   %5.2f|%5.2f  %6.1f|%6.1f   %5.2f|%5.2f  %6.1f|%6.1f\n", conf.machines,
                    conf.switches, s.explicit_load, t[0], conf.machines, s.renaming_load, t[2], s.renaming_lids, t[3],
                    s.separate_load, t[4], s.t2[4], t[5]);
    }
    return 0;
}

void speed_one(const std::string& label, const Fabric& f, unsigned threads)
{
    const auto c0 = cpu_seconds();
    const auto t0 = Clock::now();
    const auto paths = route("pathsel", f, threads);
    const auto t1 = Clock::now();
    const auto c1 = cpu_seconds();
    const auto configs = lidassign::partition_all(paths, ConfigHeuristic::color_l, threads);
    const auto t2 = Clock::now();
    const auto c2 = cpu_seconds();
    std::size_t n = 0;
    std::uint32_t worst = 0;
    for (std::size_t d = 0; d < paths.destinations.size(); ++d) {
        n += paths.destinations[d].paths.size();
        worst = std::max<std::uint32_t>(worst, configs[d].count);
    }
    auto s = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    std::printf("%-28s %9zu paths  pathsel %6.2f s (cpu %6.2f)  color/L %6.2f s (cpu %6.2f)  total %6.2f s  "
                "LIDs %llu, max %u per destination\n",
                label.c_str(), n, s(t0, t1), c1 - c0, s(t1, t2), c2 - c1, s(t0, t2),
                static_cast<unsigned long long>(total_lids(configs)), worst);
    std::fflush(stdout);
}

std::vector<Conf> parse_confs(const std::string& text)
{
    std::vector<Conf> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto comma = text.find(',', start);
        const auto item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto slash = item.find('/');
        if (slash == std::string::npos)
            throw std::invalid_argument("configuration '" + item + "' is not MACHINES/SWITCHES");
        out.push_back({static_cast<unsigned>(std::stoul(item.substr(0, slash))),
                       static_cast<unsigned>(std::stoul(item.substr(slash + 1)))});
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        if (argc < 2) {
            std::cerr << "usage: colorl_bench tables [--instances N] [--threads T] [--configs M/S,...]\n"
                         "       colorl_bench speed [--threads T] [--scattered M/S,...] [NETFILE...]\n";
            return 2;
        }
        const std::string mode = argv[1];
        unsigned instances = 32;
        unsigned threads = common::worker_count(); // what the engines use by default
        std::vector<Conf> confs;
        for (const auto& r : kPaper)
            confs.push_back(r.conf);
        std::vector<Conf> scattered;
        std::vector<std::string> files;
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc)
                    throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            if (a == "--instances")
                instances = static_cast<unsigned>(std::stoul(value()));
            else if (a == "--threads")
                threads = static_cast<unsigned>(std::stoul(value()));
            else if (a == "--configs")
                confs = parse_confs(value());
            else if (a == "--k")
                g_pathsel.k = static_cast<unsigned>(std::stoul(value()));
            else if (a == "--slack")
                g_pathsel.slack = static_cast<unsigned>(std::stoul(value()));
            else if (a == "--per-pair")
                g_pathsel.per_source_switch = false;
            else if (a == "--random-root")
                g_random_root = true;
            else if (a == "--peripheral-root")
                g_peripheral_root = true;
            else if (a == "--scattered")
                scattered = parse_confs(value());
            else
                files.push_back(a);
        }
        if (mode == "tables")
            return tables(instances, threads, confs);
        if (mode == "speed") {
            std::printf("pathsel + color/L, %u threads\n", threads);
            for (const auto& c : scattered)
                speed_one("scattered " + std::to_string(c.machines) + "/" + std::to_string(c.switches),
                          topology::generate_scattered({c.switches, c.machines, 8, 1}), threads);
            for (const auto& file : files)
                speed_one(file.substr(file.find_last_of('/') + 1), topology::load_net_file(file), threads);
            return 0;
        }
        std::cerr << "unknown mode '" << mode << "'\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "colorl_bench: " << e.what() << "\n";
        return 1;
    }
}
