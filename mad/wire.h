// Big-endian bit-field access for the MAD codecs. Offsets are given the way
// the IBA attribute tables give them (bit 0 = most significant bit of byte
// 0, fields laid out MSB first), so each codec reads like its spec table and
// a shifting mistake shows up as a wrong offset, not as hidden mask arithmetic.
// Internal to mad/: everything outside the codecs sees host-order values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ibsm::mad::wire {

// Reads `bits` (1..64) bits starting at `bit_offset`. Precondition: the field
// lies inside `buf` (the decoders check the attribute length first).
constexpr std::uint64_t get(std::span<const std::uint8_t> buf, std::size_t bit_offset, unsigned bits)
{
    std::uint64_t v = 0;
    std::size_t pos = bit_offset;
    unsigned left = bits;
    while (left > 0) {
        const unsigned in_byte = static_cast<unsigned>(pos % 8);
        const unsigned avail = 8 - in_byte;
        const unsigned take = avail < left ? avail : left;
        const unsigned shift = avail - take;
        const unsigned chunk = (static_cast<unsigned>(buf[pos / 8]) >> shift) & ((1u << take) - 1u);
        v = (v << take) | chunk;
        pos += take;
        left -= take;
    }
    return v;
}

// Writes the low `bits` (1..64) bits of `value` at `bit_offset`, leaving the
// neighbouring bits of shared bytes untouched.
constexpr void put(std::span<std::uint8_t> buf, std::size_t bit_offset, unsigned bits, std::uint64_t value)
{
    std::size_t pos = bit_offset;
    unsigned left = bits;
    while (left > 0) {
        const unsigned in_byte = static_cast<unsigned>(pos % 8);
        const unsigned avail = 8 - in_byte;
        const unsigned take = avail < left ? avail : left;
        const unsigned shift = avail - take;
        const unsigned mask = ((1u << take) - 1u) << shift;
        const unsigned chunk = static_cast<unsigned>(value >> (left - take)) & ((1u << take) - 1u);
        auto& b = buf[pos / 8];
        b = static_cast<std::uint8_t>((b & ~mask) | (chunk << shift));
        pos += take;
        left -= take;
    }
}

template <typename T>
constexpr T get_as(std::span<const std::uint8_t> buf, std::size_t bit_offset, unsigned bits)
{
    return static_cast<T>(get(buf, bit_offset, bits));
}

} // namespace ibsm::mad::wire
