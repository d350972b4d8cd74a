// A switch's MulticastForwardingTable as the blocks the SM sends
// (mad/multicast_forwarding_table.h): 32 MLIDs by 16 ports each, and which
// of them differ from what the switch has confirmed.
//
// Why: a 36-port switch holds 3 positions per block; re-sending every
// block of every switch on each join would cost (switches x blocks x
// positions) SMPs where a join changes a few. Like the LFT programmer, only
// blocks whose content changed are sent.
//
// Data structures: blocks keyed by (block, position), ordered, so a diff
// and the Sets come out block-major.
#pragma once

#include "mad/multicast_forwarding_table.h"
#include "mcast/tree.h"

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace ibsm::mcast {

struct MftBlockKey {
    std::uint16_t block = 0;
    std::uint8_t position = 0;
    constexpr auto operator<=>(const MftBlockKey&) const = default;
};

using MftBlocks = std::map<MftBlockKey, mad::MulticastForwardingTable>;
// What a switch is known to hold per block (nullopt or absent: unknown).
using ConfirmedMft = std::map<MftBlockKey, std::optional<mad::MulticastForwardingTable>>;

// Every block 0..block_count-1, positions 0..num_ports/16, of a switch whose
// multicast entries are `masks` (MLID -> ports); MLIDs past the blocks are
// ignored (callers size block_count from the highest MLID).
MftBlocks switch_blocks(const std::map<std::uint16_t, PortMask>& masks, std::uint8_t num_ports,
                        std::uint16_t block_count);

// The blocks of `desired` that `confirmed` does not show with that content.
std::vector<MftBlockKey> changed_blocks(const MftBlocks& desired, const ConfirmedMft& confirmed);

// Blocks needed to cover `top_mlid` (0 blocks when it is not multicast).
constexpr std::uint16_t blocks_for(Lid top_mlid)
{
    return top_mlid.value() < mad::multicast_lid_base ? 0
                                                     : static_cast<std::uint16_t>(mad::mft_block_of(top_mlid) + 1);
}

} // namespace ibsm::mcast
