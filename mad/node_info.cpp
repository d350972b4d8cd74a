// NodeInfo codec (IBA 14.2.5.3, table 147). 40 bytes; bit offsets below are
// the spec's.
#include "mad/node_info.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t node_info_size = 40;
}

std::optional<NodeInfo> decode_node_info(std::span<const std::uint8_t> d)
{
    if (d.size() < node_info_size) return std::nullopt;
    const auto type = wire::get_as<std::uint8_t>(d, 16, 8);
    if (type < 1 || type > 3) return std::nullopt;
    NodeInfo v;
    v.base_version = wire::get_as<std::uint8_t>(d, 0, 8);
    v.class_version = wire::get_as<std::uint8_t>(d, 8, 8);
    v.node_type = static_cast<NodeKind>(type);
    v.num_ports = wire::get_as<std::uint8_t>(d, 24, 8);
    v.system_image_guid = Guid(wire::get(d, 32, 64));
    v.node_guid = Guid(wire::get(d, 96, 64));
    v.port_guid = Guid(wire::get(d, 160, 64));
    v.partition_cap = wire::get_as<std::uint16_t>(d, 224, 16);
    v.device_id = wire::get_as<std::uint16_t>(d, 240, 16);
    v.revision = wire::get_as<std::uint32_t>(d, 256, 32);
    v.local_port_num = PortNum(wire::get_as<std::uint8_t>(d, 288, 8));
    v.vendor_id = wire::get_as<std::uint32_t>(d, 296, 24);
    return v;
}

void encode(const NodeInfo& v, std::span<std::uint8_t, 64> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    wire::put(out, 0, 8, v.base_version);
    wire::put(out, 8, 8, v.class_version);
    wire::put(out, 16, 8, static_cast<std::uint8_t>(v.node_type));
    wire::put(out, 24, 8, v.num_ports);
    wire::put(out, 32, 64, v.system_image_guid.value());
    wire::put(out, 96, 64, v.node_guid.value());
    wire::put(out, 160, 64, v.port_guid.value());
    wire::put(out, 224, 16, v.partition_cap);
    wire::put(out, 240, 16, v.device_id);
    wire::put(out, 256, 32, v.revision);
    wire::put(out, 288, 8, v.local_port_num.value());
    wire::put(out, 296, 24, v.vendor_id);
}

} // namespace ibsm::mad
