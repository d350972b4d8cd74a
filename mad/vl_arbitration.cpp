// VLArbitrationTable codec: entry i is bytes 2i (4 reserved bits, then VL in
// the low nibble) and 2i+1 (Weight).
#include "mad/vl_arbitration.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t vl_arb_table_size = vl_arb_block_entries * 2;
}

std::optional<VlArbitrationTable> decode_vl_arbitration(std::span<const std::uint8_t> data)
{
    if (data.size() < vl_arb_table_size) return std::nullopt;
    VlArbitrationTable v;
    for (std::size_t i = 0; i < vl_arb_block_entries; ++i) {
        v.entries[i].vl = wire::get_as<std::uint8_t>(data, i * 16 + 4, 4);
        v.entries[i].weight = wire::get_as<std::uint8_t>(data, i * 16 + 8, 8);
    }
    return v;
}

void encode(const VlArbitrationTable& v, std::span<std::uint8_t, 64> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    for (std::size_t i = 0; i < vl_arb_block_entries; ++i) {
        wire::put(out, i * 16 + 4, 4, v.entries[i].vl);
        wire::put(out, i * 16 + 8, 8, v.entries[i].weight);
    }
}

} // namespace ibsm::mad
