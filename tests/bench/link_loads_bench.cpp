// What `ibsm report` adds to an analysis: analyze() with and
// without Options::keep_link_loads (per-channel loads and 3 examples per
// channel), then build_model, on the benchmark fat-trees (fabrics.sh's
// PGFTs) routed by ftree.
//
//   link_loads_bench [--repeat N] [--threads T] HOSTS...     HOSTS in 648 3456 11664
//
// Prints, per fabric, the least wall and CPU seconds of N runs (default 3)
// of each step, EBB and shifts off (they do not depend on the option).
// Prints figures; judges nothing. Build release for figures that count.
#include "report/model.h"
#include "routing/analysis/analyze.h"
#include "tests/unit/report/routed_fabric.h"
#include "topology/gen_pgft.h"

#include "cpu_time.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace ibsm;
using bench::cpu_seconds;
using Clock = std::chrono::steady_clock;

namespace {

struct Timing {
    double wall = 1e30, cpu = 1e30;
};

template <typename Fn>
Timing best_of(unsigned repeat, Fn&& fn)
{
    Timing t;
    for (unsigned i = 0; i < repeat; ++i) {
        const auto w0 = Clock::now();
        const double c0 = cpu_seconds();
        fn();
        t.cpu = std::min(t.cpu, cpu_seconds() - c0);
        t.wall = std::min(t.wall, std::chrono::duration<double>(Clock::now() - w0).count());
    }
    return t;
}

topology::PgftParams pgft(const std::string& hosts)
{
    topology::PgftParams p;
    if (hosts == "648") {
        p.m = {18, 36};
        p.w = {1, 18};
        p.p = {1, 1};
    } else if (hosts == "3456") {
        p.m = {12, 12, 24};
        p.w = {1, 12, 12};
        p.p = {1, 1, 1};
    } else if (hosts == "11664") {
        p.m = {18, 18, 36};
        p.w = {1, 18, 18};
        p.p = {1, 1, 1};
    } else {
        std::fprintf(stderr, "link_loads_bench: unknown size %s (648, 3456 or 11664)\n", hosts.c_str());
        std::exit(2);
    }
    return p;
}

} // namespace

int main(int argc, char** argv)
{
    unsigned repeat = 3, threads = 0;
    std::vector<std::string> sizes;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = static_cast<unsigned>(std::stoul(argv[++i]));
        else if (a == "--threads" && i + 1 < argc)
            threads = static_cast<unsigned>(std::stoul(argv[++i]));
        else
            sizes.push_back(a);
    }
    if (sizes.empty()) sizes = {"3456", "11664"};
    std::printf("%-6s %-22s %9s %9s\n", "hosts", "step", "wall_s", "cpu_s");
    for (const std::string& n : sizes) {
        report::test::Routed routed;
        try {
            routed = report::test::route_fabric("ftree", topology::generate_pgft(pgft(n)));
        } catch (const std::runtime_error& e) {
            std::fprintf(stderr, "link_loads_bench: the %s-host tree: %s\n", n.c_str(), e.what());
            return 1;
        }
        const topology::Fabric& f = routed.fabric;
        const auto& tables = routed.tables;
        routing::analysis::Options o;
        o.run_ebb = false;
        o.run_shifts = false;
        o.threads = threads;
        routing::analysis::Report plain, kept;
        const Timing off = best_of(repeat, [&] { plain = routing::analysis::analyze(f, tables, o); });
        o.keep_link_loads = true;
        const Timing on = best_of(repeat, [&] { kept = routing::analysis::analyze(f, tables, o); });
        report::Model model;
        const Timing build = best_of(repeat, [&] { model = report::build_model(f, kept); });
        std::printf("%-6s %-22s %9.3f %9.3f\n", n.c_str(), "analyze", off.wall, off.cpu);
        std::printf("%-6s %-22s %9.3f %9.3f\n", n.c_str(), "analyze+link_loads", on.wall, on.cpu);
        std::printf("%-6s %-22s %9.3f %9.3f\n", n.c_str(), "build_model", build.wall, build.cpu);
        std::printf("%-6s channels %zu, max load %llu (efi %llu), model: %zu nodes, %zu links%s, max %llu\n",
                    n.c_str(), kept.link_loads.size(), static_cast<unsigned long long>(kept.efi_all.max),
                    static_cast<unsigned long long>(plain.efi_all.max), model.nodes.size(), model.links.size(),
                    model.hosts_folded ? " (hosts folded)" : "", static_cast<unsigned long long>(model.max_load));
    }
    return 0;
}
