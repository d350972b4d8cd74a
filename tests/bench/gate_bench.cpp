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
// the fabrics (tests/bench/fabrics.sh) and runs this. Then the incremental
// gate (routing/incremental_gate.h) after one cable: the full gate that
// remembers (what the daemon runs on a first routing), one leaf-to-spine
// cable pulled, the engine run again on that fabric, and the incremental
// gate on its tables, with the destinations it re-traced and whether its
// verdict equals the full gate's. Prints figures; judges nothing.
#include "common/parallel_for.h"
#include "lidassign/base_lids.h"
#include "routing/registry.h"
#include "routing/incremental_gate.h"
#include "routing/verify.h"
#include "topology/netfile_file.h"

#include "cpu_time.h"

#include <algorithm>
#include <memory>
#include <optional>
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

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The first cable from a switch to a switch of higher GUID whose far end
// has no CA (a leaf-to-spine or spine-to-core cable on these trees).
std::optional<topology::PortRef> one_cable(const topology::Fabric& f)
{
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (!n.is_switch()) continue;
        for (std::size_t p = 1; p < n.ports.size(); ++p) {
            const topology::PortRef here{id, PortNum(static_cast<std::uint8_t>(p))};
            const auto r = f.remote(here);
            if (r && f.node(r->node).is_switch() && f.node(r->node).guid > n.guid) return here;
        }
    }
    return std::nullopt;
}

void incremental_after_one_cable(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                 const routing::RoutingTables& tables, const routing::Engine& engine,
                                 const routing::VerifyOptions& vo, const std::string& name)
{
    // The shared copies are made before the clock starts: the gate keeps
    // them by shared_ptr, and the chain makes them (chain.cpp) whether the
    // gate remembers or not.
    routing::GateMemory memory;
    auto shared_fabric = std::make_shared<const topology::Fabric>(fabric);
    auto shared_tables = std::make_shared<const routing::RoutingTables>(tables);
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    routing::verify_and_remember(std::move(shared_fabric), lids, std::move(shared_tables), vo, memory);
    const double remember_ms = ms_since(t0), remember_cpu = (cpu_seconds() - c0) * 1e3;
    const auto cable = one_cable(fabric);
    if (!cable) return;
    topology::Fabric pulled = fabric;
    pulled.disconnect(*cable);
    auto result = engine.compute(pulled, lids, routing::Options{});
    auto* rerouted = std::get_if<routing::RoutingTables>(&result);
    if (!rerouted) return;
    rerouted->engine = tables.engine;
    auto pulled_shared = std::make_shared<const topology::Fabric>(pulled);
    auto rerouted_shared = std::make_shared<const routing::RoutingTables>(*rerouted);
    t0 = Clock::now();
    c0 = cpu_seconds();
    auto inc = routing::verify_incremental(std::move(pulled_shared), lids, std::move(rerouted_shared), vo, memory);
    const double inc_ms = ms_since(t0), inc_cpu = (cpu_seconds() - c0) * 1e3;
    const auto full = routing::verify(pulled, lids, *rerouted, vo);
    if (auto* why = std::get_if<std::string>(&inc)) {
        std::printf("%-16s   remember %.1f ms (cpu %.1f); one cable: not incremental (%s)\n", name.c_str(),
                    remember_ms, remember_cpu, why->c_str());
        return;
    }
    const auto& r = std::get<routing::IncrementalVerdict>(inc);
    const std::string diff = routing::first_difference(full, r.verdict);
    std::printf("%-16s   remember %.1f ms (cpu %.1f); one cable: incremental %.1f ms (cpu %.1f), %zu of %zu "
                "destinations re-traced, %s\n",
                name.c_str(), remember_ms, remember_cpu, inc_ms, inc_cpu, r.retraced, r.destinations,
                diff.empty() ? "verdict = full gate's" : ("DIFFERS: " + diff).c_str());
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
            incremental_after_one_cable(fabric, lids, tables, *engine, vo, name);
        }
    }
    return 0;
}
