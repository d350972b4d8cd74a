// Parallel-ports generalized fat-trees, PGFT(h; m_1..m_h; w_1..w_h;
// p_1..p_h), exactly as defined in seed 003 §II-B, and k-ary n-trees as a
// special case.
//
// Why: fat-tree routing engines (D-Mod-K, sFtree) and their tests need
// fabrics whose structure is known digit by digit; real-life fat-trees
// (RLFTs) are PGFTs.
//
// Nodes: level l holds the tuples (l, a_h..a_1) with a_j in [0, m_j) for
// j > l and a_j in [0, w_j) for j <= l; level 0 are the hosts (CAs), levels
// 1..h switches. A node's index within its level is the tuple read as a
// mixed-radix number, a_h most significant, so host i sits on leaf i / m_1
// when w_1 = 1.
//
// Ports: a level-l node has m_l*p_l down ports (objects r = 0..m_l p_l - 1)
// and w_{l+1}*p_{l+1} up ports (q = 0..w_{l+1} p_{l+1} - 1). Physical port
// numbers put the down ports first: down port r is r+1, up port q is
// (number of down ports) + q + 1. Hosts have only up ports (1..w_1 p_1).
//
// Cabling (seed 003, E^p): (l, a) up port q and (l+1, b) down port r are
// cabled iff a_j = b_j for all j != l+1, b_{l+1} = q mod w_{l+1},
// a_{l+1} = r mod m_{l+1} and q div w_{l+1} = r div m_{l+1} = k; i.e. the
// k-th of the p_{l+1} parallel links joins q = b_{l+1} + k w_{l+1} to
// r = a_{l+1} + k m_{l+1}.
//
// Dual-port hosts (an extension outside the paper, w_1 = p_1 = 1, h >= 2,
// m_2 >= 2): host (a_h..a_2, a_1) also gets port 2, cabled to the sibling
// leaf (a_h..a_3, (a_2+1) mod m_2, 0). Leaves then have 2*m_1 down ports:
// 1..m_1 for their own hosts, m_1+1..2m_1 for their neighbour's (port
// m_1 + a_1 + 1), then the up ports.
#pragma once

#include "topology/fabric.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ibsm::topology {

struct PgftParams {
    // One entry per level, index 0 = level 1.
    std::vector<unsigned> m;
    std::vector<unsigned> w;
    std::vector<unsigned> p;
    bool dual_port_hosts = false;
};

// k-ary n-tree: PGFT(n; k..k; 1,k..k; 1..1). k^n hosts, n*k^(n-1) switches.
PgftParams kary_ntree(unsigned k, unsigned n);

// Index arithmetic of one PGFT. The constructor validates the parameters and
// throws std::invalid_argument with a readable reason.
class PgftShape {
public:
    explicit PgftShape(PgftParams params);

    const PgftParams& params() const { return params_; }
    unsigned height() const { return static_cast<unsigned>(params_.m.size()); }
    std::uint64_t nodes_at(unsigned level) const { return level_size_.at(level); }
    std::uint64_t host_count() const { return nodes_at(0); }
    std::uint64_t switch_count() const;
    // Cables between levels (each up port of levels 0..h-1 once), plus the
    // second host ports when dual_port_hosts.
    std::uint64_t link_count() const;

    // Digit j of the tuple is at [j-1] (a_1 first).
    std::vector<unsigned> tuple(unsigned level, std::uint64_t index) const;
    std::uint64_t index(unsigned level, std::span<const unsigned> digits) const;
    // The radix of digit j (1-based) at `level`: m_j above it, w_j at or below.
    unsigned radix(unsigned level, unsigned j) const;

    unsigned down_ports(unsigned level) const; // m_l p_l; 0 for hosts
    unsigned up_ports(unsigned level) const;   // w_{l+1} p_{l+1}; 0 at the top
    unsigned port_count(unsigned level) const; // physical ports, dual-port extras included
    PortNum down_port(unsigned level, unsigned r) const;
    PortNum up_port(unsigned level, unsigned q) const;

    Guid guid(unsigned level, std::uint64_t index) const;
    std::string description(unsigned level, std::uint64_t index) const;

private:
    PgftParams params_;
    std::vector<std::uint64_t> level_size_; // [0..h]
};

// Nodes are added level by level (hosts first, NodeId = host index), so the
// first node is host-0000 — a CA, where ibsim will attach the SM.
Fabric generate_pgft(const PgftParams& params);

} // namespace ibsm::topology
