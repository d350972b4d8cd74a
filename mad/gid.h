// A 128-bit GID (IBA 4.1.1) as two 64-bit halves (mad/notice.h keeps the
// raw 16 bytes as mad::Gid) as the SA records carry it: subnet prefix and
// interface ID (a port GUID for unicast GIDs), or a multicast GID whose
// first byte is 0xFF. Host order in the two halves; the codecs put them on
// the wire big-endian.
#pragma once

#include "mad/types.h"

#include <compare>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace ibsm::mad {

struct Gid128 {
    std::uint64_t prefix = 0; // bytes 0..7
    std::uint64_t interface_id = 0; // bytes 8..15

    constexpr bool is_zero() const { return prefix == 0 && interface_id == 0; }
    constexpr bool is_multicast() const { return (prefix >> 56) == 0xff; }
    // Scope nibble of a multicast GID (byte 1, low 4 bits): 2 link-local,
    // 5 site-local, 8 organisation-local, 0xE global.
    constexpr std::uint8_t multicast_scope() const { return static_cast<std::uint8_t>((prefix >> 48) & 0xf); }
    constexpr Guid guid() const { return Guid(interface_id); }
    constexpr auto operator<=>(const Gid128&) const = default;

    // "ff12:401b:ffff:0000:0000:0000:ffff:ffff", as saquery prints GIDs.
    std::string str() const
    {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x",
                      static_cast<unsigned>(prefix >> 48) & 0xffff, static_cast<unsigned>(prefix >> 32) & 0xffff,
                      static_cast<unsigned>(prefix >> 16) & 0xffff, static_cast<unsigned>(prefix) & 0xffff,
                      static_cast<unsigned>(interface_id >> 48) & 0xffff,
                      static_cast<unsigned>(interface_id >> 32) & 0xffff,
                      static_cast<unsigned>(interface_id >> 16) & 0xffff,
                      static_cast<unsigned>(interface_id) & 0xffff);
        return buf;
    }
};

} // namespace ibsm::mad

template <> struct std::hash<ibsm::mad::Gid128> {
    std::size_t operator()(const ibsm::mad::Gid128& g) const noexcept
    {
        return std::hash<std::uint64_t>{}(g.prefix * 0x9e3779b97f4a7c15ull ^ g.interface_id);
    }
};
