// P_KeyTable attribute (IBA 14.2.5.7, attribute 0x0016): one block of 32
// partition keys of a port. A P_Key's top bit is the membership type (1
// full, 0 limited), the low 15 bits the partition; 0x0000 (and 0x8000) is
// an empty entry. The attribute modifier is the block number (bits 0..15)
// and, on a switch, the port (bits 16..23). CA ports and switch port 0
// hold NodeInfo:PartitionCap entries, switch external ports
// SwitchInfo:PartitionEnforcementCap (0: no table).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

inline constexpr std::uint16_t attr_pkey_table = 0x0016;
inline constexpr std::size_t pkey_block_size = 32;
inline constexpr std::uint16_t pkey_full_bit = 0x8000;
inline constexpr std::uint16_t default_pkey = 0xFFFF;

constexpr std::uint16_t pkey_base(std::uint16_t pkey) { return pkey & 0x7fff; }
constexpr bool pkey_full(std::uint16_t pkey) { return (pkey & pkey_full_bit) != 0; }
constexpr bool pkey_empty(std::uint16_t pkey) { return pkey_base(pkey) == 0; }

struct PKeyTable {
    std::array<std::uint16_t, pkey_block_size> keys{};

    bool operator==(const PKeyTable&) const = default;
};

constexpr std::uint32_t pkey_attr_mod(std::uint16_t block, std::uint8_t switch_port = 0)
{
    return (std::uint32_t{switch_port} << 16) | block;
}

std::optional<PKeyTable> decode_pkey_table(std::span<const std::uint8_t> data);
void encode(const PKeyTable& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
