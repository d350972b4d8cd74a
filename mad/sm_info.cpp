// SMInfo codec: GUID 0:64, SM_Key 64:64, ActCount 128:32, Priority 160:4,
// SMState 164:4.
#include "mad/sm_info.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t sm_info_size = 21;
constexpr std::uint8_t max_sm_state = 3;
} // namespace

std::optional<SmInfo> decode_sm_info(std::span<const std::uint8_t> d)
{
    if (d.size() < sm_info_size) return std::nullopt;
    const auto state = wire::get_as<std::uint8_t>(d, 164, 4);
    if (state > max_sm_state) return std::nullopt;
    SmInfo v;
    v.guid = Guid(wire::get(d, 0, 64));
    v.sm_key = wire::get(d, 64, 64);
    v.act_count = wire::get_as<std::uint32_t>(d, 128, 32);
    v.priority = wire::get_as<std::uint8_t>(d, 160, 4);
    v.sm_state = static_cast<SmState>(state);
    return v;
}

void encode(const SmInfo& v, std::span<std::uint8_t, 64> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    wire::put(out, 0, 64, v.guid.value());
    wire::put(out, 64, 64, v.sm_key);
    wire::put(out, 128, 32, v.act_count);
    wire::put(out, 160, 4, v.priority);
    wire::put(out, 164, 4, static_cast<std::uint8_t>(v.sm_state));
}

} // namespace ibsm::mad
