// Ring, torus/mesh, 3-D torus and hypercube generators (layout in gen_irregular.h). Straight
// construction: hosts first, then switches, then host cables, then switch
// cables.
#include "topology/gen_irregular.h"

#include "topology/gen_common.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace ibsm::topology {

namespace {

constexpr unsigned max_switches = 65536;

void check_ports(unsigned hosts, unsigned links)
{
    if (hosts + links > PortNum::max_port)
        throw std::invalid_argument(std::to_string(hosts) + " hosts per switch leave no room for the " +
                                    std::to_string(links) + " switch links (at most " +
                                    std::to_string(PortNum::max_port) + " ports)");
}

// Hosts 0..n*k-1; host j of switch s is host s*k + j on switch port j+1.
void add_hosts(Fabric& f, unsigned switches, unsigned k)
{
    for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(switches) * k; ++i) gen::add_host(f, i, 1);
}

void cable_hosts(Fabric& f, NodeId first_switch, unsigned switches, unsigned k)
{
    for (unsigned s = 0; s < switches; ++s)
        for (unsigned j = 0; j < k; ++j)
            f.connect({NodeId{s * k + j}, PortNum(1)},
                      {NodeId{first_switch.value + s}, PortNum(static_cast<std::uint8_t>(j + 1))});
}

} // namespace

Fabric generate_ring(const RingParams& params)
{
    const unsigned n = params.switches;
    const unsigned k = params.hosts_per_switch;
    if (n < 2) throw std::invalid_argument("a ring needs at least 2 switches");
    if (n > max_switches) throw std::invalid_argument("ring too large");
    check_ports(k, 2);

    Fabric f;
    add_hosts(f, n, k);
    NodeId first{static_cast<std::uint32_t>(f.node_count())};
    for (unsigned s = 0; s < n; ++s)
        f.add_node(NodeType::switch_node, gen::switch_guid(gen::family_ring, s), static_cast<std::uint8_t>(k + 2),
                   gen::numbered("ring", s));
    cable_hosts(f, first, n, k);
    const auto next_port = PortNum(static_cast<std::uint8_t>(k + 1));
    const auto prev_port = PortNum(static_cast<std::uint8_t>(k + 2));
    for (unsigned s = 0; s < n; ++s)
        f.connect({NodeId{first.value + s}, next_port}, {NodeId{first.value + (s + 1) % n}, prev_port});
    gen::finish_ports(f);
    return f;
}

Fabric generate_torus(const TorusParams& params)
{
    const unsigned X = params.x, Y = params.y, k = params.hosts_per_switch;
    if (X < 1 || Y < 1) throw std::invalid_argument("torus/mesh needs x >= 1 and y >= 1");
    if (X * Y < 2) throw std::invalid_argument("torus/mesh needs at least 2 switches");
    if (static_cast<std::uint64_t>(X) * Y > max_switches) throw std::invalid_argument("torus/mesh too large");
    check_ports(k, 4);
    const unsigned n = X * Y;
    const char* kind = params.wrap ? "torus" : "mesh";

    Fabric f;
    add_hosts(f, n, k);
    NodeId first{static_cast<std::uint32_t>(f.node_count())};
    for (unsigned j = 0; j < Y; ++j)
        for (unsigned i = 0; i < X; ++i) {
            char name[48];
            std::snprintf(name, sizeof name, "%s-x%02u-y%02u", kind, i, j);
            f.add_node(NodeType::switch_node, gen::switch_guid(gen::family_torus, j * X + i),
                       static_cast<std::uint8_t>(k + 4), name);
        }
    cable_hosts(f, first, n, k);

    auto sw = [&](unsigned i, unsigned j) { return NodeId{first.value + j * X + i}; };
    auto port = [&](unsigned offset) { return PortNum(static_cast<std::uint8_t>(k + offset)); };
    for (unsigned j = 0; j < Y; ++j)
        for (unsigned i = 0; i < X; ++i) {
            // +x (k+1) to the -x (k+2) of the next switch along x; likewise y.
            if (X > 1 && (params.wrap || i + 1 < X)) f.connect({sw(i, j), port(1)}, {sw((i + 1) % X, j), port(2)});
            if (Y > 1 && (params.wrap || j + 1 < Y)) f.connect({sw(i, j), port(3)}, {sw(i, (j + 1) % Y), port(4)});
        }
    gen::finish_ports(f);
    return f;
}

