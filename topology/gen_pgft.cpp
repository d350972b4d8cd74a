// PGFT generator (definition and numbering in gen_pgft.h, seed 003 §II-B).
//
// Algorithm: create every node of every level, then for each level l < h,
// each node and each of its up ports q, compute the upper node by replacing
// digit l+1 with q mod w_{l+1} and the down port r = a_{l+1} + k m_{l+1}
// (k = q div w_{l+1}), and cable the two. Every up port is used exactly once,
// and because nodes_at(l) * w_{l+1} = nodes_at(l+1) * m_{l+1}, so is every
// down port.
#include "topology/gen_pgft.h"

#include "topology/gen_common.h"

#include <stdexcept>
#include <string>

namespace ibsm::topology {

namespace {

constexpr std::uint64_t max_nodes = 1'000'000;

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b)
{
    if (b != 0 && a > max_nodes * 256 / b) throw std::invalid_argument("PGFT is too large");
    return a * b;
}

} // namespace

PgftParams kary_ntree(unsigned k, unsigned n)
{
    if (k < 1 || n < 1) throw std::invalid_argument("k-ary n-tree needs k >= 1 and n >= 1");
    PgftParams p;
    p.m.assign(n, k);
    p.w.assign(n, k);
    p.w[0] = 1;
    p.p.assign(n, 1);
    return p;
}

PgftShape::PgftShape(PgftParams params) : params_(std::move(params))
{
    const auto h = params_.m.size();
    if (h == 0) throw std::invalid_argument("PGFT needs at least one level");
    if (h > 16) throw std::invalid_argument("PGFT with more than 16 levels is not supported");
    if (params_.w.size() != h || params_.p.size() != h)
        throw std::invalid_argument("PGFT needs as many w and p values as m values (" + std::to_string(h) +
                                    " levels): got " + std::to_string(params_.w.size()) + " w and " +
                                    std::to_string(params_.p.size()) + " p");
    for (std::size_t i = 0; i < h; ++i) {
        if (params_.m[i] == 0 || params_.w[i] == 0 || params_.p[i] == 0)
            throw std::invalid_argument("PGFT m, w and p values must all be >= 1 (level " + std::to_string(i + 1) +
                                        ")");
    }
    if (params_.dual_port_hosts) {
        if (params_.w[0] != 1 || params_.p[0] != 1)
            throw std::invalid_argument("dual-port hosts need w_1 = p_1 = 1 (hosts with one up port)");
        if (h < 2 || params_.m[1] < 2)
            throw std::invalid_argument("dual-port hosts need a sibling leaf: h >= 2 and m_2 >= 2");
    }

    level_size_.assign(h + 1, 1);
    for (unsigned l = 0; l <= h; ++l)
        for (unsigned j = 1; j <= h; ++j) level_size_[l] = checked_mul(level_size_[l], radix(l, j));
    std::uint64_t total = 0;
    for (auto s : level_size_) total += s;
    if (total > max_nodes)
        throw std::invalid_argument("PGFT has " + std::to_string(total) + " nodes; the limit is " +
                                    std::to_string(max_nodes));
    if (host_count() > gen::max_host_index) throw std::invalid_argument("too many hosts for the GUID scheme");
    for (unsigned l = 1; l <= h; ++l)
        if (nodes_at(l) > gen::max_switch_index)
            throw std::invalid_argument("too many switches at level " + std::to_string(l) + " for the GUID scheme");

    for (unsigned l = 0; l <= h; ++l) {
        std::uint64_t ports = static_cast<std::uint64_t>(down_ports(l)) * (l == 1 && params_.dual_port_hosts ? 2 : 1) +
                              up_ports(l);
        if (l == 0 && params_.dual_port_hosts) ports = 2;
        if (ports > PortNum::max_port)
            throw std::invalid_argument((l == 0 ? std::string("hosts") : "level-" + std::to_string(l) + " switches") +
                                        " would need " + std::to_string(ports) + " ports; at most " +
                                        std::to_string(PortNum::max_port) + " are possible");
        if (ports == 0) throw std::invalid_argument("level " + std::to_string(l) + " nodes would have no ports");
    }
}

unsigned PgftShape::radix(unsigned level, unsigned j) const
{
    return j > level ? params_.m.at(j - 1) : params_.w.at(j - 1);
}

std::uint64_t PgftShape::switch_count() const
{
    std::uint64_t n = 0;
    for (unsigned l = 1; l <= height(); ++l) n += nodes_at(l);
    return n;
}

std::uint64_t PgftShape::link_count() const
{
    std::uint64_t n = 0;
    for (unsigned l = 0; l < height(); ++l) n += nodes_at(l) * up_ports(l);
    if (params_.dual_port_hosts) n += host_count();
    return n;
}

