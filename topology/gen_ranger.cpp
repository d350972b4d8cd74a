// Multi-core (Ranger-like) fat-tree generator (shape, numbering and wiring in
// gen_ranger.h).
//
// Algorithm: add hosts, NEMs, then every core's switches level by level;
// cable each host to its NEM; cable each core exactly as generate_pgft cables
// levels 1..h of a PGFT (the up port q of a level-l switch goes to the switch
// whose digit l+1 is q mod w_{l+1}, down port a_{l+1} + k m_{l+1}); finally
// cable NEM n (group g = n / m_1, slot k = n mod m_1) to down port k+1 of
// leaves g*U .. g*U+U-1 of every core. Every NEM port is used once; a core
// leaf port is used at most once because slots within a group differ and
// groups use disjoint leaves.
#include "topology/gen_ranger.h"

#include "topology/gen_common.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::topology {

namespace {

// NEMs take the family byte itself, core level l (1..16) family + l.
constexpr unsigned family_multicore = 0xc0;
constexpr std::uint64_t max_nodes = 1'000'000;

// The core's own validation, its reasons prefixed so they name the core.
PgftShape checked_core(const PgftParams& p)
{
    if (p.dual_port_hosts) throw std::invalid_argument("core shape: dual-port hosts do not apply to a core");
    try {
        return PgftShape(p);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("core shape: ") + e.what());
    }
}

} // namespace

PgftParams magnum_core()
{
    PgftParams p;
    p.m = {12, 12, 24};
    p.w = {1, 12, 12};
    p.p = {1, 1, 1};
    return p;
}

MulticoreShape::MulticoreShape(MulticoreParams params)
    : params_(std::move(params)), core_(checked_core(params_.core))
{
    const auto& P = params_;
    if (P.cores < 1 || P.cores > max_cores)
        throw std::invalid_argument("the number of cores must be 1.." + std::to_string(max_cores) + ", got " +
                                    std::to_string(P.cores));
    if (P.core.w[0] != 1 || P.core.p[0] != 1)
        throw std::invalid_argument("core shape: w_1 and p_1 must be 1 (the core's level 1 faces the NEMs, one "
                                    "cable per NEM; m_1 is the number of NEM ports of a core leaf)");
    if (P.hosts_per_nem < 1) throw std::invalid_argument("NEMs need at least one host");
    if (P.uplinks_per_core < 1) throw std::invalid_argument("NEMs need at least one uplink to each core");
    if (P.nems < 1) throw std::invalid_argument("at least one NEM is needed");
    if (P.uplinks_per_core > core_leaves())
        throw std::invalid_argument(std::to_string(P.uplinks_per_core) +
                                    " uplinks per core need as many distinct core leaves, but a core has only " +
                                    std::to_string(core_leaves()));
    const std::uint64_t ports = std::uint64_t{P.hosts_per_nem} + std::uint64_t{P.cores} * P.uplinks_per_core;
    if (ports > PortNum::max_port)
        throw std::invalid_argument("NEMs would need " + std::to_string(ports) + " ports (" +
                                    std::to_string(P.hosts_per_nem) + " hosts + " + std::to_string(P.cores) +
                                    " cores x " + std::to_string(P.uplinks_per_core) + " uplinks); at most " +
                                    std::to_string(PortNum::max_port) + " are possible");
    const std::uint64_t capacity = group_count() * nems_per_group();
    if (P.nems > capacity)
        throw std::invalid_argument(
            std::to_string(P.nems) + " NEMs do not fit: each core has " + std::to_string(core_leaves()) +
            " leaves, i.e. " + std::to_string(group_count()) + " groups of " + std::to_string(P.uplinks_per_core) +
            " leaves with " + std::to_string(nems_per_group()) + " NEM ports each, room for " +
            std::to_string(capacity) + " NEMs");
    if (std::uint64_t{P.nems} * P.hosts_per_nem >= gen::max_host_index)
        throw std::invalid_argument("too many hosts for the GUID scheme");
    if (P.nems >= gen::max_switch_index) throw std::invalid_argument("too many NEMs for the GUID scheme");
    for (unsigned l = 1; l <= core_height(); ++l)
        if (core_.nodes_at(l) >= core_index_stride)
            throw std::invalid_argument("core level " + std::to_string(l) +
                                        " has too many switches for the GUID scheme");
    const std::uint64_t total = host_count() + switch_count();
    if (total > max_nodes)
        throw std::invalid_argument("the fabric would have " + std::to_string(total) + " nodes; the limit is " +
                                    std::to_string(max_nodes));
}

std::uint64_t MulticoreShape::group_count() const { return core_leaves() / params_.uplinks_per_core; }

std::uint64_t MulticoreShape::host_count() const { return std::uint64_t{params_.nems} * params_.hosts_per_nem; }

std::uint64_t MulticoreShape::switch_count() const
{
    return params_.nems + std::uint64_t{params_.cores} * core_.switch_count();
}

std::uint64_t MulticoreShape::link_count() const
{
    // Inside a core: every up port of levels 1..h-1 (the PGFT's count minus
    // its host cables).
    const std::uint64_t core_links = core_.link_count() - core_.host_count() * core_.up_ports(0);
    return host_count() + std::uint64_t{params_.nems} * params_.cores * params_.uplinks_per_core +
           std::uint64_t{params_.cores} * core_links;
}