Fabric generate_torus3d(const Torus3dParams& params)
{
    const unsigned X = params.x, Y = params.y, Z = params.z, k = params.hosts_per_switch;
    if (X < 1 || Y < 1 || Z < 1) throw std::invalid_argument("3-D torus needs x, y, z >= 1");
    const std::uint64_t total = static_cast<std::uint64_t>(X) * Y * Z;
    if (total < 2) throw std::invalid_argument("3-D torus needs at least 2 switches");
    if (total > max_switches) throw std::invalid_argument("3-D torus too large");
    check_ports(k, 6);
    const auto n = static_cast<unsigned>(total);

    Fabric f;
    add_hosts(f, n, k);
    NodeId first{static_cast<std::uint32_t>(f.node_count())};
    for (unsigned c = 0; c < Z; ++c)
        for (unsigned j = 0; j < Y; ++j)
            for (unsigned i = 0; i < X; ++i) {
                char name[48];
                std::snprintf(name, sizeof name, "torus3d-x%02u-y%02u-z%02u", i, j, c);
                f.add_node(NodeType::switch_node, gen::switch_guid(gen::family_torus3d, (c * Y + j) * X + i),
                           static_cast<std::uint8_t>(k + 6), name);
            }
    cable_hosts(f, first, n, k);

    auto sw = [&](unsigned i, unsigned j, unsigned c) { return NodeId{first.value + (c * Y + j) * X + i}; };
    auto port = [&](unsigned offset) { return PortNum(static_cast<std::uint8_t>(k + offset)); };
    for (unsigned c = 0; c < Z; ++c)
        for (unsigned j = 0; j < Y; ++j)
            for (unsigned i = 0; i < X; ++i) {
                // The + port of each axis (k+1, k+3, k+5) to the - port of the next switch.
                if (X > 1) f.connect({sw(i, j, c), port(1)}, {sw((i + 1) % X, j, c), port(2)});
                if (Y > 1) f.connect({sw(i, j, c), port(3)}, {sw(i, (j + 1) % Y, c), port(4)});
                if (Z > 1) f.connect({sw(i, j, c), port(5)}, {sw(i, j, (c + 1) % Z), port(6)});
            }
    gen::finish_ports(f);
    return f;
}

Fabric generate_hypercube(const HypercubeParams& params)
{
    const unsigned d = params.dimension, k = params.hosts_per_switch;
    if (d < 1 || d > 16) throw std::invalid_argument("hypercube dimension must be 1..16");
    check_ports(k, d);
    const unsigned n = 1u << d;

    Fabric f;
    add_hosts(f, n, k);
    NodeId first{static_cast<std::uint32_t>(f.node_count())};
    for (unsigned s = 0; s < n; ++s)
        f.add_node(NodeType::switch_node, gen::switch_guid(gen::family_hypercube, s), static_cast<std::uint8_t>(k + d),
                   gen::numbered("hcube", s));
    cable_hosts(f, first, n, k);
    for (unsigned s = 0; s < n; ++s)
        for (unsigned b = 0; b < d; ++b) {
            const unsigned t = s ^ (1u << b);
            const auto p = PortNum(static_cast<std::uint8_t>(k + 1 + b));
            if (s < t) f.connect({NodeId{first.value + s}, p}, {NodeId{first.value + t}, p});
        }
    gen::finish_ports(f);
    return f;
}

} // namespace ibsm::topology
