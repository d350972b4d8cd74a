// MCMemberRecord (IBA 15.2.5.17, SA attribute 0x0038): one port's
// membership of a multicast group, and the group's parameters. An end port
// joins with SubnAdmSet, leaves with SubnAdmDelete and queries with
// SubnAdmGet/GetTable; which fields count is said by the SA header's
// component mask (bit numbers below, table 197 order).
//
// Layout (bytes): MGID 0..15, PortGID 16..31, Q_Key 32..35, MLID 36..37,
// MTUSelector:2 MTU:6 38, TClass 39, P_Key 40..41, RateSelector:2 Rate:6 42,
// PacketLifeTimeSelector:2 PacketLifeTime:6 43, SL:4 FlowLabel:20
// HopLimit:8 44..47, Scope:4 JoinState:4 48, ProxyJoin:1 + 23 reserved bits
// 49..51. 52 bytes; SA records are padded to a multiple of 8, so the
// attribute occupies 56 bytes of the SA data (AttributeOffset 7).
#pragma once

#include "mad/gid.h"
#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad {

inline constexpr std::uint16_t attr_mc_member_record = 0x0038;
inline constexpr std::size_t mc_member_record_size = 56; // padded (52 defined)

// Component mask bits of MCMemberRecord.
namespace mcr_mask {
inline constexpr std::uint64_t mgid = 1ull << 0;
inline constexpr std::uint64_t port_gid = 1ull << 1;
inline constexpr std::uint64_t q_key = 1ull << 2;
inline constexpr std::uint64_t mlid = 1ull << 3;
inline constexpr std::uint64_t mtu_selector = 1ull << 4;
inline constexpr std::uint64_t mtu = 1ull << 5;
inline constexpr std::uint64_t traffic_class = 1ull << 6;
inline constexpr std::uint64_t p_key = 1ull << 7;
inline constexpr std::uint64_t rate_selector = 1ull << 8;
inline constexpr std::uint64_t rate = 1ull << 9;
inline constexpr std::uint64_t packet_life_time_selector = 1ull << 10;
inline constexpr std::uint64_t packet_life_time = 1ull << 11;
inline constexpr std::uint64_t sl = 1ull << 12;
inline constexpr std::uint64_t flow_label = 1ull << 13;
inline constexpr std::uint64_t hop_limit = 1ull << 14;
inline constexpr std::uint64_t scope = 1ull << 15;
inline constexpr std::uint64_t join_state = 1ull << 16;
inline constexpr std::uint64_t proxy_join = 1ull << 17;
} // namespace mcr_mask

// JoinState bits (IBA 15.2.5.17 table 198; bit 3 added by the 1.3 errata).
namespace join_state {
inline constexpr std::uint8_t full_member = 1 << 0;
inline constexpr std::uint8_t non_member = 1 << 1;
inline constexpr std::uint8_t send_only_non_member = 1 << 2;
inline constexpr std::uint8_t send_only_full_member = 1 << 3;
} // namespace join_state

// Selector values of MTUSelector, RateSelector, PacketLifeTimeSelector.
enum class Selector : std::uint8_t { greater_than = 0, less_than = 1, exactly = 2, largest = 3 };

struct McMemberRecord {
    Gid128 mgid;
    Gid128 port_gid;
    std::uint32_t q_key = 0;
    Lid mlid;
    std::uint8_t mtu_selector = 0; // 2
    std::uint8_t mtu = 0;          // 6, IBA MTU code (1=256 .. 5=4096)
    std::uint8_t traffic_class = 0;
    std::uint16_t p_key = 0;
    std::uint8_t rate_selector = 0; // 2
    std::uint8_t rate = 0;          // 6, IBA rate code
    std::uint8_t packet_life_time_selector = 0; // 2
    std::uint8_t packet_life_time = 0;          // 6
    std::uint8_t sl = 0;          // 4
    std::uint32_t flow_label = 0; // 20
    std::uint8_t hop_limit = 0;
    std::uint8_t scope = 0;      // 4
    std::uint8_t join_state = 0; // 4
    bool proxy_join = false;

    bool operator==(const McMemberRecord&) const = default;
};

// `data` starts at the record (the SA data field). nullopt when shorter
// than the 52 defined bytes.
std::optional<McMemberRecord> decode_mc_member_record(std::span<const std::uint8_t> data);
// Writes the 56 padded bytes (reserved bits zero).
void encode(const McMemberRecord& v, std::span<std::uint8_t, mc_member_record_size> out);

} // namespace ibsm::mad
