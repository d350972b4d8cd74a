// P_KeyTable codec: 32 big-endian 16-bit keys.
#include "mad/pkey_table.h"

#include "mad/wire.h"

namespace ibsm::mad {

std::optional<PKeyTable> decode_pkey_table(std::span<const std::uint8_t> data)
{
    if (data.size() < 2 * pkey_block_size) return std::nullopt;
    PKeyTable v;
    for (std::size_t i = 0; i < pkey_block_size; ++i) v.keys[i] = wire::get_as<std::uint16_t>(data, 16 * i, 16);
    return v;
}

void encode(const PKeyTable& v, std::span<std::uint8_t, 64> out)
{
    for (std::size_t i = 0; i < pkey_block_size; ++i) wire::put(out, 16 * i, 16, v.keys[i]);
}

} // namespace ibsm::mad
