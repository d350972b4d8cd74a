// The verification gate's cost (routing/verify.h), against its target:
// < 100 ms at 3 456 hosts and < 1 s at 11 664 and 27 648 hosts in a release build.
//
//   gate_bench [--repeat N] [--threads T] [--engine E[,E2]] NETFILE...
//
// Per net file: LIDs as `ibsm route` assigns them, the engines' tables, then
// the gate alone timed N times (default 5; min and median printed) with T
// threads (default: all cores, as the chain runs it), and the least CPU
// time of the N runs (all threads; on a loaded machine wall time says little
// and CPU time / threads is the wall time on idle cores). The verdict is printed
// too, so a fast gate that checks nothing would show. gate_bench.sh makes
// the fabrics (tests/bench/fabrics.sh) and runs this. Prints figures; judges
// nothing.
#include "common/parallel_for.h"
#include "lidassign/base_lids.h"
#include "routing/registry.h"
#include "routing/verify.h"
#include "topology/netfile_file.h"

#include "cpu_time.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace ibsm;
using bench::cpu_seconds;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        auto comma = s.find(',', start);
        out.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

} // namespace

int main(int argc, char** argv)
{
    int repeat = 5;
    unsigned threads = 0;
    std::vector<std::string> engines{"ftree", "sftree"};
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::stoi(argv[++i]));
        else if (a == "--threads" && i + 1 < argc)
            threads = static_cast<unsigned>(std::stoul(argv[++i]));
        else if (a == "--engine" && i + 1 < argc)
            engines = split(argv[++i]);
        else
            files.push_back(a);
    }
    if (files.empty()) {
        std::cerr << "usage: gate_bench [--repeat N] [--threads T] [--engine E[,E2]] NETFILE...\n";
        return 2;
    }
    const auto registry = routing::default_registry();
    std::printf("%-16s %7s %4s %-7s %9s %9s %9s  %s\n", "fabric", "hosts", "thr", "engine", "min ms", "median ms",
                "cpu ms", "verdict");
    for (const auto& file : files) {
        const auto fabric = topology::load_net_file(file);
        const auto lids = lidassign::assign_base_lids(fabric, {}, {}).lids;
        const auto name = file.substr(file.find_last_of('/') + 1);
        for (const auto& e : engines) {
            auto engine = registry.create(e);
            if (!engine) {
                std::cerr << "unknown engine " << e << '\n';
                return 2;
            }
            routing::Options options;
            auto result = engine->compute(fabric, lids, options);
            if (auto* r = std::get_if<routing::Refusal>(&result)) {
                std::printf("%-16s %7zu %4s %-7s refused: %s\n", name.c_str(), fabric.ca_count(), "-", e.c_str(),
                            r->reason.c_str());
                continue;
            }
            auto& tables = std::get<routing::RoutingTables>(result);
            tables.engine = e;
            routing::VerifyOptions vo;
            vo.threads = threads;
            std::vector<double> ms, cpu;
            routing::Verdict v;
            for (int k = 0; k < repeat; ++k) {
                auto t0 = Clock::now();
                const double c0 = cpu_seconds();
                v = routing::verify(fabric, lids, tables, vo);
                cpu.push_back((cpu_seconds() - c0) * 1e3);
                ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            }
            std::sort(ms.begin(), ms.end());
            std::sort(cpu.begin(), cpu.end());
            std::printf("%-16s %7zu %4u %-7s %9.1f %9.1f %9.1f  %s\n", name.c_str(), fabric.ca_count(),
                        common::worker_count(threads), e.c_str(), ms.front(), ms[ms.size() / 2],
                        cpu.front(), v.passed() ? "passed" : v.reason.substr(0, 120).c_str());
        }
    }
    return 0;
}
