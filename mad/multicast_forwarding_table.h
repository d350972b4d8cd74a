// MulticastForwardingTable attribute (IBA 14.2.5.12, attribute 0x001B): one
// block of a switch's multicast table, 32 MLIDs by 16 ports. Each entry is
// a PortMask whose bit i (least significant first) is port position*16 + i.
// The attribute modifier carries the block (bits 0..8: MLIDs 0xC000 +
// 32*block ..) and the position (bits 28..31: ports 16*position ..), so a
// switch with more than 15 ports needs several positions per block.
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

inline constexpr std::uint16_t attr_multicast_forwarding_table = 0x001B;
inline constexpr std::uint16_t multicast_lid_base = 0xC000;
inline constexpr std::size_t mft_block_size = 32;    // MLIDs per block
inline constexpr std::size_t mft_position_ports = 16; // ports per position

struct MulticastForwardingTable {
    std::array<std::uint16_t, mft_block_size> masks{}; // masks[i]: MLID 0xC000 + 32*block + i

    bool operator==(const MulticastForwardingTable&) const = default;
};

// Block of a multicast LID (precondition: mlid >= 0xC000) and its index there.
constexpr std::uint32_t mft_block_of(Lid mlid) { return (mlid.value() - multicast_lid_base) / mft_block_size; }
constexpr std::size_t mft_index_of(Lid mlid) { return (mlid.value() - multicast_lid_base) % mft_block_size; }
constexpr std::uint32_t mft_attr_mod(std::uint32_t block, std::uint8_t position)
{
    return (std::uint32_t{position} << 28) | (block & 0x1ff);
}

std::optional<MulticastForwardingTable> decode_multicast_forwarding_table(std::span<const std::uint8_t> data);
void encode(const MulticastForwardingTable& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
