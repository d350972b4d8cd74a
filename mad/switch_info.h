// SwitchInfo attribute (IBA 14.2.5.4, attribute 0x0012).
#pragma once

#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

struct SwitchInfo {
    std::uint16_t linear_fdb_cap = 0;
    std::uint16_t random_fdb_cap = 0;
    std::uint16_t multicast_fdb_cap = 0;
    std::uint16_t linear_fdb_top = 0;
    std::uint8_t default_port = 0;
    std::uint8_t default_mcast_primary_port = 0;
    std::uint8_t default_mcast_not_primary_port = 0;
    std::uint8_t life_time_value = 0; // 5 bits
    bool port_state_change = false;
    std::uint8_t optimized_sl2vl_mapping = 0; // 2 bits
    std::uint16_t lids_per_port = 0;
    std::uint16_t partition_enforcement_cap = 0;
    bool inbound_enforcement_cap = false;
    bool outbound_enforcement_cap = false;
    bool filter_raw_inbound_cap = false;
    bool filter_raw_outbound_cap = false;
    bool enhanced_port0 = false;
    std::uint16_t multicast_fdb_top = 0;

    bool operator==(const SwitchInfo&) const = default;
};

std::optional<SwitchInfo> decode_switch_info(std::span<const std::uint8_t> data);
void encode(const SwitchInfo& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
