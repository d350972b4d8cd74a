// Dragonfly+ generator (shape and port layout in gen_dragonfly.h).
//
// Data structures: group g's leaves and spines sit at consecutive NodeIds
// after the hosts (group-major, leaves before spines); a plane's global
// offsets are a sorted vector whose position j is the spine's global port
// L+1+j.
//
// Algorithm: check the parameters (ports, handshake, connectivity), add
// hosts, then switches, then host, leaf-spine and global cables. The group
// graph of all planes together is the circulant graph on Z_G with every
// plane's offsets; it is connected exactly when the gcd of G and those
// offsets is 1 (and has that many parts otherwise), so the refusal can say
// how it splits without a search.
#include "topology/gen_dragonfly.h"

#include "topology/gen_common.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace ibsm::topology {

namespace {

constexpr std::uint64_t max_switches = 65536;

std::string str(std::uint64_t n) { return std::to_string(n); }

// Offsets (1..G-1) of the groups spine plane `s` reaches from any group,
// ascending; symmetric (d and G-d) so every cable has both ends.
std::vector<unsigned> plane_offsets(unsigned G, unsigned K, unsigned s)
{
    const unsigned pair_offsets = (G - 1) / 2; // d < G-d
    const unsigned pairs = K / 2;
    std::vector<unsigned> d;
    for (unsigned i = 0; i < pairs; ++i) {
        const auto o = static_cast<unsigned>(1 + (static_cast<std::uint64_t>(s) * pairs + i) % pair_offsets);
        d.push_back(o);
        d.push_back(G - o);
    }
    if (K % 2 == 1) d.push_back(G / 2);
    std::sort(d.begin(), d.end());
    return d;
}

void check(const DragonflyParams& p, unsigned K)
{
    const unsigned G = p.groups, L = p.leaves, P = p.spines, H = p.hosts_per_leaf;
    if (G < 2) throw std::invalid_argument("dragonfly+ needs at least 2 groups (one group is a two-level fat-tree)");
    if (L < 1) throw std::invalid_argument("dragonfly+ needs at least 1 leaf per group");
    if (P < 1) throw std::invalid_argument("dragonfly+ needs at least 1 spine per group");
    const std::uint64_t switches = static_cast<std::uint64_t>(G) * (static_cast<std::uint64_t>(L) + P);
    if (switches > max_switches)
        throw std::invalid_argument("dragonfly+ too large: " + str(switches) + " switches (at most " + str(max_switches) +
                                    ")");
    if (static_cast<std::uint64_t>(H) + P > PortNum::max_port)
        throw std::invalid_argument("a leaf needs " + str(H) + " host ports + " + str(P) + " spine ports = " +
                                    str(static_cast<std::uint64_t>(H) + P) + " ports, more than " +
                                    str(PortNum::max_port));
    if (K < 1 || K > G - 1)
        throw std::invalid_argument("global links per spine must be 1.." + str(G - 1) + " with " + str(G) +
                                    " groups, not " + str(K));
    if (static_cast<std::uint64_t>(L) + K > PortNum::max_port)
        throw std::invalid_argument("a spine needs " + str(L) + " leaf ports + " + str(K) + " global ports = " +
                                    str(static_cast<std::uint64_t>(L) + K) + " ports, more than " +
                                    str(PortNum::max_port) + " (set fewer global links per spine)");
    if (K % 2 == 1 && G % 2 == 1)
        throw std::invalid_argument("an odd number of groups (" + str(G) + ") cannot give every spine an odd number (" +
                                    str(K) + ") of global links: every cable has two ends; use an even number");
    unsigned parts = G;
    for (unsigned s = 0; s < P; ++s)
        for (unsigned d : plane_offsets(G, K, s)) parts = std::gcd(parts, d);
    if (parts > 1)
        throw std::invalid_argument("dragonfly+ of " + str(G) + " groups, " + str(P) + " spines per group and " +
                                    str(K) + (K == 1 ? " global link" : " global links") +
                                    " per spine is not connected: every global link joins groups whose numbers "
                                    "differ by a multiple of " +
                                    str(parts) + ", so the groups fall into " + str(parts) +
                                    " unconnected parts (more global links per spine or more spines)");
}

std::string switch_name(const char* role, unsigned group, unsigned index)
{
    char name[48];
    std::snprintf(name, sizeof name, "dfly-g%02u-%s%02u", group, role, index);
    return name;
}

PortNum port(std::uint64_t n) { return PortNum(static_cast<std::uint8_t>(n)); }

} // namespace

Fabric generate_dragonfly(const DragonflyParams& params)
{
    const unsigned G = params.groups, L = params.leaves, P = params.spines, H = params.hosts_per_leaf;
    const unsigned K = params.global_per_spine == 0 && G >= 2 ? G - 1 : params.global_per_spine;
    check(params, K);

    Fabric f;
    const std::uint64_t hosts = static_cast<std::uint64_t>(G) * L * H;
    for (std::uint64_t i = 0; i < hosts; ++i) gen::add_host(f, i, 1);
    const auto first = static_cast<std::uint32_t>(f.node_count());
    auto leaf = [&](unsigned g, unsigned l) { return NodeId{first + g * (L + P) + l}; };
    auto spine = [&](unsigned g, unsigned s) { return NodeId{first + g * (L + P) + L + s}; };
    for (unsigned g = 0; g < G; ++g) {
        for (unsigned l = 0; l < L; ++l)
            f.add_node(NodeType::switch_node,
                       gen::switch_guid(gen::family_dragonfly_leaf, static_cast<std::uint64_t>(g) * L + l),
                       static_cast<std::uint8_t>(H + P), switch_name("leaf", g, l));
        for (unsigned s = 0; s < P; ++s)
            f.add_node(NodeType::switch_node,
                       gen::switch_guid(gen::family_dragonfly_spine, static_cast<std::uint64_t>(g) * P + s),
                       static_cast<std::uint8_t>(L + K), switch_name("spine", g, s));
    }

    for (unsigned g = 0; g < G; ++g)
        for (unsigned l = 0; l < L; ++l) {
            for (unsigned j = 0; j < H; ++j)
                f.connect({NodeId{static_cast<std::uint32_t>((g * L + l) * H + j)}, PortNum(1)}, {leaf(g, l), port(j + 1)});
            for (unsigned s = 0; s < P; ++s) f.connect({leaf(g, l), port(H + 1 + s)}, {spine(g, s), port(l + 1)});
        }

    for (unsigned s = 0; s < P; ++s) {
        const auto D = plane_offsets(G, K, s);
        auto global_port = [&](unsigned offset) {
            return port(L + 1 + (std::lower_bound(D.begin(), D.end(), offset) - D.begin()));
        };
        for (unsigned g = 0; g < G; ++g)
            for (unsigned d : D) {
                const unsigned t = (g + d) % G;
                // Each cable once: from the end whose offset is the smaller
                // of d and G-d (the lower group when they are equal).
                if (d > G - d || (d == G - d && g > t)) continue;
                f.connect({spine(g, s), global_port(d)}, {spine(t, s), global_port(G - d)});
            }
    }
    gen::finish_ports(f);
    return f;
}

} // namespace ibsm::topology