std::vector<unsigned> PgftShape::tuple(unsigned level, std::uint64_t index) const
{
    if (index >= nodes_at(level)) throw std::out_of_range("PGFT node index out of range");
    std::vector<unsigned> digits;
    digits.reserve(height());
    for (unsigned j = 1; j <= height(); ++j) {
        digits.push_back(static_cast<unsigned>(index % radix(level, j)));
        index /= radix(level, j);
    }
    return digits;
}

std::uint64_t PgftShape::index(unsigned level, std::span<const unsigned> digits) const
{
    if (digits.size() != height()) throw std::invalid_argument("PGFT tuple has the wrong number of digits");
    std::uint64_t idx = 0;
    for (unsigned j = height(); j >= 1; --j) {
        if (digits[j - 1] >= radix(level, j)) throw std::out_of_range("PGFT tuple digit out of range");
        idx = idx * radix(level, j) + digits[j - 1];
    }
    return idx;
}

unsigned PgftShape::down_ports(unsigned level) const
{
    return level == 0 ? 0 : params_.m.at(level - 1) * params_.p.at(level - 1);
}

unsigned PgftShape::up_ports(unsigned level) const
{
    return level >= height() ? 0 : params_.w.at(level) * params_.p.at(level);
}

unsigned PgftShape::port_count(unsigned level) const
{
    if (level == 0) return params_.dual_port_hosts ? 2 : up_ports(0);
    unsigned down = down_ports(level) * (level == 1 && params_.dual_port_hosts ? 2 : 1);
    return down + up_ports(level);
}

PortNum PgftShape::down_port(unsigned level, unsigned r) const
{
    if (level == 0 || r >= down_ports(level)) throw std::out_of_range("PGFT down port out of range");
    return PortNum(static_cast<std::uint8_t>(r + 1));
}

PortNum PgftShape::up_port(unsigned level, unsigned q) const
{
    if (q >= up_ports(level)) throw std::out_of_range("PGFT up port out of range");
    unsigned down = down_ports(level) * (level == 1 && params_.dual_port_hosts ? 2 : 1);
    return PortNum(static_cast<std::uint8_t>(down + q + 1));
}

Guid PgftShape::guid(unsigned level, std::uint64_t index) const
{
    return level == 0 ? gen::host_guid(index) : gen::switch_guid(level, index);
}

std::string PgftShape::description(unsigned level, std::uint64_t index) const
{
    if (level == 0) return gen::numbered("host", index);
    std::string role = level == 1 ? "leaf" : level == height() ? "core" : "spine";
    return gen::numbered(role + "-L" + std::to_string(level), index);
}

Fabric generate_pgft(const PgftParams& params)
{
    PgftShape shape(params);
    const unsigned h = shape.height();
    Fabric f;

    // first[l] = NodeId of node 0 of level l; nodes of a level are contiguous.
    std::vector<std::uint32_t> first(h + 1);
    for (unsigned l = 0; l <= h; ++l) {
        first[l] = static_cast<std::uint32_t>(f.node_count());
        auto ports = static_cast<std::uint8_t>(shape.port_count(l));
        for (std::uint64_t i = 0; i < shape.nodes_at(l); ++i) {
            if (l == 0)
                gen::add_host(f, i, ports);
            else
                f.add_node(NodeType::switch_node, shape.guid(l, i), ports, shape.description(l, i));
        }
    }
    auto node_at = [&](unsigned l, std::uint64_t i) { return NodeId{first[l] + static_cast<std::uint32_t>(i)}; };

    for (unsigned l = 0; l < h; ++l) {
        const unsigned w = params.w[l];
        const unsigned m = params.m[l];
        for (std::uint64_t i = 0; i < shape.nodes_at(l); ++i) {
            auto digits = shape.tuple(l, i);
            const unsigned a = digits[l]; // a_{l+1}
            for (unsigned q = 0; q < shape.up_ports(l); ++q) {
                const unsigned k = q / w;
                auto upper = digits;
                upper[l] = q % w; // b_{l+1}
                const unsigned r = a + k * m;
                f.connect({node_at(l, i), shape.up_port(l, q)},
                          {node_at(l + 1, shape.index(l + 1, upper)), shape.down_port(l + 1, r)});
            }
        }
    }

    if (params.dual_port_hosts) {
        const unsigned m1 = params.m[0];
        const unsigned m2 = params.m[1];
        for (std::uint64_t i = 0; i < shape.host_count(); ++i) {
            auto digits = shape.tuple(0, i);
            auto leaf = digits;
            leaf[0] = 0;                        // b_1 (w_1 = 1)
            leaf[1] = (digits[1] + 1) % m2;     // sibling leaf
            PortNum leaf_port(static_cast<std::uint8_t>(m1 + digits[0] + 1));
            f.connect({node_at(0, i), PortNum(2)}, {node_at(1, shape.index(1, leaf)), leaf_port});
        }
    }

    gen::finish_ports(f);
    return f;
}

} // namespace ibsm::topology
