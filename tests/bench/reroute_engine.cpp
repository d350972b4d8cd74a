// The route phase of a re-route, without the daemon or the simulator: a
// full routing of NETFILE kept in a routing::ChainMemory, then one delta,
// and the figures of both (release build for figures that count).
//
//   reroute_engine [--engine E] [--repeat N] [--spine] [--ebb] NETFILE
//
// The delta is one leaf-to-spine cable (the first up port of the sixth
// leaf by GUID, as reroute_bench.sh unlinks in ibsim) or with --spine a
// whole top switch (the first by GUID), LIDs kept by GUID as the daemon
// keeps them. Printed, best of N: the engine's full run and its re-route
// from the memory (routing::Engine::compute_after), whether the re-route's
// tables are identical to the full run's, the gate alone, the chain with
// the memory (engine + gate, what the daemon's route phase runs), and the
// LFT blocks that differ from the last tables (the LFT SMPs the re-route
// sends). For ftree and sftree also where the re-route's CPU goes: the
// fat-tree ranking, D-Mod-K (run_dmodk less the ranking), Algorithms 1-2
// and the credit-loop safety net (run_sftree less run_dmodk), and the rest
// of the engine (compute_after less run_sftree). With --ebb also the EBB
// (the analyzer's, 200 bisections) of the re-route's tables and of the full
// run's on the fabric after the delta. Prints figures; judges nothing.
#include "lidassign/base_lids.h"
#include "routing/analysis/analyze.h"
#include "routing/chain.h"
#include "routing/fattree/ranking.h"
#include "routing/fattree/sftree.h"
#include "routing/registry.h"
#include "routing/verify.h"
#include "topology/fabric_subset.h"
#include "topology/netfile_file.h"

#include "cpu_time.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace ibsm;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The LIDs of `before` carried to `after` by node GUID and port number.
lidassign::LidMap carry_lids(const topology::Fabric& before, const lidassign::LidMap& lids,
                             const topology::Fabric& after)
{
    lidassign::LidMap out;
    for (const auto& [ref, pl] : lids.entries())
        if (auto id = after.find_node(before.node(ref.node).guid)) out.assign(topology::PortRef{*id, ref.port}, pl.base, pl.lmc);
    return out;
}

// 64-entry LFT blocks that differ between two tables, switches by GUID.
std::size_t changed_blocks(const topology::Fabric& fa, const routing::RoutingTables& a, const topology::Fabric& fb,
                           const routing::RoutingTables& b)
{
    std::size_t n = 0;
    for (const auto& [id, lft] : b.lfts) {
        const auto old_id = fa.find_node(fb.node(id).guid);
        const auto it = old_id ? a.lfts.find(*old_id) : a.lfts.end();
        const std::size_t blocks = (lft.port.size() + 63) / 64;
        for (std::size_t k = 0; k < blocks; ++k) {
            bool same = it != a.lfts.end();
            for (std::size_t e = k * 64; same && e < std::min(lft.port.size(), k * 64 + 64); ++e)
                same = it->second.at(Lid(static_cast<std::uint16_t>(e))) == lft.port[e];
            n += !same;
        }
    }
    return n;
}

} // namespace

