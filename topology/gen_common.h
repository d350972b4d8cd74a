// Conventions every fabric generator follows, so generated dumps read well
// and survive a trip through ibsim unchanged.
//
// GUIDs: switches 0x0002c902GGIIIIII (GG = a family/level byte, IIIIII the
// index), hosts 0x0002c903IIIIII00 (IIIIII = host index) with port p at +p, the rule ibsim uses
// for CA port GUIDs. Names: "host-0123", "leaf-L1-0007", ...
//
// Random choices use std::mt19937_64, whose output the standard fixes, and our
// own bounded draw (the standard distributions are implementation-defined), so
// a seed means the same fabric on every platform.
#pragma once

#include "topology/fabric.h"

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::topology::gen {

inline constexpr std::uint64_t switch_guid_base = 0x0002c90200000000ull;
inline constexpr std::uint64_t host_guid_base = 0x0002c90300000000ull;
inline constexpr std::uint64_t max_switch_index = 1ull << 24;
inline constexpr std::uint64_t max_host_index = 1ull << 24;

// Switch-family bytes for non-tree generators (PGFT uses the level, 1..h).
inline constexpr unsigned family_ring = 0xa0;
inline constexpr unsigned family_torus = 0xb0;
inline constexpr unsigned family_random = 0xe0;
inline constexpr unsigned family_hypercube = 0xe1;
inline constexpr unsigned family_torus3d = 0xe2;
inline constexpr unsigned family_scattered = 0xe3; // gen_scattered.h
inline constexpr unsigned family_dragonfly_leaf = 0xe4;  // gen_dragonfly.h
inline constexpr unsigned family_dragonfly_spine = 0xe5;

Guid switch_guid(unsigned family, std::uint64_t index);
Guid host_guid(std::uint64_t index);

// "host-0123": prefix, dash, index zero-padded to at least four digits.
std::string numbered(std::string_view prefix, std::uint64_t index);

// Adds host `index` as a CA with `ports` ports and ibsim-style port GUIDs.
NodeId add_host(Fabric& f, std::uint64_t index, std::uint8_t ports);

// Generated ports are fully described by the model: mark them known and give
// cabled ones the rate ibsim simulates by default (4x SDR).
void finish_ports(Fabric& f);

// Forget the link rate of a port that has just lost its cable.
void clear_link_rate(Port& p);

// Uniform integer in [0, n), n > 0, by rejection (no modulo bias).
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n);

// Fisher-Yates shuffle driven by uniform_below.
template <typename T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng)
{
    for (std::size_t i = v.size(); i > 1; --i) {
        auto j = static_cast<std::size_t>(uniform_below(rng, i));
        std::swap(v[i - 1], v[j]);
    }
}

} // namespace ibsm::topology::gen
