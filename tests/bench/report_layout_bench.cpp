// How long report::compute_layout takes on the fabric sizes the report targets:
// sfdp on random fabrics of ~1 000 and ~4 000 nodes, with four hosts a switch
// (placed round their switch, not by sfdp) and without hosts; neato just
// below the sfdp threshold, which is why the threshold is where it is; the levels
// layout on the 3 456-host tree with hosts and on the 11 664-host tree with
// hosts folded (tests/bench/fabrics.sh's PGFT parameters).
// Prints one line per case: nodes, links, method, width x height, best and
// median of the runs. Meaningful only from a release build.
//   build-rel/tests/bench/report_layout_bench [runs]
#include "report/layout.h"
#include "tests/unit/report/fabric_model.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ibsm;
using namespace ibsm::report;

namespace {

void measure(const char* name, const Model& m, int runs)
{
    std::vector<double> ms;
    Layout l;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        l = compute_layout(m);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-24s %6zu nodes %6zu links  %-6s %8.0f x %-8.0f best %8.1f ms  median %8.1f ms\n", name,
                m.nodes.size(), m.links.size(), l.method.c_str(), l.width, l.height, ms.front(), ms[ms.size() / 2]);
    std::fflush(stdout);
}

Model random_fabric(unsigned switches, unsigned hosts, std::uint64_t seed)
{
    return test::model_of_fabric(topology::generate_random(
                                     {.switches = switches, .hosts_per_switch = hosts, .ports_per_switch = hosts + 8, .seed = seed}),
                                 {.rank = false});
}

Model tree(std::vector<unsigned> m, std::vector<unsigned> w, bool fold)
{
    topology::PgftParams p;
    p.m = std::move(m);
    p.w = std::move(w);
    p.p = {1, 1, 1};
    return test::model_of_fabric(topology::generate_pgft(p), {.rank = true, .fold_hosts = fold});
}

} // namespace

int main(int argc, char** argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    measure("neato random 96x4", random_fabric(96, 4, 1), runs);
    measure("sfdp random 100x4", random_fabric(100, 4, 1), runs);
    measure("sfdp random 200x4", random_fabric(200, 4, 1), runs);
    measure("sfdp random 800x4", random_fabric(800, 4, 1), runs);
    // Without hosts every node goes through sfdp.
    measure("sfdp random 1000x0", random_fabric(1000, 0, 1), runs);
    measure("sfdp random 4000x0", random_fabric(4000, 0, 1), runs);
    measure("levels tree-3456", tree({12, 12, 24}, {1, 12, 12}, false), runs);
    measure("levels tree-11664 fold", tree({18, 18, 36}, {1, 18, 18}, true), runs);
    measure("levels tree-11664", tree({18, 18, 36}, {1, 18, 18}, false), runs);
}
