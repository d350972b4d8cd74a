// SMInfo attribute (IBA 14.4.1, attribute 0x0020): what an SM tells other
// SMs about itself during SM discovery and mastership negotiation.
#pragma once

#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

enum class SmState : std::uint8_t { not_active = 0, discovering = 1, standby = 2, master = 3 };

struct SmInfo {
    Guid guid;
    std::uint64_t sm_key = 0;
    std::uint32_t act_count = 0;
    std::uint8_t priority = 0; // 4 bits
    SmState sm_state = SmState::not_active;

    bool operator==(const SmInfo&) const = default;
};

// Attribute modifier of a SubnSet(SMInfo): the control packet sent to
// another SM (IBA 14.4.1, table 180).
namespace sm_control {
inline constexpr std::uint32_t handover = 1;
inline constexpr std::uint32_t acknowledge = 2;
inline constexpr std::uint32_t disable = 3;
inline constexpr std::uint32_t standby = 4;
inline constexpr std::uint32_t discover = 5;
} // namespace sm_control

// nullopt when shorter than 21 bytes or SMState is > 3.
std::optional<SmInfo> decode_sm_info(std::span<const std::uint8_t> data);
void encode(const SmInfo& v, std::span<std::uint8_t, 64> out);

} // namespace ibsm::mad
