#include "mcast/link_rates.h"

#include <array>

namespace ibsm::mcast {

namespace {
// IBA rate codes 0..24 in 0.5 Gb/s units; 0 = reserved.
constexpr std::array<unsigned, 25> half_gbps{
    0,   0,   5,   20,  60,  10,  40,  80,  120, 160,  240,  28, // 0..11 (11: 14 Gb/s)
    112, 224, 336, 50,  200, 400, 600, 56,  100, 800, 1200, 1600, 2400, // 12..24
};
} // namespace

std::optional<unsigned> rate_half_gbps(std::uint8_t code)
{
    if (code >= half_gbps.size() || half_gbps[code] == 0) return std::nullopt;
    return half_gbps[code];
}

bool rate_valid(std::uint8_t code) { return rate_half_gbps(code).has_value(); }

int compare_rates(std::uint8_t a, std::uint8_t b)
{
    const unsigned x = rate_half_gbps(a).value_or(0), y = rate_half_gbps(b).value_or(0);
    return x < y ? -1 : x > y ? 1 : 0;
}

std::optional<std::uint8_t> link_rate_code(std::uint8_t width_active, std::uint8_t speed_active,
                                           std::uint8_t speed_ext_active)
{
    unsigned lanes = 0;
    switch (width_active) {
    case 1: lanes = 1; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    case 16: lanes = 2; break;
    default: return std::nullopt;
    }
    // Per-lane data rate in 0.5 Gb/s units (after encoding, as the codes count).
    unsigned lane = 0;
    if (speed_ext_active == 1) lane = 28;      // FDR 14
    else if (speed_ext_active == 2) lane = 50; // EDR 25
    else if (speed_ext_active == 4) lane = 100; // HDR 50
    else if (speed_active == 1) lane = 5;      // SDR 2.5
    else if (speed_active == 2) lane = 10;     // DDR 5
    else if (speed_active == 4) lane = 20;     // QDR 10
    else return std::nullopt;
    const unsigned total = lanes * lane;
    for (std::uint8_t code = 2; code < half_gbps.size(); ++code)
        if (rate_half_gbps(code) == total) return code;
    return std::nullopt;
}

} // namespace ibsm::mcast
