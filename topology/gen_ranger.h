// Multi-core fat-trees like TACC's Ranger: several identical core switches,
// each internally a PGFT of switch chips, with edge switches (NEMs, Ranger's
// "network express modules") whose uplinks are spread over every core.
//
// Why: seed 000 measures routing time on a "Ranger-like" fabric (two Sun
// Magnum 3456-port cores); the fat-tree engines and the benchmarks need that
// shape, which is not a PGFT: the cores share nothing above the NEMs, and
// the core leaves of one NEM group all see the same top switches.
//
// Data structures: a MulticoreShape holds the parameters and the PgftShape of
// one core. A core is PGFT(h; m; w; p) without its hosts: core level 1 (its
// leaves) has m_1 free down ports, where NEMs plug in; w_1 = p_1 = 1 is
// required because the core's level 0 is not its own. Defaults: Ranger, two
// PGFT(3; 12,12,24; 1,12,12; 1,1,1) cores (288 leaves, 288 middles, 144 tops
// of 24 ports each = 720 chips per core), 328 NEMs of 12 hosts and 6 uplinks
// to each core: 3936 hosts, 1768 switches, 5 levels of nodes.
//
// Wiring: NEMs form groups of m_1 (the free ports of a core leaf); group g
// uses core leaves g*U .. g*U+U-1 (U = uplinks per core) of every core, and
// slot k of the group plugs into down port k+1 of each of them. Seen from
// above, NEMs are one more PGFT level with m = m_1 and w = cores * U. A last,
// partial group leaves some leaf ports free.
//
// Numbering: nodes are added hosts first (NodeId = host index; host i sits on
// NEM i / hosts_per_nem, port i % hosts_per_nem + 1), then NEMs, then core 0
// level 1..h, core 1 level 1..h, ... . Ports: a NEM has its hosts on
// 1..hosts_per_nem, then its uplinks core by core (core c, uplink u on
// hosts_per_nem + c*U + u + 1); core switches are numbered exactly as
// generate_pgft numbers them (down ports first). GUIDs follow gen_common.h:
// NEM n is switch family 0xc0, index n; switch i of core level l in core c is
// family 0xc0 + l, index c * 2^20 + i. Descriptions: "host-0012",
// "nem-0003", "core1-leaf-L1-0007", "core0-spine-L2-0011", "core1-top-L3-0143"
// (L = the level inside the core, index = its PGFT tuple index there).
#pragma once

#include "topology/fabric.h"
#include "topology/gen_pgft.h"

#include <cstdint>
#include <string>

namespace ibsm::topology {

// The Sun Magnum 3456-port core: PGFT(3; 12,12,24; 1,12,12; 1,1,1) of 24-port chips.
PgftParams magnum_core();

struct MulticoreParams {
    unsigned cores = 2;
    PgftParams core = magnum_core();
    unsigned nems = 328;
    unsigned hosts_per_nem = 12;
    unsigned uplinks_per_core = 6;
};

// Index arithmetic of one multi-core fabric. The constructor validates the
// parameters and throws std::invalid_argument with a readable reason.
class MulticoreShape {
public:
    static constexpr unsigned max_cores = 16;
    static constexpr std::uint64_t core_index_stride = 1ull << 20; // GUID index of core c starts at c * stride

    explicit MulticoreShape(MulticoreParams params);

    const MulticoreParams& params() const { return params_; }
    const PgftShape& core() const { return core_; }
    unsigned core_height() const { return core_.height(); }

    unsigned nems_per_group() const { return params_.core.m[0]; }
    std::uint64_t group_count() const; // complete groups of U leaves each core can offer
    std::uint64_t core_leaves() const { return core_.nodes_at(1); }

    std::uint64_t host_count() const;
    std::uint64_t switch_count() const; // NEMs + core switches
    std::uint64_t link_count() const;

    // Core leaf (index within every core) and its down port used by NEM
    // `nem`'s uplink `u` (0 <= u < U), the same in every core.
    std::uint64_t core_leaf_of(std::uint64_t nem, unsigned u) const;
    PortNum core_leaf_port_of(std::uint64_t nem) const;

    unsigned nem_ports() const;
    PortNum nem_host_port(unsigned k) const;
    PortNum nem_up_port(unsigned core, unsigned u) const;

    Guid nem_guid(std::uint64_t nem) const;
    Guid core_guid(unsigned core, unsigned level, std::uint64_t index) const;
    std::string nem_description(std::uint64_t nem) const;
    std::string core_description(unsigned core, unsigned level, std::uint64_t index) const;

private:
    MulticoreParams params_;
    PgftShape core_;
};

// The fabric in the node order above; its first node is host-0000, a CA on
// NEM 0, where ibsim attaches the SM.
Fabric generate_multicore(const MulticoreParams& params);

} // namespace ibsm::topology
