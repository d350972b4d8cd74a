// Performance management (IBA 16.1, class 0x04): the ClassPortInfo,
// PortCounters and PortCountersExtended attributes and the GMPs that read
// and clear them.
//
// Why pure codecs: the poller (daemon/health) sends these to every linked
// port of the fabric and the fake fabric answers them; both must agree with
// perfquery and ibsim byte for byte, which the unit tests check.
//
// Data structures: a PerfMgt GMP is the 256-byte MAD (the same Smp value
// the transport carries) with the 24-byte common header, 40 reserved bytes
// and the attribute at byte 64 (up to 192 bytes). Fields are given as bit
// offsets into the attribute, as the IBA tables (and libibmad) give them.
#pragma once

#include "mad/smp.h"
#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad::perf {

inline constexpr std::uint8_t mgmt_class_perf = 0x04;
inline constexpr std::size_t data_offset = 64;
inline constexpr std::size_t data_size = mad_size - data_offset; // 192
// The GSI address of every PMA: QP1 with the well-known Q_Key.
inline constexpr std::uint32_t gsi_qpn = 1;
inline constexpr std::uint32_t gsi_qkey = 0x80010000;

namespace attr {
inline constexpr std::uint16_t class_port_info = 0x0001;
inline constexpr std::uint16_t port_counters = 0x0012;
inline constexpr std::uint16_t port_counters_extended = 0x001D;
} // namespace attr

// ClassPortInfo CapabilityMask bits of the PMA (IBA 16.1.2 table 254).
namespace cap {
inline constexpr std::uint16_t all_port_select = 0x0100;
inline constexpr std::uint16_t extended_width = 0x0200;         // PortCountersExtended, all fields
inline constexpr std::uint16_t extended_width_no_ietf = 0x0400; // PortCountersExtended without unicast/multicast
inline constexpr std::uint16_t xmit_wait = 0x1000;              // PortCounters.PortXmitWait
} // namespace cap

struct ClassPortInfo {
    std::uint8_t base_version = 1;
    std::uint8_t class_version = 1;
    std::uint16_t capability_mask = 0;
    std::uint32_t capability_mask2 = 0; // 27 bits
    std::uint8_t resp_time_value = 0;   // 5 bits

    bool extended_counters() const { return (capability_mask & (cap::extended_width | cap::extended_width_no_ietf)) != 0; }
    bool xmit_wait() const { return (capability_mask & cap::xmit_wait) != 0; }
    bool operator==(const ClassPortInfo&) const = default;
};

// CounterSelect bits of PortCounters (IBA 16.1.3.5): a Set clears the
// counters whose bit is set. XmitWait is bit 0 of CounterSelect2.
namespace select {
inline constexpr std::uint16_t symbol_errors = 1u << 0;
inline constexpr std::uint16_t link_error_recovery = 1u << 1;
inline constexpr std::uint16_t link_downed = 1u << 2;
inline constexpr std::uint16_t rcv_errors = 1u << 3;
inline constexpr std::uint16_t rcv_remote_physical_errors = 1u << 4;
inline constexpr std::uint16_t rcv_switch_relay_errors = 1u << 5;
inline constexpr std::uint16_t xmit_discards = 1u << 6;
inline constexpr std::uint16_t xmit_constraint_errors = 1u << 7;
inline constexpr std::uint16_t rcv_constraint_errors = 1u << 8;
inline constexpr std::uint16_t local_link_integrity_errors = 1u << 9;
inline constexpr std::uint16_t excessive_buffer_overrun_errors = 1u << 10;
inline constexpr std::uint16_t vl15_dropped = 1u << 11;
inline constexpr std::uint16_t xmit_data = 1u << 12;
inline constexpr std::uint16_t rcv_data = 1u << 13;
inline constexpr std::uint16_t xmit_pkts = 1u << 14;
inline constexpr std::uint16_t rcv_pkts = 1u << 15;
inline constexpr std::uint8_t select2_xmit_wait = 1u << 0;
} // namespace select

