// PortInfo codec (IBA 14.2.5.6, table 151). 64 bytes. Each line carries the
// spec's bit offset and width; the reserved gaps (274:3, 409:2 multicast
// P_Key trap suppression, 416:3, 448:1, 504:3) are skipped on decode and
// written as zero. Bits 449..455 are the XDR fields of IBA 1.7 (byte 56,
// bits 6..0: LinkSpeedExtActive2, LinkSpeedExtSupported2,
// LinkSpeedExtEnabled2, as libibmad's fields.c places them).
#include "mad/port_info.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t port_info_size = 64;
constexpr std::uint8_t max_port_state = 4;
} // namespace

std::optional<PortInfo> decode_port_info(std::span<const std::uint8_t> d)
{
    if (d.size() < port_info_size) return std::nullopt;
    const auto state = wire::get_as<std::uint8_t>(d, 260, 4);
    if (state > max_port_state) return std::nullopt;
    PortInfo v;
    v.mkey = wire::get(d, 0, 64);
    v.gid_prefix = wire::get(d, 64, 64);
    v.lid = Lid(wire::get_as<std::uint16_t>(d, 128, 16));
    v.master_sm_lid = Lid(wire::get_as<std::uint16_t>(d, 144, 16));
    v.capability_mask = wire::get_as<std::uint32_t>(d, 160, 32);
    v.diag_code = wire::get_as<std::uint16_t>(d, 192, 16);
    v.mkey_lease_period = wire::get_as<std::uint16_t>(d, 208, 16);
    v.local_port_num = PortNum(wire::get_as<std::uint8_t>(d, 224, 8));
    v.link_width_enabled = wire::get_as<std::uint8_t>(d, 232, 8);
    v.link_width_supported = wire::get_as<std::uint8_t>(d, 240, 8);
    v.link_width_active = wire::get_as<std::uint8_t>(d, 248, 8);
    v.link_speed_supported = wire::get_as<std::uint8_t>(d, 256, 4);
    v.port_state = static_cast<PortState>(state);
    v.port_phys_state = wire::get_as<std::uint8_t>(d, 264, 4);
    v.link_down_default_state = wire::get_as<std::uint8_t>(d, 268, 4);
    v.mkey_protect_bits = wire::get_as<std::uint8_t>(d, 272, 2);
    v.lmc = wire::get_as<std::uint8_t>(d, 277, 3);
    v.link_speed_active = wire::get_as<std::uint8_t>(d, 280, 4);
    v.link_speed_enabled = wire::get_as<std::uint8_t>(d, 284, 4);
    v.neighbor_mtu = wire::get_as<std::uint8_t>(d, 288, 4);
    v.master_sm_sl = wire::get_as<std::uint8_t>(d, 292, 4);
    v.vl_cap = wire::get_as<std::uint8_t>(d, 296, 4);
    v.init_type = wire::get_as<std::uint8_t>(d, 300, 4);
    v.vl_high_limit = wire::get_as<std::uint8_t>(d, 304, 8);
    v.vl_arb_high_cap = wire::get_as<std::uint8_t>(d, 312, 8);
    v.vl_arb_low_cap = wire::get_as<std::uint8_t>(d, 320, 8);
    v.init_type_reply = wire::get_as<std::uint8_t>(d, 328, 4);
    v.mtu_cap = wire::get_as<std::uint8_t>(d, 332, 4);
    v.vl_stall_count = wire::get_as<std::uint8_t>(d, 336, 3);
    v.hoq_life = wire::get_as<std::uint8_t>(d, 339, 5);
    v.operational_vls = wire::get_as<std::uint8_t>(d, 344, 4);
    v.partition_enforcement_inbound = wire::get(d, 348, 1) != 0;
    v.partition_enforcement_outbound = wire::get(d, 349, 1) != 0;
    v.filter_raw_inbound = wire::get(d, 350, 1) != 0;
    v.filter_raw_outbound = wire::get(d, 351, 1) != 0;
    v.mkey_violations = wire::get_as<std::uint16_t>(d, 352, 16);
    v.pkey_violations = wire::get_as<std::uint16_t>(d, 368, 16);
    v.qkey_violations = wire::get_as<std::uint16_t>(d, 384, 16);
    v.guid_cap = wire::get_as<std::uint8_t>(d, 400, 8);
    v.client_reregister = wire::get(d, 408, 1) != 0;
    v.subnet_timeout = wire::get_as<std::uint8_t>(d, 411, 5);
    v.resp_time_value = wire::get_as<std::uint8_t>(d, 419, 5);
    v.local_phy_errors = wire::get_as<std::uint8_t>(d, 424, 4);
    v.overrun_errors = wire::get_as<std::uint8_t>(d, 428, 4);
    v.max_credit_hint = wire::get_as<std::uint16_t>(d, 432, 16);
    v.link_speed_ext_active2 = wire::get_as<std::uint8_t>(d, 449, 2);
    v.link_speed_ext_supported2 = wire::get_as<std::uint8_t>(d, 451, 2);
    v.link_speed_ext_enabled2 = wire::get_as<std::uint8_t>(d, 453, 3);
    v.link_round_trip_latency = wire::get_as<std::uint32_t>(d, 456, 24);
    v.capability_mask2 = wire::get_as<std::uint16_t>(d, 480, 16);
    v.link_speed_ext_active = wire::get_as<std::uint8_t>(d, 496, 4);
    v.link_speed_ext_supported = wire::get_as<std::uint8_t>(d, 500, 4);
    v.link_speed_ext_enabled = wire::get_as<std::uint8_t>(d, 507, 5);
    return v;
}

