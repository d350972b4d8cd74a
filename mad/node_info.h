// NodeInfo attribute (IBA 14.2.5.3, attribute 0x0011).
#pragma once

#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

enum class NodeKind : std::uint8_t { ca = 1, switch_node = 2, router = 3 };

struct NodeInfo {
    std::uint8_t base_version = 1;
    std::uint8_t class_version = 1;
    NodeKind node_type = NodeKind::ca;
    std::uint8_t num_ports = 0;
    Guid system_image_guid;
    Guid node_guid;
    Guid port_guid;
    std::uint16_t partition_cap = 0;
    std::uint16_t device_id = 0;
    std::uint32_t revision = 0;
    PortNum local_port_num;
    std::uint32_t vendor_id = 0; // 24 bits

    bool operator==(const NodeInfo&) const = default;
};

// `data` is the 64-byte SMP data field. nullopt when too short or the node
// type is not 1..3.
std::optional<NodeInfo> decode_node_info(std::span<const std::uint8_t> data);
void encode(const NodeInfo& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
