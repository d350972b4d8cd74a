// SLtoVLMappingTable attribute (IBA 14.2.5.8, attribute 0x0017): the VL that
// each of the 16 SLs maps to, 4 bits each, SL0 in the high nibble of byte 0.
//
// Attribute modifier (switches): bits 15..8 input port, 7..0 output port;
// CAs and routers ignore it (one table per port). Switches whose SwitchInfo
// reports OptimizedSLtoVLMappingProgramming also honour bit 17
// (AllInputPorts: the table applies to every input port of the given output
// port) and bit 16 (AllOutputPorts), so one Set can program the whole switch.
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

inline constexpr std::size_t num_sls = 16;
// VL15 in an SL2VL entry means "drop packets on this SL".
inline constexpr std::uint8_t sl2vl_drop = 15;

struct Sl2VlTable {
    std::array<std::uint8_t, num_sls> vl{}; // vl[sl], 4 bits each

    bool operator==(const Sl2VlTable&) const = default;
};

inline constexpr std::uint32_t sl2vl_all_output_ports = 1u << 16;
inline constexpr std::uint32_t sl2vl_all_input_ports = 1u << 17;

// Attribute modifier for the table used from `in` to `out` on a switch.
constexpr std::uint32_t sl2vl_attr_mod(PortNum in, PortNum out)
{
    return static_cast<std::uint32_t>(in.value()) << 8 | out.value();
}

// nullopt when shorter than the 8 bytes of the table.
std::optional<Sl2VlTable> decode_sl2vl_table(std::span<const std::uint8_t> data);
// VLs are truncated to 4 bits; the rest of the data field is zeroed.
void encode(const Sl2VlTable& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