std::uint64_t MulticoreShape::core_leaf_of(std::uint64_t nem, unsigned u) const
{
    if (nem >= params_.nems || u >= params_.uplinks_per_core) throw std::out_of_range("NEM uplink out of range");
    return nem / nems_per_group() * params_.uplinks_per_core + u;
}

PortNum MulticoreShape::core_leaf_port_of(std::uint64_t nem) const
{
    if (nem >= params_.nems) throw std::out_of_range("NEM out of range");
    return core_.down_port(1, static_cast<unsigned>(nem % nems_per_group()));
}

unsigned MulticoreShape::nem_ports() const
{
    return params_.hosts_per_nem + params_.cores * params_.uplinks_per_core;
}

PortNum MulticoreShape::nem_host_port(unsigned k) const
{
    if (k >= params_.hosts_per_nem) throw std::out_of_range("NEM host port out of range");
    return PortNum(static_cast<std::uint8_t>(k + 1));
}

PortNum MulticoreShape::nem_up_port(unsigned core, unsigned u) const
{
    if (core >= params_.cores || u >= params_.uplinks_per_core) throw std::out_of_range("NEM up port out of range");
    return PortNum(static_cast<std::uint8_t>(params_.hosts_per_nem + core * params_.uplinks_per_core + u + 1));
}

Guid MulticoreShape::nem_guid(std::uint64_t nem) const { return gen::switch_guid(family_multicore, nem); }

Guid MulticoreShape::core_guid(unsigned core, unsigned level, std::uint64_t index) const
{
    if (core >= params_.cores || level < 1 || level > core_height() || index >= core_.nodes_at(level))
        throw std::out_of_range("core switch out of range");
    return gen::switch_guid(family_multicore + level, core * core_index_stride + index);
}

std::string MulticoreShape::nem_description(std::uint64_t nem) const { return gen::numbered("nem", nem); }

std::string MulticoreShape::core_description(unsigned core, unsigned level, std::uint64_t index) const
{
    std::string role = level == core_height() ? "top" : level == 1 ? "leaf" : "spine";
    return gen::numbered("core" + std::to_string(core) + "-" + role + "-L" + std::to_string(level), index);
}

Fabric generate_multicore(const MulticoreParams& params)
{
    MulticoreShape shape(params);
    const PgftShape& core = shape.core();
    const unsigned h = shape.core_height();
    const unsigned C = params.cores, U = params.uplinks_per_core, H = params.hosts_per_nem;
    Fabric f;

    for (std::uint64_t i = 0; i < shape.host_count(); ++i) gen::add_host(f, i, 1);
    const std::uint32_t first_nem = static_cast<std::uint32_t>(f.node_count());
    for (std::uint64_t n = 0; n < params.nems; ++n)
        f.add_node(NodeType::switch_node, shape.nem_guid(n), static_cast<std::uint8_t>(shape.nem_ports()),
                   shape.nem_description(n));
    // first[c][l] = NodeId of switch 0 of core c, level l.
    std::vector<std::vector<std::uint32_t>> first(C, std::vector<std::uint32_t>(h + 1));
    for (unsigned c = 0; c < C; ++c)
        for (unsigned l = 1; l <= h; ++l) {
            first[c][l] = static_cast<std::uint32_t>(f.node_count());
            const auto ports = static_cast<std::uint8_t>(core.port_count(l));
            for (std::uint64_t i = 0; i < core.nodes_at(l); ++i)
                f.add_node(NodeType::switch_node, shape.core_guid(c, l, i), ports, shape.core_description(c, l, i));
        }
    auto nem_at = [&](std::uint64_t n) { return NodeId{first_nem + static_cast<std::uint32_t>(n)}; };
    auto core_at = [&](unsigned c, unsigned l, std::uint64_t i) {
        return NodeId{first[c][l] + static_cast<std::uint32_t>(i)};
    };

    for (std::uint64_t i = 0; i < shape.host_count(); ++i)
        f.connect({NodeId{static_cast<std::uint32_t>(i)}, PortNum(1)},
                  {nem_at(i / H), shape.nem_host_port(static_cast<unsigned>(i % H))});

    for (unsigned c = 0; c < C; ++c)
        for (unsigned l = 1; l < h; ++l) {
            const unsigned w = params.core.w[l];
            const unsigned m = params.core.m[l];
            for (std::uint64_t i = 0; i < core.nodes_at(l); ++i) {
                auto digits = core.tuple(l, i);
                const unsigned a = digits[l]; // a_{l+1}
                for (unsigned q = 0; q < core.up_ports(l); ++q) {
                    auto upper = digits;
                    upper[l] = q % w; // b_{l+1}
                    f.connect({core_at(c, l, i), core.up_port(l, q)},
                              {core_at(c, l + 1, core.index(l + 1, upper)), core.down_port(l + 1, a + q / w * m)});
                }
            }
        }

    for (std::uint64_t n = 0; n < params.nems; ++n)
        for (unsigned c = 0; c < C; ++c)
            for (unsigned u = 0; u < U; ++u)
                f.connect({nem_at(n), shape.nem_up_port(c, u)},
                          {core_at(c, 1, shape.core_leaf_of(n, u)), shape.core_leaf_port_of(n)});

    gen::finish_ports(f);
    return f;
}

} // namespace ibsm::topology
