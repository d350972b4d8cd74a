// Link width, lane speed and IBA rate: the one place that reads them out of
// a PortInfo (IBA 14.2.5.6) and turns them into names, bandwidth and the
// rate enumeration PathRecord and MCMemberRecord carry (IBA 15.2.5.16).
//
// Why one place: the link check, the SA's path and multicast rates, the
// report's link capacity and the topology dump must agree on what a port's
// fields mean — which fields are valid under which capability bit, which
// extended field overrides which, and that rate codes are not ordered by
// bandwidth (3 = 10 Gb/s, 5 = 5 Gb/s).
//
// Data structures: a width is one LinkWidth bit (1 = 1x, 2 = 4x, 4 = 8x,
// 8 = 12x, 16 = 2x) and a set of widths the 8-bit mask PortInfo carries; a
// lane speed is the LaneSpeed enum, ordered by bandwidth, and a set of them
// a SpeedSet bit mask over that enum. Bandwidths are data rates in Mb/s
// (after line encoding, as the rate enumeration counts them: FDR 14, XDR
// 200 Gb/s per lane).
//
// Algorithm: speeds come from three generations of fields. LinkSpeedActive
// (SDR/DDR/QDR); LinkSpeedExtActive (FDR=1, EDR=2, HDR=4, NDR=8) which
// overrides it when non-zero; LinkSpeedExtActive2 (XDR=1) which overrides
// both. Supported and enabled sets count the extended fields only where the
// capability mask (a switch's port 0 one for its external ports) says
// IsExtendedSpeedsSupported, and the XDR fields only where CapabilityMask2
// says IsExtendedSpeeds2Supported.
#pragma once

#include "mad/port_info.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsm::mad {

// PortInfo CapabilityMask bits (IBA 14.2.5.6 table 152).
inline constexpr std::uint32_t cap_is_extended_speeds_supported = 0x00004000;
// CapabilityMask2 bits.
inline constexpr std::uint16_t cap2_is_link_width_2x_supported = 0x0010;
inline constexpr std::uint16_t cap2_is_link_speed_hdr_supported = 0x0020;
inline constexpr std::uint16_t cap2_is_link_speed_ndr_supported = 0x0400;
inline constexpr std::uint16_t cap2_is_extended_speeds2_supported = 0x0800;
inline constexpr std::uint16_t cap2_is_link_speed_xdr_supported = 0x1000;

// AttributeModifier bit 31 of a PortInfo Get or Set, SMSupportExtendedSpeeds
// (IBA 14.2.5.6): without it a port that supports extended speeds may
// answer with the LinkSpeedExt fields zeroed.
inline constexpr std::uint32_t attr_mod_sm_supports_extended_speeds = 0x80000000u;

constexpr bool extended_speeds_supported(std::uint32_t capability_mask)
{
    return (capability_mask & cap_is_extended_speeds_supported) != 0;
}

// ---- widths -------------------------------------------------------------

// Lanes of one LinkWidth bit; 0 for anything else.
unsigned lanes(std::uint8_t width);
// "1x", "2x", "4x", "8x", "12x"; "?" for anything else.
std::string_view width_name(std::uint8_t width);
// The LinkWidth bit with the most lanes in `mask`; 0 when none.
std::uint8_t widest(std::uint8_t mask);

// ---- lane speeds ----------------------------------------------------------

enum class LaneSpeed : std::uint8_t { none, sdr, ddr, qdr, fdr, edr, hdr, ndr, xdr };
// "SDR" .. "XDR"; "?" for none.
std::string_view speed_name(LaneSpeed s);
// Data rate of one lane in Mb/s: SDR 2 500 .. XDR 200 000; 0 for none.
unsigned lane_mbps(LaneSpeed s);
// Signalling rate in Gb/s as ibstat prints it (XDR 212.5, NDR 106.25, ...).
double lane_signal_gbps(LaneSpeed s);

using SpeedSet = std::uint16_t; // bit (1 << LaneSpeed)
constexpr SpeedSet speed_bit(LaneSpeed s) { return static_cast<SpeedSet>(1u << static_cast<unsigned>(s)); }
// The fastest speed in `set`; none when empty.
LaneSpeed fastest(SpeedSet set);

// The active speed from the three generations of fields (see above); none
// when they name nothing.
LaneSpeed active_speed(std::uint8_t link_speed_active, std::uint8_t link_speed_ext_active,
                       std::uint8_t link_speed_ext_active2);

// What one port reports about its link. `capability_mask` and
// `capability_mask2` are the port's own for a CA or router port and switch
// port 0, the switch's port 0 ones for its external ports (IBA 14.2.5.6:
// a switch states its capabilities on port 0).
struct PortSpeeds {
    std::uint8_t width_active = 0; // one LinkWidth bit
    std::uint8_t widths_supported = 0;
    std::uint8_t widths_enabled = 0;
    LaneSpeed speed_active = LaneSpeed::none;
    SpeedSet speeds_supported = 0;
    SpeedSet speeds_enabled = 0;
};
PortSpeeds port_speeds(const PortInfo& pi, std::uint32_t capability_mask, std::uint16_t capability_mask2);
inline PortSpeeds port_speeds(const PortInfo& pi) { return port_speeds(pi, pi.capability_mask, pi.capability_mask2); }

// ---- the IBA rate enumeration ---------------------------------------------

// Data rate of a rate code 2..25 in Mb/s (2 = 2.5 Gb/s ... 25 = 1 600
// Gb/s; the table is mad/rate_codes.h); nullopt for reserved codes (0, 1,
// 26..63).
std::optional<unsigned> rate_mbps(std::uint8_t code);
// <0, 0, >0 as the bandwidth of code a is below, equal to, above b's;
// reserved codes count as 0.
int compare_rate_codes(std::uint8_t a, std::uint8_t b);
// The code of exactly `mbps`; with none, the largest code not above it
// (12x XDR, 2 400 Gb/s, has no code and gets 1 600); nullopt below 2.5 Gb/s.
std::optional<std::uint8_t> rate_code_for(unsigned mbps);
// The code of a link of `width` (one LinkWidth bit) at `speed`; nullopt
// when either is unknown.
std::optional<std::uint8_t> rate_code(std::uint8_t width, LaneSpeed speed);

} // namespace ibsm::mad
