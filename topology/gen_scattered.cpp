// Seed 002's random irregular fabrics (see gen_scattered.h).
#include "topology/gen_scattered.h"

#include "topology/gen_common.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::topology {

namespace {

constexpr unsigned max_attempts = 1000;
constexpr unsigned max_switches = 4096;

bool connected(const std::vector<std::pair<unsigned, unsigned>>& cables, unsigned n)
{
    std::vector<unsigned> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](unsigned x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    unsigned groups = n;
    for (const auto& [a, b] : cables) {
        const auto ra = find(a), rb = find(b);
        if (ra != rb) {
            parent[ra] = rb;
            --groups;
        }
    }
    return groups == 1;
}

} // namespace

Fabric generate_scattered(const ScatteredParams& params)
{
    const unsigned n = params.switches;
    if (n < 2) throw std::invalid_argument("a scattered fabric needs at least 2 switches");
    if (n > max_switches) throw std::invalid_argument("scattered fabric too large (at most 4096 switches)");
    if (params.degree < 1 || params.degree > n - 1)
        throw std::invalid_argument("average degree must be 1.." + std::to_string(n - 1) + " for " + std::to_string(n) + " switches");
    const std::uint64_t cables = (static_cast<std::uint64_t>(n) * params.degree + 1) / 2;
    if (cables < n - 1)
        throw std::invalid_argument("average degree " + std::to_string(params.degree) + " is too low to connect " +
                                    std::to_string(n) + " switches");

    std::vector<std::pair<unsigned, unsigned>> all;
    all.reserve(static_cast<std::size_t>(n) * (n - 1) / 2);
    for (unsigned a = 0; a < n; ++a)
        for (unsigned b = a + 1; b < n; ++b) all.emplace_back(a, b);

    std::mt19937_64 rng(params.seed);
    for (unsigned attempt = 0; attempt < max_attempts; ++attempt) {
        gen::shuffle(all, rng);
        std::vector<std::pair<unsigned, unsigned>> chosen(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cables));
        if (!connected(chosen, n)) continue;
        std::sort(chosen.begin(), chosen.end());

        std::vector<unsigned> hosts(n, 0);
        for (unsigned m = 0; m < params.machines; ++m) ++hosts[gen::uniform_below(rng, n)];
        std::vector<std::vector<unsigned>> neighbours(n);
        for (const auto& [a, b] : chosen) {
            neighbours[a].push_back(b);
            neighbours[b].push_back(a);
        }
        unsigned ports = 1;
        for (unsigned s = 0; s < n; ++s)
            ports = std::max(ports, hosts[s] + static_cast<unsigned>(neighbours[s].size()));
        if (ports > PortNum::max_port)
            throw std::invalid_argument("a switch would need " + std::to_string(ports) + " ports (at most " +
                                        std::to_string(PortNum::max_port) + ")");

        Fabric f;
        for (std::uint64_t i = 0; i < params.machines; ++i) gen::add_host(f, i, 1);
        const NodeId first{static_cast<std::uint32_t>(f.node_count())};
        for (unsigned s = 0; s < n; ++s)
            f.add_node(NodeType::switch_node, gen::switch_guid(gen::family_scattered, s), static_cast<std::uint8_t>(ports),
                       gen::numbered("scat", s));
        std::uint32_t host = 0;
        for (unsigned s = 0; s < n; ++s)
            for (unsigned j = 0; j < hosts[s]; ++j)
                f.connect({NodeId{host++}, PortNum(1)}, {NodeId{first.value + s}, PortNum(static_cast<std::uint8_t>(j + 1))});
        for (auto& list : neighbours) std::sort(list.begin(), list.end());
        // Cable (a, b) sits on a's port for b and b's port for a, both in neighbour order.
        for (unsigned a = 0; a < n; ++a)
            for (unsigned b : neighbours[a]) {
                if (b < a) continue;
                const auto pa = hosts[a] + 1 + static_cast<unsigned>(std::lower_bound(neighbours[a].begin(), neighbours[a].end(), b) - neighbours[a].begin());
                const auto pb = hosts[b] + 1 + static_cast<unsigned>(std::lower_bound(neighbours[b].begin(), neighbours[b].end(), a) - neighbours[b].begin());
                f.connect({NodeId{first.value + a}, PortNum(static_cast<std::uint8_t>(pa))},
                          {NodeId{first.value + b}, PortNum(static_cast<std::uint8_t>(pb))});
            }
        gen::finish_ports(f);
        return f;
    }
    throw std::invalid_argument("no connected random graph of " + std::to_string(n) + " switches and " +
                                std::to_string(cables) + " cables drawn in " + std::to_string(max_attempts) + " attempts");
}

} // namespace ibsm::topology
