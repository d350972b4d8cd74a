// Time to compute one multicast group's spanning tree (mcast/tree.h) with
// every host a member, on generated fat-trees: the work McastService does
// per group on every push. Prints figures; asserts nothing but that the
// tree reaches everyone.
//
//   mcast_tree_bench [--repeat N]     (meaningful in a release build)
#include "mcast/tree.h"
#include "topology/gen_pgft.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ibsm;

int main(int argc, char** argv)
{
    int repeat = 5;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::atoi(argv[i + 1]);
    struct Case {
        const char* name;
        topology::PgftParams p;
    };
    const Case cases[] = {
        {"648 hosts (2-level, 36-port)", {{18, 36}, {1, 18}, {1, 1}, false}},
        {"3456 hosts (3-level, 24-port)", {{12, 12, 24}, {1, 12, 12}, {1, 1, 1}, false}},
        {"11664 hosts (3-level, 36-port)", {{18, 18, 36}, {1, 18, 18}, {1, 1, 1}, false}},
    };
    for (const auto& c : cases) {
        topology::Fabric f = topology::generate_pgft(c.p);
        std::vector<mcast::TreeMember> members;
        for (auto id : f.node_ids())
            if (!f.node(id).is_switch()) members.push_back({topology::PortRef{id, PortNum(1)}, true});
        double best = 1e9;
        mcast::Tree tree;
        for (int r = 0; r < repeat; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            tree = mcast::spanning_tree(f, members);
            best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        if (!tree.unreachable.empty()) {
            std::printf("%s: %zu members unreachable\n", c.name, tree.unreachable.size());
            return 1;
        }
        std::printf("%-32s %zu switches, %zu members: tree over %zu switches, depth %u, %.1f ms (best of %d)\n", c.name,
                    f.switch_count(), members.size(), tree.masks.size(), tree.depth, best, repeat);
    }
    return 0;
}
