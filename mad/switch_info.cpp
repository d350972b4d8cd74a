// SwitchInfo codec (IBA 14.2.5.4, table 149). 20 bytes; bit offsets are the
// spec's.
#include "mad/switch_info.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t switch_info_size = 20;
}

std::optional<SwitchInfo> decode_switch_info(std::span<const std::uint8_t> d)
{
    if (d.size() < switch_info_size) return std::nullopt;
    SwitchInfo v;
    v.linear_fdb_cap = wire::get_as<std::uint16_t>(d, 0, 16);
    v.random_fdb_cap = wire::get_as<std::uint16_t>(d, 16, 16);
    v.multicast_fdb_cap = wire::get_as<std::uint16_t>(d, 32, 16);
    v.linear_fdb_top = wire::get_as<std::uint16_t>(d, 48, 16);
    v.default_port = wire::get_as<std::uint8_t>(d, 64, 8);
    v.default_mcast_primary_port = wire::get_as<std::uint8_t>(d, 72, 8);
    v.default_mcast_not_primary_port = wire::get_as<std::uint8_t>(d, 80, 8);
    v.life_time_value = wire::get_as<std::uint8_t>(d, 88, 5);
    v.port_state_change = wire::get(d, 93, 1) != 0;
    v.optimized_sl2vl_mapping = wire::get_as<std::uint8_t>(d, 94, 2);
    v.lids_per_port = wire::get_as<std::uint16_t>(d, 96, 16);
    v.partition_enforcement_cap = wire::get_as<std::uint16_t>(d, 112, 16);
    v.inbound_enforcement_cap = wire::get(d, 128, 1) != 0;
    v.outbound_enforcement_cap = wire::get(d, 129, 1) != 0;
    v.filter_raw_inbound_cap = wire::get(d, 130, 1) != 0;
    v.filter_raw_outbound_cap = wire::get(d, 131, 1) != 0;
    v.enhanced_port0 = wire::get(d, 132, 1) != 0;
    v.multicast_fdb_top = wire::get_as<std::uint16_t>(d, 144, 16);
    return v;
}

void encode(const SwitchInfo& v, std::span<std::uint8_t, 64> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    wire::put(out, 0, 16, v.linear_fdb_cap);
    wire::put(out, 16, 16, v.random_fdb_cap);
    wire::put(out, 32, 16, v.multicast_fdb_cap);
    wire::put(out, 48, 16, v.linear_fdb_top);
    wire::put(out, 64, 8, v.default_port);
    wire::put(out, 72, 8, v.default_mcast_primary_port);
    wire::put(out, 80, 8, v.default_mcast_not_primary_port);
    wire::put(out, 88, 5, v.life_time_value);
    wire::put(out, 93, 1, v.port_state_change);
    wire::put(out, 94, 2, v.optimized_sl2vl_mapping);
    wire::put(out, 96, 16, v.lids_per_port);
    wire::put(out, 112, 16, v.partition_enforcement_cap);
    wire::put(out, 128, 1, v.inbound_enforcement_cap);
    wire::put(out, 129, 1, v.outbound_enforcement_cap);
    wire::put(out, 130, 1, v.filter_raw_inbound_cap);
    wire::put(out, 131, 1, v.filter_raw_outbound_cap);
    wire::put(out, 132, 1, v.enhanced_port0);
    wire::put(out, 144, 16, v.multicast_fdb_top);
}

} // namespace ibsm::mad
