// LinearForwardingTable attribute (IBA 14.2.5.10, attribute 0x0019): one
// 64-entry block of a switch's unicast forwarding table. The attribute
// modifier is the block number; entry i of block b is the output port for
// LID b*64+i.
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

inline constexpr std::size_t lft_block_size = 64;
// Port value that drops packets for a LID (no route).
inline constexpr std::uint8_t lft_no_route = 0xFF;

struct LinearForwardingTable {
    std::array<std::uint8_t, lft_block_size> ports{}; // ports[i]: output port for LID block*64+i

    bool operator==(const LinearForwardingTable&) const = default;
};

// Block number (= attribute modifier) holding `lid`, and its index there.
constexpr std::uint32_t lft_block_of(Lid lid) { return lid.value() / lft_block_size; }
constexpr std::size_t lft_index_of(Lid lid) { return lid.value() % lft_block_size; }

std::optional<LinearForwardingTable> decode_linear_forwarding_table(std::span<const std::uint8_t> data);
void encode(const LinearForwardingTable& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
