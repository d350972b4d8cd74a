// Seed 002's random irregular fabrics (topology/gen_scattered.h): exact
// cable count and average degree, connected, simple, every machine cabled,
// port layout, reproducible by seed.
#include "topology/gen_scattered.h"

#include <catch2/catch.hpp>

#include <set>

using namespace ibsm;
using namespace ibsm::topology;

namespace {

struct Counts {
    std::size_t switches = 0, machines = 0, switch_cables = 0, machine_cables = 0;
    bool connected = false;
    bool simple = true;
};

Counts count(const Fabric& f)
{
    Counts c;
    std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (const auto& l : f.links()) {
        const bool sa = f.node(l.a.node).is_switch(), sb = f.node(l.b.node).is_switch();
        if (sa && sb) {
            ++c.switch_cables;
            auto key = std::minmax(l.a.node.value, l.b.node.value);
            c.simple = c.simple && key.first != key.second && pairs.insert(key).second;
        } else {
            ++c.machine_cables;
        }
    }
    for (auto id : f.node_ids())
        (f.node(id).is_switch() ? c.switches : c.machines) += 1;
    // Connectivity over switch cables from the first switch.
    std::vector<bool> seen(f.node_count(), false);
    std::vector<NodeId> stack;
    for (auto id : f.node_ids())
        if (f.node(id).is_switch()) {
            stack.push_back(id);
            seen[id.value] = true;
            break;
        }
    std::size_t reached = 0;
    while (!stack.empty()) {
        auto u = stack.back();
        stack.pop_back();
        ++reached;
        for (const auto& p : f.node(u).ports)
            if (p.remote && f.node(p.remote->node).is_switch() && !seen[p.remote->node.value]) {
                seen[p.remote->node.value] = true;
                stack.push_back(p.remote->node);
            }
    }
    c.connected = reached == c.switches;
    return c;
}

} // namespace

TEST_CASE("scattered fabrics have seed 002's shape", "[gen_scattered]")
{
    for (auto [switches, machines] : {std::pair{16u, 128u}, {32u, 256u}, {64u, 512u}, {64u, 128u}}) {
        for (std::uint64_t seed : {1u, 2u, 3u}) {
            INFO(machines << "/" << switches << " seed " << seed);
            const auto f = generate_scattered({switches, machines, 8, seed});
            const auto c = count(f);
            CHECK(c.switches == switches);
            CHECK(c.machines == machines);
            CHECK(c.machine_cables == machines);
            CHECK(c.switch_cables == switches * 8 / 2); // average degree exactly 8
            CHECK(c.connected);
            CHECK(c.simple);
            // Machines first, on ports 1..h of their switch; switch cables above.
            for (auto id : f.node_ids()) {
                const auto& n = f.node(id);
                if (!n.is_switch())
                    continue;
                bool seen_switch = false;
                for (std::size_t p = 1; p < n.ports.size(); ++p) {
                    if (!n.ports[p].remote)
                        continue;
                    const bool to_switch = f.node(n.ports[p].remote->node).is_switch();
                    CHECK_FALSE((seen_switch && !to_switch));
                    seen_switch = seen_switch || to_switch;
                }
            }
        }
    }
}

TEST_CASE("scattered fabrics: same seed same fabric, other seed other fabric", "[gen_scattered]")
{
    const auto a = generate_scattered({32, 256, 8, 5});
    const auto b = generate_scattered({32, 256, 8, 5});
    const auto c = generate_scattered({32, 256, 8, 6});
    CHECK(a.links() == b.links());
    CHECK(a.links() != c.links());
}

TEST_CASE("scattered fabrics: machines spread, not one switch each in turn", "[gen_scattered]")
{
    // 512 machines over 64 switches: a uniform draw leaves the counts
    // unequal (a round-robin deal would give 8 everywhere).
    const auto f = generate_scattered({64, 512, 8, 1});
    std::set<std::size_t> per_switch;
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (!n.is_switch())
            continue;
        std::size_t h = 0;
        for (const auto& p : n.ports)
            if (p.remote && !f.node(p.remote->node).is_switch())
                ++h;
        per_switch.insert(h);
    }
    CHECK(per_switch.size() > 4);
}

TEST_CASE("scattered fabrics refuse impossible parameters", "[gen_scattered]")
{
    CHECK_THROWS_AS(generate_scattered({1, 4, 8, 1}), std::invalid_argument);
    CHECK_THROWS_AS(generate_scattered({8, 4, 8, 1}), std::invalid_argument);  // degree > switches - 1
    CHECK_THROWS_AS(generate_scattered({64, 4, 1, 1}), std::invalid_argument); // 32 cables cannot connect 64
    CHECK_THROWS_AS(generate_scattered({2, 600, 1, 1}), std::invalid_argument); // > 254 ports
}
