#include "mcast/mft_blocks.h"

namespace ibsm::mcast {

MftBlocks switch_blocks(const std::map<std::uint16_t, PortMask>& masks, std::uint8_t num_ports,
                        std::uint16_t block_count)
{
    MftBlocks out;
    const std::uint8_t positions = static_cast<std::uint8_t>(num_ports / mad::mft_position_ports + 1);
    for (std::uint16_t b = 0; b < block_count; ++b)
        for (std::uint8_t p = 0; p < positions; ++p) out[MftBlockKey{b, p}] = {};
    for (const auto& [mlid, mask] : masks) {
        if (mlid < mad::multicast_lid_base) continue;
        const auto b = mad::mft_block_of(Lid(mlid));
        if (b >= block_count) continue;
        const auto i = mad::mft_index_of(Lid(mlid));
        for (std::uint8_t p = 0; p < positions; ++p)
            out[MftBlockKey{static_cast<std::uint16_t>(b), p}].masks[i] = mask.position(p);
    }
    return out;
}

std::vector<MftBlockKey> changed_blocks(const MftBlocks& desired, const ConfirmedMft& confirmed)
{
    std::vector<MftBlockKey> out;
    for (const auto& [key, table] : desired) {
        auto it = confirmed.find(key);
        if (it == confirmed.end() || !it->second || *it->second != table) out.push_back(key);
    }
    return out;
}

} // namespace ibsm::mcast
