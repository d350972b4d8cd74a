// The IBA rate enumeration (IBA 15.2.5.16 table 205) as data: code -> data
// rate in Mb/s. Header-only so config/ (which links no mad/ library) checks
// a QoS level's rate against the same table the SA and the link check use
// through mad/link_speed.h; there is no second copy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace ibsm::mad {

// Index = code, value in Mb/s; 0 = reserved. Codes 19..25 are IBA 1.4 to
// 1.7 (Linux IB_RATE_28_GBPS .. IB_RATE_1600_GBPS).
inline constexpr std::array<unsigned, 26> rate_table{
    0,       0,       2'500,   10'000,  30'000,    5'000,     20'000,  40'000,  60'000,
    80'000,  120'000, 14'000,  56'000,  112'000,   168'000,   25'000,  100'000, 200'000,
    300'000, 28'000,  50'000,  400'000, 600'000,   800'000,   1'200'000, 1'600'000,
};

// The code of exactly `mbps`; nullopt when no code has that rate.
constexpr std::optional<std::uint8_t> exact_rate_code(unsigned mbps)
{
    for (std::size_t c = 0; c < rate_table.size(); ++c)
        if (rate_table[c] != 0 && rate_table[c] == mbps) return static_cast<std::uint8_t>(c);
    return std::nullopt;
}

} // namespace ibsm::mad
