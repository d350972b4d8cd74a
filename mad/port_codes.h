// The PortInfo size codes as data: MTU (IBA 14.2.5.6, NeighborMTU and MTUCap:
// 1 = 256 .. 5 = 4096 bytes) and VLs (VLCap and OperationalVLs: 1 = VL0,
// 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14). Header-only, like
// rate_codes.h, so config/, health/ and the daemon read the codes from one
// table.
//
// Every other code answers 0: VLCap and MTUCap 0 and 6..15 are reserved, and
// an OperationalVLs of 0 in a Set means "no change", so none of them is a
// number of VLs or bytes. A caller that needs at least one VL (VL0 always
// exists) says so where it decides, not here.
#pragma once

#include <array>
#include <cstdint>

namespace ibsm::mad {

inline constexpr std::array<unsigned, 5> mtu_byte_table{256, 512, 1024, 2048, 4096}; // codes 1..5
inline constexpr std::array<unsigned, 5> vl_count_table{1, 2, 4, 8, 15};             // codes 1..5

// Bytes of an MTU code; 0 for a reserved code.
constexpr unsigned mtu_bytes(std::uint8_t code)
{
    return code >= 1 && code <= mtu_byte_table.size() ? mtu_byte_table[code - 1] : 0;
}

// Data VLs of a VLCap / OperationalVLs code; 0 for a reserved code.
constexpr unsigned vl_count(std::uint8_t code)
{
    return code >= 1 && code <= vl_count_table.size() ? vl_count_table[code - 1] : 0;
}

} // namespace ibsm::mad