// PortCounters (attribute 0x0012). Widths in the comments: the fields
// saturate at their maximum, they do not wrap.
struct PortCounters {
    std::uint8_t port_select = 0;
    std::uint16_t counter_select = 0;
    std::uint16_t symbol_errors = 0;                  // 16
    std::uint8_t link_error_recovery = 0;             // 8
    std::uint8_t link_downed = 0;                     // 8
    std::uint16_t rcv_errors = 0;                     // 16
    std::uint16_t rcv_remote_physical_errors = 0;     // 16
    std::uint16_t rcv_switch_relay_errors = 0;        // 16
    std::uint16_t xmit_discards = 0;                  // 16
    std::uint8_t xmit_constraint_errors = 0;          // 8
    std::uint8_t rcv_constraint_errors = 0;           // 8
    std::uint8_t counter_select2 = 0;
    std::uint8_t local_link_integrity_errors = 0;     // 4
    std::uint8_t excessive_buffer_overrun_errors = 0; // 4
    std::uint16_t vl15_dropped = 0;                   // 16
    std::uint32_t xmit_data = 0;                      // 32, in 4-byte words
    std::uint32_t rcv_data = 0;                       // 32, in 4-byte words
    std::uint32_t xmit_pkts = 0;                      // 32
    std::uint32_t rcv_pkts = 0;                       // 32
    std::uint32_t xmit_wait = 0;                      // 32 (where ClassPortInfo says so)
    bool operator==(const PortCounters&) const = default;
};
inline constexpr std::size_t port_counters_size = 44;

// PortCountersExtended (attribute 0x001D): 64-bit counters that do wrap
// (in practice never).
struct PortCountersExtended {
    std::uint8_t port_select = 0;
    std::uint16_t counter_select = 0;
    std::uint64_t xmit_data = 0; // 4-byte words
    std::uint64_t rcv_data = 0;
    std::uint64_t xmit_pkts = 0;
    std::uint64_t rcv_pkts = 0;
    std::uint64_t unicast_xmit_pkts = 0;
    std::uint64_t unicast_rcv_pkts = 0;
    std::uint64_t multicast_xmit_pkts = 0;
    std::uint64_t multicast_rcv_pkts = 0;
    bool operator==(const PortCountersExtended&) const = default;
};
inline constexpr std::size_t port_counters_extended_size = 72;

// The attribute part of a PerfMgt MAD (bytes 64..255).
std::span<const std::uint8_t> attribute_data(const Smp& mad);
std::span<std::uint8_t> attribute_data(Smp& mad);

// Decoders take the attribute bytes; nullopt when too short.
std::optional<ClassPortInfo> decode_class_port_info(std::span<const std::uint8_t> data);
std::optional<PortCounters> decode_port_counters(std::span<const std::uint8_t> data);
std::optional<PortCountersExtended> decode_port_counters_extended(std::span<const std::uint8_t> data);

// Encoders write the attribute's bytes (the rest of `out` is left alone);
// `out` must hold the attribute's size (72 bytes for ClassPortInfo).
void encode(const ClassPortInfo& v, std::span<std::uint8_t> out);
void encode(const PortCounters& v, std::span<std::uint8_t> out);
void encode(const PortCountersExtended& v, std::span<std::uint8_t> out);

// PerfMgtGet(ClassPortInfo).
Smp make_class_port_info_get(std::uint64_t tid = 0);
// PerfMgtGet(PortCounters) or (PortCountersExtended) of `port` (PortSelect).
Smp make_port_counters_get(PortNum port, std::uint64_t tid = 0);
Smp make_port_counters_extended_get(PortNum port, std::uint64_t tid = 0);
// PerfMgtSet(PortCounters) clearing the counters selected on `port`.
Smp make_port_counters_clear(PortNum port, std::uint16_t counter_select, std::uint8_t counter_select2 = 0,
                             std::uint64_t tid = 0);

} // namespace ibsm::mad::perf
