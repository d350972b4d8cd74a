// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
// 2012): a keyed pseudo-random function over short inputs.
//
// Why: per-port M_Keys are derived from one secret and the port GUID. The
// derivation must be a PRF, so that knowing one port's key (read off a
// compromised host, or sniffed on its link) tells nothing about another
// port's key or the secret; and the input is 8 bytes, the case SipHash was
// designed for. A plain hash (CRC, as OpenSM's guid2mkey example) is not
// keyed and a MAC over SHA-2 would add a dependency for no gain.
//
// Algorithm: the reference one: four 64-bit lanes initialised from the
// 128-bit key, two SipRounds per 8-byte little-endian message word, the
// length in the top byte of the last word, four finalisation rounds.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace ibsm::mkey {

using SipKey = std::array<std::uint8_t, 16>;

std::uint64_t siphash24(const SipKey& key, std::span<const std::uint8_t> message);

} // namespace ibsm::mkey
