// NodeDescription attribute (IBA 14.2.5.2, attribute 0x0010): 64 bytes of
// UTF-8, NUL-padded.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ibsm::mad {

struct NodeDescription {
    std::string text; // without trailing NULs; at most 64 bytes

    bool operator==(const NodeDescription&) const = default;
};

std::optional<NodeDescription> decode_node_description(std::span<const std::uint8_t> data);
// Longer text is truncated to 64 bytes.
void encode(const NodeDescription& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
