// MulticastForwardingTable codec: 32 big-endian 16-bit port masks.
#include "mad/multicast_forwarding_table.h"

#include "mad/wire.h"

namespace ibsm::mad {

std::optional<MulticastForwardingTable> decode_multicast_forwarding_table(std::span<const std::uint8_t> data)
{
    if (data.size() < 2 * mft_block_size) return std::nullopt;
    MulticastForwardingTable v;
    for (std::size_t i = 0; i < mft_block_size; ++i) v.masks[i] = wire::get_as<std::uint16_t>(data, 16 * i, 16);
    return v;
}

void encode(const MulticastForwardingTable& v, std::span<std::uint8_t, 64> out)
{
    for (std::size_t i = 0; i < mft_block_size; ++i) wire::put(out, 16 * i, 16, v.masks[i]);
}

} // namespace ibsm::mad
