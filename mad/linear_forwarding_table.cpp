// LinearForwardingTable codec: the block is a plain array of port bytes.
#include "mad/linear_forwarding_table.h"

#include <algorithm>

namespace ibsm::mad {

std::optional<LinearForwardingTable> decode_linear_forwarding_table(std::span<const std::uint8_t> data)
{
    if (data.size() < lft_block_size) return std::nullopt;
    LinearForwardingTable v;
    std::copy_n(data.begin(), lft_block_size, v.ports.begin());
    return v;
}

void encode(const LinearForwardingTable& v, std::span<std::uint8_t, 64> out)
{
    std::copy(v.ports.begin(), v.ports.end(), out.begin());
}

} // namespace ibsm::mad
