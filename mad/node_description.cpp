// NodeDescription codec (IBA 14.2.5.2): 64 bytes of text, NUL padded. A
// description that fills all 64 bytes has no terminator.
#include "mad/node_description.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t node_description_size = 64;
}

std::optional<NodeDescription> decode_node_description(std::span<const std::uint8_t> data)
{
    if (data.size() < node_description_size) return std::nullopt;
    const auto field = data.first(node_description_size);
    const auto end = std::find(field.begin(), field.end(), std::uint8_t{0});
    NodeDescription v;
    v.text.assign(field.begin(), end);
    return v;
}

void encode(const NodeDescription& v, std::span<std::uint8_t, 64> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    const auto n = std::min(v.text.size(), node_description_size);
    std::transform(v.text.begin(), v.text.begin() + static_cast<std::ptrdiff_t>(n), out.begin(),
                   [](char c) { return static_cast<std::uint8_t>(c); });
}

} // namespace ibsm::mad
