#include "mad/link_speed.h"

#include "mad/rate_codes.h"

#include <array>
#include <bit>

namespace ibsm::mad {

namespace {

struct SpeedInfo {
    std::string_view name;
    unsigned mbps;
    double signal_gbps;
};
constexpr std::array<SpeedInfo, 9> speeds{{
    {"?", 0, 0},
    {"SDR", 2'500, 2.5},
    {"DDR", 5'000, 5.0},
    {"QDR", 10'000, 10.0},
    {"FDR", 14'000, 14.0625},
    {"EDR", 25'000, 25.78125},
    {"HDR", 50'000, 53.125},
    {"NDR", 100'000, 106.25},
    {"XDR", 200'000, 212.5},
}};

const SpeedInfo& info(LaneSpeed s)
{
    const auto i = static_cast<std::size_t>(s);
    return speeds[i < speeds.size() ? i : 0];
}

// LinkSpeedSupported/Enabled (SDR=1, DDR=2, QDR=4).
SpeedSet base_set(std::uint8_t bits)
{
    SpeedSet s = 0;
    if (bits & 1) s |= speed_bit(LaneSpeed::sdr);
    if (bits & 2) s |= speed_bit(LaneSpeed::ddr);
    if (bits & 4) s |= speed_bit(LaneSpeed::qdr);
    return s;
}

// LinkSpeedExtSupported/Enabled (FDR=1, EDR=2, HDR=4, NDR=8).
SpeedSet ext_set(std::uint8_t bits)
{
    SpeedSet s = 0;
    if (bits & 1) s |= speed_bit(LaneSpeed::fdr);
    if (bits & 2) s |= speed_bit(LaneSpeed::edr);
    if (bits & 4) s |= speed_bit(LaneSpeed::hdr);
    if (bits & 8) s |= speed_bit(LaneSpeed::ndr);
    return s;
}

// The Enabled fields also carry the command values a Set uses: "set to
// Supported" (LinkWidthEnabled 255, LinkSpeedEnabled 15,
// LinkSpeedExtEnabled 31, LinkSpeedExtEnabled2 7) and, for the extended
// speeds, 30 = "extended speeds disabled". A port that answers with them
// is read as meaning them.
constexpr std::uint8_t width_set_to_supported = 255;
constexpr std::uint8_t speed_set_to_supported = 15;
constexpr std::uint8_t ext_set_to_supported = 31;
constexpr std::uint8_t ext_disabled = 30;
constexpr std::uint8_t ext2_set_to_supported = 7;

} // namespace

unsigned lanes(std::uint8_t width)
{
    switch (width) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
    }
}

std::string_view width_name(std::uint8_t width)
{
    switch (width) {
    case 1: return "1x";
    case 2: return "4x";
    case 4: return "8x";
    case 8: return "12x";
    case 16: return "2x";
    default: return "?";
    }
}

std::uint8_t widest(std::uint8_t mask)
{
    std::uint8_t best = 0;
    for (std::uint8_t bit = 1; bit != 0 && bit <= 16; bit = static_cast<std::uint8_t>(bit << 1))
        if ((mask & bit) && lanes(bit) > lanes(best)) best = bit;
    return best;
}

std::string_view speed_name(LaneSpeed s) { return info(s).name; }
unsigned lane_mbps(LaneSpeed s) { return info(s).mbps; }
double lane_signal_gbps(LaneSpeed s) { return info(s).signal_gbps; }

LaneSpeed fastest(SpeedSet set)
{
    if (set == 0) return LaneSpeed::none;
    return static_cast<LaneSpeed>(std::bit_width(static_cast<unsigned>(set)) - 1);
}

LaneSpeed active_speed(std::uint8_t speed_active, std::uint8_t ext_active, std::uint8_t ext_active2)
{
    if (ext_active2 == 1) return LaneSpeed::xdr;
    switch (ext_active) {
    case 1: return LaneSpeed::fdr;
    case 2: return LaneSpeed::edr;
    case 4: return LaneSpeed::hdr;
    case 8: return LaneSpeed::ndr;
    default: break;
    }
    switch (speed_active) {
    case 1: return LaneSpeed::sdr;
    case 2: return LaneSpeed::ddr;
    case 4: return LaneSpeed::qdr;
    default: return LaneSpeed::none;
    }
}

PortSpeeds port_speeds(const PortInfo& pi, std::uint32_t cap, std::uint16_t cap2)
{
    PortSpeeds s;
    s.width_active = widest(pi.link_width_active); // one bit; widest() drops stray ones
    s.widths_supported = pi.link_width_supported;
    s.widths_enabled =
        pi.link_width_enabled == width_set_to_supported ? pi.link_width_supported : pi.link_width_enabled;
    s.speed_active = active_speed(pi.link_speed_active, pi.link_speed_ext_active, pi.link_speed_ext_active2);

    s.speeds_supported = base_set(pi.link_speed_supported);
    s.speeds_enabled = base_set(pi.link_speed_enabled == speed_set_to_supported ? pi.link_speed_supported
                                                                                : pi.link_speed_enabled);
    if (extended_speeds_supported(cap)) {
        s.speeds_supported |= ext_set(pi.link_speed_ext_supported);
        const std::uint8_t en = pi.link_speed_ext_enabled;
        if (en == ext_set_to_supported) s.speeds_enabled |= ext_set(pi.link_speed_ext_supported);
        else if (en != ext_disabled) s.speeds_enabled |= ext_set(en);
    }
    if (cap2 & cap2_is_extended_speeds2_supported) {
        const bool sup = (pi.link_speed_ext_supported2 & 1) != 0;
        if (sup) s.speeds_supported |= speed_bit(LaneSpeed::xdr);
        const std::uint8_t en = pi.link_speed_ext_enabled2;
        if ((en == ext2_set_to_supported && sup) || (en != ext2_set_to_supported && (en & 1)))
            s.speeds_enabled |= speed_bit(LaneSpeed::xdr);
    }
    return s;
}

std::optional<unsigned> rate_mbps(std::uint8_t code)
{
    if (code >= rate_table.size() || rate_table[code] == 0) return std::nullopt;
    return rate_table[code];
}

int compare_rate_codes(std::uint8_t a, std::uint8_t b)
{
    const unsigned x = rate_mbps(a).value_or(0), y = rate_mbps(b).value_or(0);
    return x < y ? -1 : x > y ? 1 : 0;
}

std::optional<std::uint8_t> rate_code_for(unsigned mbps)
{
    std::optional<std::uint8_t> best;
    for (std::uint8_t c = 0; c < rate_table.size(); ++c) {
        const unsigned r = rate_table[c];
        if (r == 0 || r > mbps) continue;
        if (r == mbps) return c;
        if (!best || r > rate_table[*best]) best = c;
    }
    return best;
}

std::optional<std::uint8_t> rate_code(std::uint8_t width, LaneSpeed speed)
{
    const unsigned total = lanes(width) * lane_mbps(speed);
    if (total == 0) return std::nullopt;
    return rate_code_for(total);
}

} // namespace ibsm::mad
