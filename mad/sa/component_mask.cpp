#include "mad/sa/component_mask.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad::sa {

bool mask_valid(ComponentTable table, std::uint64_t mask)
{
    return table.size() >= 64 || (mask >> table.size()) == 0;
}

std::size_t table_bytes(ComponentTable table)
{
    std::size_t end = 0;
    for (const auto& c : table) end = std::max<std::size_t>(end, std::size_t{c.offset} + c.bits);
    return (end + 7) / 8;
}

bool matches(ComponentTable table, std::uint64_t mask, std::span<const std::uint8_t> query,
             std::span<const std::uint8_t> candidate)
{
    for (std::size_t i = 0; i < table.size() && i < 64 && (mask >> i) != 0; ++i) {
        if (!((mask >> i) & 1)) continue;
        const auto& c = table[i];
        // Whole bytes compare directly; fields inside bytes bit by bit.
        if (c.offset % 8 == 0 && c.bits % 8 == 0) {
            const auto from = static_cast<std::ptrdiff_t>(c.offset / 8);
            if (!std::equal(query.begin() + from, query.begin() + from + c.bits / 8, candidate.begin() + from))
                return false;
            continue;
        }
        if (wire::get(query, c.offset, c.bits) != wire::get(candidate, c.offset, c.bits)) return false;
    }
    return true;
}

} // namespace ibsm::mad::sa