void encode(const PortInfo& v, std::span<std::uint8_t, 64> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    wire::put(out, 0, 64, v.mkey);
    wire::put(out, 64, 64, v.gid_prefix);
    wire::put(out, 128, 16, v.lid.value());
    wire::put(out, 144, 16, v.master_sm_lid.value());
    wire::put(out, 160, 32, v.capability_mask);
    wire::put(out, 192, 16, v.diag_code);
    wire::put(out, 208, 16, v.mkey_lease_period);
    wire::put(out, 224, 8, v.local_port_num.value());
    wire::put(out, 232, 8, v.link_width_enabled);
    wire::put(out, 240, 8, v.link_width_supported);
    wire::put(out, 248, 8, v.link_width_active);
    wire::put(out, 256, 4, v.link_speed_supported);
    wire::put(out, 260, 4, static_cast<std::uint8_t>(v.port_state));
    wire::put(out, 264, 4, v.port_phys_state);
    wire::put(out, 268, 4, v.link_down_default_state);
    wire::put(out, 272, 2, v.mkey_protect_bits);
    wire::put(out, 277, 3, v.lmc);
    wire::put(out, 280, 4, v.link_speed_active);
    wire::put(out, 284, 4, v.link_speed_enabled);
    wire::put(out, 288, 4, v.neighbor_mtu);
    wire::put(out, 292, 4, v.master_sm_sl);
    wire::put(out, 296, 4, v.vl_cap);
    wire::put(out, 300, 4, v.init_type);
    wire::put(out, 304, 8, v.vl_high_limit);
    wire::put(out, 312, 8, v.vl_arb_high_cap);
    wire::put(out, 320, 8, v.vl_arb_low_cap);
    wire::put(out, 328, 4, v.init_type_reply);
    wire::put(out, 332, 4, v.mtu_cap);
    wire::put(out, 336, 3, v.vl_stall_count);
    wire::put(out, 339, 5, v.hoq_life);
    wire::put(out, 344, 4, v.operational_vls);
    wire::put(out, 348, 1, v.partition_enforcement_inbound);
    wire::put(out, 349, 1, v.partition_enforcement_outbound);
    wire::put(out, 350, 1, v.filter_raw_inbound);
    wire::put(out, 351, 1, v.filter_raw_outbound);
    wire::put(out, 352, 16, v.mkey_violations);
    wire::put(out, 368, 16, v.pkey_violations);
    wire::put(out, 384, 16, v.qkey_violations);
    wire::put(out, 400, 8, v.guid_cap);
    wire::put(out, 408, 1, v.client_reregister);
    wire::put(out, 411, 5, v.subnet_timeout);
    wire::put(out, 419, 5, v.resp_time_value);
    wire::put(out, 424, 4, v.local_phy_errors);
    wire::put(out, 428, 4, v.overrun_errors);
    wire::put(out, 432, 16, v.max_credit_hint);
    wire::put(out, 449, 2, v.link_speed_ext_active2);
    wire::put(out, 451, 2, v.link_speed_ext_supported2);
    wire::put(out, 453, 3, v.link_speed_ext_enabled2);
    wire::put(out, 456, 24, v.link_round_trip_latency);
    wire::put(out, 480, 16, v.capability_mask2);
    wire::put(out, 496, 4, v.link_speed_ext_active);
    wire::put(out, 500, 4, v.link_speed_ext_supported);
    wire::put(out, 507, 5, v.link_speed_ext_enabled);
}

} // namespace ibsm::mad
