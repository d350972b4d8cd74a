// IBA rate and MTU codes (IBA 15.2.5.16 PathRecord table 205/206, used by
// MCMemberRecord too) and the comparisons the multicast rules make.
//
// Why: rate codes are not ordered by speed (3 = 10 Gb/s, 5 = 5 Gb/s,
// 15 = 25 Gb/s), so "greater than" must compare the speeds the codes
// stand for, never the codes.
#pragma once

#include <cstdint>
#include <optional>

namespace ibsm::mcast {

// Speed in units of 0.5 Gb/s of an IBA rate code 2..24; nullopt for
// reserved codes.
std::optional<unsigned> rate_half_gbps(std::uint8_t code);
// <0, 0, >0 as the speed of a is below, equal to, above b's. Precondition:
// both codes valid.
int compare_rates(std::uint8_t a, std::uint8_t b);
bool rate_valid(std::uint8_t code);
// MTU codes 1 (256) .. 5 (4096).
constexpr bool mtu_valid(std::uint8_t code) { return code >= 1 && code <= 5; }

// The rate code of a link from PortInfo's LinkWidthActive (1=1x, 2=4x,
// 4=8x, 8=12x, 16=2x) and LinkSpeedActive (1 SDR, 2 DDR, 4 QDR) /
// LinkSpeedExtActive (1 FDR, 2 EDR, 4 HDR); nullopt for combinations
// without a code.
std::optional<std::uint8_t> link_rate_code(std::uint8_t width_active, std::uint8_t speed_active,
                                           std::uint8_t speed_ext_active);

} // namespace ibsm::mcast
