// SLtoVLMappingTable codec: 16 nibbles, two SLs per byte, even SL high.
#include "mad/sl2vl_table.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t sl2vl_table_size = num_sls / 2;
}

std::optional<Sl2VlTable> decode_sl2vl_table(std::span<const std::uint8_t> data)
{
    if (data.size() < sl2vl_table_size) return std::nullopt;
    Sl2VlTable v;
    for (std::size_t sl = 0; sl < num_sls; ++sl) v.vl[sl] = wire::get_as<std::uint8_t>(data, sl * 4, 4);
    return v;
}

void encode(const Sl2VlTable& v, std::span<std::uint8_t, 64> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    for (std::size_t sl = 0; sl < num_sls; ++sl) wire::put(out, sl * 4, 4, v.vl[sl]);
}

} // namespace ibsm::mad
