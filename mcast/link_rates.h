// IBA rate and MTU codes as the multicast rules use them (IBA 15.2.5.16
// PathRecord table 205/206, used by MCMemberRecord too).
//
// Why: rate codes are not ordered by speed (3 = 10 Gb/s, 5 = 5 Gb/s,
// 15 = 25 Gb/s), so "greater than" must compare the speeds the codes
// stand for, never the codes. The table itself is mad/link_speed.h, shared
// with the SA's PathRecords.
#pragma once

#include "topology/fabric.h"

#include <cstdint>
#include <optional>

namespace ibsm::mcast {

// <0, 0, >0 as the speed of a is below, equal to, above b's. Precondition:
// both codes valid.
int compare_rates(std::uint8_t a, std::uint8_t b);
// Codes 2..25 (2.5 .. 1 600 Gb/s).
bool rate_valid(std::uint8_t code);
// MTU codes 1 (256) .. 5 (4096).
constexpr bool mtu_valid(std::uint8_t code) { return code >= 1 && code <= 5; }

// The rate code of a port's link from its active width and speed (SDR to
// XDR, 1x to 12x); a bandwidth without a code of its own gets the largest
// code below it. nullopt when the width or speed is unknown.
std::optional<std::uint8_t> link_rate_code(const topology::Port& port);

} // namespace ibsm::mcast
