// One routing engine's compute alone, the figure the engine targets are
// about: no verification gate, no files (`ibsm route` times both with the
// engine in its "routed by" line).
//
//   engine_time [--repeat N] [--max-vls N] ENGINE NETFILE
//
// LIDs as `ibsm route` assigns them, then ENGINE's compute (the registry's
// engine: "pathsel" is the whole path stage, pathsel + color/L + LFTs) N
// times (default 1); prints the fastest wall and CPU seconds and the LFT
// count, so a run that routed nothing shows. One engine per process: the
// caller (engines_bench.sh) reads the maximum RSS with /usr/bin/time.
#include "lidassign/base_lids.h"
#include "routing/registry.h"
#include "topology/netfile_file.h"

#include "cpu_time.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>

using namespace ibsm;
using bench::cpu_seconds;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv)
{
    int repeat = 1;
    routing::Options options;
    std::string engine_name, file;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::stoi(argv[++i]));
        else if (a == "--max-vls" && i + 1 < argc)
            options.max_vls = static_cast<std::uint8_t>(std::clamp(std::stoi(argv[++i]), 1, 15));
        else if (engine_name.empty())
            engine_name = a;
        else
            file = a;
    }
    if (file.empty()) {
        std::cerr << "usage: engine_time [--repeat N] [--max-vls N] ENGINE NETFILE\n";
        return 2;
    }
    const auto registry = routing::default_registry();
    auto engine = registry.create(engine_name);
    if (!engine) {
        std::cerr << "engine_time: unknown engine " << engine_name << '\n';
        return 2;
    }
    const auto fabric = topology::load_net_file(file);
    const auto lids = lidassign::assign_base_lids(fabric, {}, {}).lids;
    double best = 1e300, best_cpu = 1e300;
    std::size_t lfts = 0;
    for (int k = 0; k < repeat; ++k) {
        const auto t0 = Clock::now();
        const double c0 = cpu_seconds();
        auto result = engine->compute(fabric, lids, options);
        best_cpu = std::min(best_cpu, cpu_seconds() - c0);
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
        if (auto* r = std::get_if<routing::Refusal>(&result)) {
            std::printf("refused: %s\n", r->reason.c_str());
            return 1;
        }
        lfts = std::get<routing::RoutingTables>(result).lfts.size();
    }
    std::printf("%s %zu hosts: compute %.3f s wall, %.3f s CPU, %zu LFTs\n", engine_name.c_str(), fabric.ca_count(),
                best, best_cpu, lfts);
    return 0;
}
