// VLArbitrationTable attribute (IBA 14.2.5.9, attribute 0x0018): one block
// of 32 {VL, Weight} entries of a port's low- or high-priority arbitration
// table. The attribute modifier is block << 16 | port (port used by
// switches; CAs ignore it), block 1..4 as VlArbBlock lists.
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

inline constexpr std::size_t vl_arb_block_entries = 32;

enum class VlArbBlock : std::uint8_t {
    low_0_31 = 1,   // low-priority table, entries 0..31
    low_32_63 = 2,  // low-priority table, entries 32..63
    high_0_31 = 3,  // high-priority table, entries 0..31
    high_32_63 = 4, // high-priority table, entries 32..63
};

struct VlArbEntry {
    std::uint8_t vl = 0; // 4 bits
    std::uint8_t weight = 0; // units of 64 bytes; 0 skips the entry

    bool operator==(const VlArbEntry&) const = default;
};

struct VlArbitrationTable {
    std::array<VlArbEntry, vl_arb_block_entries> entries{};

    bool operator==(const VlArbitrationTable&) const = default;
};

constexpr std::uint32_t vl_arb_attr_mod(VlArbBlock block, PortNum port)
{
    return static_cast<std::uint32_t>(block) << 16 | port.value();
}

std::optional<VlArbitrationTable> decode_vl_arbitration(std::span<const std::uint8_t> data);
void encode(const VlArbitrationTable& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
