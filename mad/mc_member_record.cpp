// MCMemberRecord codec; offsets in bits, as in the spec's table.
#include "mad/mc_member_record.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {
constexpr std::size_t defined_bytes = 52;

Gid128 get_gid(std::span<const std::uint8_t> d, std::size_t bit)
{
    return Gid128{wire::get(d, bit, 64), wire::get(d, bit + 64, 64)};
}

void put_gid(std::span<std::uint8_t> d, std::size_t bit, const Gid128& g)
{
    wire::put(d, bit, 64, g.prefix);
    wire::put(d, bit + 64, 64, g.interface_id);
}
} // namespace

std::optional<McMemberRecord> decode_mc_member_record(std::span<const std::uint8_t> d)
{
    if (d.size() < defined_bytes) return std::nullopt;
    McMemberRecord v;
    v.mgid = get_gid(d, 0);
    v.port_gid = get_gid(d, 128);
    v.q_key = wire::get_as<std::uint32_t>(d, 256, 32);
    v.mlid = Lid(wire::get_as<std::uint16_t>(d, 288, 16));
    v.mtu_selector = wire::get_as<std::uint8_t>(d, 304, 2);
    v.mtu = wire::get_as<std::uint8_t>(d, 306, 6);
    v.traffic_class = wire::get_as<std::uint8_t>(d, 312, 8);
    v.p_key = wire::get_as<std::uint16_t>(d, 320, 16);
    v.rate_selector = wire::get_as<std::uint8_t>(d, 336, 2);
    v.rate = wire::get_as<std::uint8_t>(d, 338, 6);
    v.packet_life_time_selector = wire::get_as<std::uint8_t>(d, 344, 2);
    v.packet_life_time = wire::get_as<std::uint8_t>(d, 346, 6);
    v.sl = wire::get_as<std::uint8_t>(d, 352, 4);
    v.flow_label = wire::get_as<std::uint32_t>(d, 356, 20);
    v.hop_limit = wire::get_as<std::uint8_t>(d, 376, 8);
    v.scope = wire::get_as<std::uint8_t>(d, 384, 4);
    v.join_state = wire::get_as<std::uint8_t>(d, 388, 4);
    v.proxy_join = wire::get(d, 392, 1) != 0;
    return v;
}

void encode(const McMemberRecord& v, std::span<std::uint8_t, mc_member_record_size> out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    put_gid(out, 0, v.mgid);
    put_gid(out, 128, v.port_gid);
    wire::put(out, 256, 32, v.q_key);
    wire::put(out, 288, 16, v.mlid.value());
    wire::put(out, 304, 2, v.mtu_selector);
    wire::put(out, 306, 6, v.mtu);
    wire::put(out, 312, 8, v.traffic_class);
    wire::put(out, 320, 16, v.p_key);
    wire::put(out, 336, 2, v.rate_selector);
    wire::put(out, 338, 6, v.rate);
    wire::put(out, 344, 2, v.packet_life_time_selector);
    wire::put(out, 346, 6, v.packet_life_time);
    wire::put(out, 352, 4, v.sl);
    wire::put(out, 356, 20, v.flow_label);
    wire::put(out, 376, 8, v.hop_limit);
    wire::put(out, 384, 4, v.scope);
    wire::put(out, 388, 4, v.join_state);
    wire::put(out, 392, 1, v.proxy_join ? 1 : 0);
}

} // namespace ibsm::mad