int main(int argc, char** argv)
{
    int repeat = 1;
    bool spine = false, with_ebb = false;
    std::string engine_name = "ftree", file;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::stoi(argv[++i]));
        else if (a == "--engine" && i + 1 < argc)
            engine_name = argv[++i];
        else if (a == "--spine")
            spine = true;
        else if (a == "--ebb")
            with_ebb = true;
        else
            file = a;
    }
    if (file.empty()) {
        std::cerr << "usage: reroute_engine [--engine E] [--repeat N] [--spine] [--ebb] NETFILE\n";
        return 2;
    }
    const auto registry = routing::default_registry();
    auto engine = registry.create(engine_name);
    if (!engine) {
        std::cerr << "reroute_engine: unknown engine " << engine_name << '\n';
        return 2;
    }
    const auto before = topology::load_net_file(file);
    const auto lids = lidassign::assign_base_lids(before, {}, {}).lids;
    const routing::Options options;
    const routing::ChainSpec chain{{engine_name}, true};

    // The delta.
    topology::Fabric after = before;
    std::string what;
    if (spine) {
        auto ranked = routing::fattree::rank_fat_tree(before, {});
        if (auto* why = std::get_if<std::string>(&ranked)) {
            std::cerr << "reroute_engine: --spine needs a fat-tree: " << *why << '\n';
            return 2;
        }
        const auto& tree = std::get<routing::fattree::FatTree>(ranked);
        std::vector<topology::NodeId> tops;
        for (std::size_t s = 0; s < tree.size(); ++s)
            if (tree.level[s] == tree.height) tops.push_back(tree.switches[s]);
        std::sort(tops.begin(), tops.end(), [&](auto x, auto y) { return before.node(x).guid < before.node(y).guid; });
        std::vector<bool> drop(before.node_count(), false);
        drop[tops.front().value] = true;
        after = topology::without_nodes(before, drop);
        what = "top switch " + before.node(tops.front()).description + " gone";
    } else {
        std::vector<topology::NodeId> leaves;
        for (auto id : before.node_ids()) {
            const auto& n = before.node(id);
            if (!n.is_switch()) continue;
            for (const auto& p : n.ports)
                if (p.remote && !before.node(p.remote->node).is_switch()) {
                    leaves.push_back(id);
                    break;
                }
        }
        std::sort(leaves.begin(), leaves.end(), [&](auto x, auto y) { return before.node(x).guid < before.node(y).guid; });
        const auto leaf = leaves.at(std::min<std::size_t>(5, leaves.size() - 1));
        const auto& n = before.node(leaf);
        for (std::uint8_t p = 1; p < n.ports.size(); ++p)
            if (n.ports[p].remote && before.node(n.ports[p].remote->node).is_switch()) {
                after.disconnect(topology::PortRef{leaf, PortNum(p)});
                what = "cable " + n.description + "[" + std::to_string(p) + "] unlinked";
                break;
            }
    }
    const auto after_lids = carry_lids(before, lids, after);

    const bool tree_engine = engine_name == "ftree" || engine_name == "sftree";
    double cpu_rank = 1e300, cpu_dmodk = 1e300, cpu_sftree = 1e300;
    double full = 1e300, full_cpu = 1e300, incr = 1e300, gate = 1e300, chain_full = 1e300, chain_incr = 1e300, incr_cpu = 1e300;
    bool identical = true;
    double ebb_re = 0, ebb_full = 0;
    std::string how, gate_how;
    std::size_t blocks = 0, all_blocks = 0;
    for (int k = 0; k < repeat; ++k) {
        routing::ChainMemory memory;
        auto t0 = Clock::now();
        auto base = routing::run_chain(registry, chain, before, lids, options, &memory);
        chain_full = std::min(chain_full, since(t0));
        if (!base.tables || base.degraded) {
            std::printf("the full routing of %s did not pass the gate\n", file.c_str());
            return 1;
        }
        const routing::Previous previous{*memory.fabric, *memory.lids, *memory.tables, memory.engine_state.get(),
                                         topology::fabric_delta(before, after)};
        t0 = Clock::now();
        const double c0 = bench::cpu_seconds();
        auto re = engine->compute_after(after, after_lids, options, &previous);
        incr_cpu = std::min(incr_cpu, bench::cpu_seconds() - c0);
        incr = std::min(incr, since(t0));
        how = re.how;
        if (tree_engine) {
            double c = bench::cpu_seconds();
            { auto r = routing::fattree::rank_fat_tree(after, options.root_guids); }
            cpu_rank = std::min(cpu_rank, bench::cpu_seconds() - c);
            c = bench::cpu_seconds();
            { auto r = routing::fattree::run_dmodk(after, after_lids, options, engine_name, &previous); }
            cpu_dmodk = std::min(cpu_dmodk, bench::cpu_seconds() - c);
            c = bench::cpu_seconds();
            {
                auto r = routing::fattree::run_sftree(after, after_lids, options, engine_name, engine_name == "sftree",
                                                      &previous);
            }
            cpu_sftree = std::min(cpu_sftree, bench::cpu_seconds() - c);
        }
        t0 = Clock::now();
        const double c1 = bench::cpu_seconds();
        auto fresh = engine->compute(after, after_lids, options);
        full_cpu = std::min(full_cpu, bench::cpu_seconds() - c1);
        full = std::min(full, since(t0));
        auto* a = std::get_if<routing::RoutingTables>(&re.result);
        auto* b = std::get_if<routing::RoutingTables>(&fresh);
        if (!a || !b) {
            std::printf("refused after the delta\n");
            return 1;
        }
        for (const auto& [id, lft] : b->lfts) identical &= a->lfts.count(id) && a->lfts.at(id).port == lft.port;
        identical &= a->lfts.size() == b->lfts.size();
        if (with_ebb && k == 0) {
            topology::Fabric f = after;
            lidassign::apply_lids(after_lids, f);
            routing::analysis::Options ao;
            ao.run_shifts = false;
            ao.ebb.bisections = 200;
            const auto ra = routing::analysis::analyze(f, *a, ao), rb = routing::analysis::analyze(f, *b, ao);
            ebb_re = ra.ebb ? ra.ebb->ebb : 0;
            ebb_full = rb.ebb ? rb.ebb->ebb : 0;
        }
        t0 = Clock::now();
        auto v = routing::verify(after, after_lids, *a, routing::VerifyOptions{});
        gate = std::min(gate, since(t0));
        if (!v.passed()) std::printf("gate: %s\n", v.reason.c_str());
        t0 = Clock::now();
        auto next = routing::run_chain(registry, chain, after, after_lids, options, &memory);
        chain_incr = std::min(chain_incr, since(t0));
        gate_how = next.gate_run() ? next.gate_run()->describe() : std::string("no gate");
        blocks = changed_blocks(before, *base.tables, after, *next.tables);
        all_blocks = 0;
        for (const auto& [id, lft] : next.tables->lfts) all_blocks += (lft.port.size() + 63) / 64;
    }
    std::printf("%s, %zu hosts, %zu switches: %s\n", engine_name.c_str(), before.ca_count(), before.switch_count(),
                what.c_str());
    std::printf("  engine full run      %.3f s (%.3f s CPU)\n", full, full_cpu);
    std::printf("  engine re-route      %.3f s (%.3f s CPU), %.1f %% of the full run's CPU: %s\n", incr, incr_cpu,
                100 * incr_cpu / full_cpu, how.c_str());
    if (tree_engine)
        std::printf("  re-route CPU by step: ranking %.3f s, D-Mod-K %.3f s, Algorithms 1-2 + safety net %.3f s, "
                    "rest %.3f s\n",
                    cpu_rank, std::max(0.0, cpu_dmodk - cpu_rank), std::max(0.0, cpu_sftree - cpu_dmodk),
                    std::max(0.0, incr_cpu - cpu_sftree));
    std::printf("  identical to a full run: %s\n",
                identical ? "yes" : "no (the re-route keeps what the delta left valid: docs/routing.md, Re-route)");
    if (with_ebb) std::printf("  EBB re-route %.4f, full run %.4f (%+.2f %%)\n", ebb_re, ebb_full, 100 * (ebb_re / ebb_full - 1));
    std::printf("  gate alone           %.3f s\n", gate);
    std::printf("  chain, full          %.3f s (engine + full gate + memory)\n", chain_full);
    std::printf("  chain, re-route      %.3f s (engine + %s + memory), %.1f %% of the full chain\n", chain_incr,
                gate_how.c_str(), 100 * chain_incr / chain_full);
    std::printf("  LFT blocks changed   %zu of %zu\n", blocks, all_blocks);
    return 0;
}
