// PortInfo attribute (IBA 14.2.5.6, attribute 0x0015). Field names follow the
// spec; widths in comments where they are not a whole integer type.
#pragma once

#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

enum class PortState : std::uint8_t { no_change = 0, down = 1, init = 2, armed = 3, active = 4 };

struct PortInfo {
    std::uint64_t mkey = 0;
    std::uint64_t gid_prefix = 0;
    Lid lid;
    Lid master_sm_lid;
    std::uint32_t capability_mask = 0;
    std::uint16_t diag_code = 0;
    std::uint16_t mkey_lease_period = 0;
    PortNum local_port_num;
    std::uint8_t link_width_enabled = 0;
    std::uint8_t link_width_supported = 0;
    std::uint8_t link_width_active = 0;
    std::uint8_t link_speed_supported = 0; // 4
    PortState port_state = PortState::no_change; // 4
    std::uint8_t port_phys_state = 0; // 4
    std::uint8_t link_down_default_state = 0; // 4
    std::uint8_t mkey_protect_bits = 0; // 2
    std::uint8_t lmc = 0; // 3
    std::uint8_t link_speed_active = 0; // 4
    std::uint8_t link_speed_enabled = 0; // 4
    std::uint8_t neighbor_mtu = 0; // 4
    std::uint8_t master_sm_sl = 0; // 4
    std::uint8_t vl_cap = 0; // 4
    std::uint8_t init_type = 0; // 4
    std::uint8_t vl_high_limit = 0;
    std::uint8_t vl_arb_high_cap = 0;
    std::uint8_t vl_arb_low_cap = 0;
    std::uint8_t init_type_reply = 0; // 4
    std::uint8_t mtu_cap = 0; // 4
    std::uint8_t vl_stall_count = 0; // 3
    std::uint8_t hoq_life = 0; // 5
    std::uint8_t operational_vls = 0; // 4
    bool partition_enforcement_inbound = false;
    bool partition_enforcement_outbound = false;
    bool filter_raw_inbound = false;
    bool filter_raw_outbound = false;
    std::uint16_t mkey_violations = 0;
    std::uint16_t pkey_violations = 0;
    std::uint16_t qkey_violations = 0;
    std::uint8_t guid_cap = 0;
    bool client_reregister = false;
    std::uint8_t subnet_timeout = 0; // 5
    std::uint8_t resp_time_value = 0; // 5
    std::uint8_t local_phy_errors = 0; // 4
    std::uint8_t overrun_errors = 0; // 4
    std::uint16_t max_credit_hint = 0;
    // XDR (IBA 1.7): 1 = 212.5 Gb/s per lane; valid where CapabilityMask2
    // says IsExtendedSpeeds2Supported (link_speed.h reads them).
    std::uint8_t link_speed_ext_active2 = 0;    // 2
    std::uint8_t link_speed_ext_supported2 = 0; // 2
    std::uint8_t link_speed_ext_enabled2 = 0;   // 3
    std::uint32_t link_round_trip_latency = 0; // 24
    std::uint16_t capability_mask2 = 0;
    std::uint8_t link_speed_ext_active = 0; // 4
    std::uint8_t link_speed_ext_supported = 0; // 4
    std::uint8_t link_speed_ext_enabled = 0; // 5

    bool operator==(const PortInfo&) const = default;
};

// `pi` with the fields a Set carries as commands (PortState, PortPhysicalState,
// LinkDownDefaultState, ClientReregister) set to "no change": the settings
// alone, so writing back what was read never changes state by accident, and
// a read-back compares with what the SM wants as settings.
inline PortInfo without_commands(PortInfo pi)
{
    pi.port_state = PortState::no_change;
    pi.port_phys_state = 0;
    pi.link_down_default_state = 0;
    pi.client_reregister = false;
    return pi;
}

// nullopt when too short or PortState is > 4.
std::optional<PortInfo> decode_port_info(std::span<const std::uint8_t> data);
void encode(const PortInfo& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
