// Notice attribute (IBA 13.4.8.2, attribute 0x0002): the payload of a trap
// (SubnTrap) and of an SA report. The generic header is decoded as is; the
// 54-byte DataDetails are decoded into a typed struct for the traps this SM
// acts on (IBA 14.2.5.1 "SM traps": 64/65 GID in/out of service, 66/67
// multicast group created/deleted, 128 link state change, 129/130/131 port
// errors, 144 local changes, 145 system image GUID change). Any other trap,
// and any vendor-specific notice, keeps the raw details: an unknown trap is
// information, not an error.
//
// A Notice is 80 bytes, but an SMP's data field holds only the first 64, so
// traps arrive without IssuerGID; it is present in SA reports.
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>

namespace ibsm::mad {

inline constexpr std::size_t notice_smp_size = 64;
inline constexpr std::size_t notice_size = 80;
inline constexpr std::size_t notice_details_size = 54;

namespace trap {
inline constexpr std::uint16_t gid_in_service = 64;
inline constexpr std::uint16_t gid_out_of_service = 65;
inline constexpr std::uint16_t mc_group_created = 66;
inline constexpr std::uint16_t mc_group_deleted = 67;
inline constexpr std::uint16_t link_state_change = 128;
inline constexpr std::uint16_t local_link_integrity = 129;
inline constexpr std::uint16_t excessive_buffer_overrun = 130;
inline constexpr std::uint16_t flow_control_watchdog = 131;
inline constexpr std::uint16_t local_changes = 144;
inline constexpr std::uint16_t system_image_guid_change = 145;
inline constexpr std::uint16_t bad_mkey = 256;
} // namespace trap

// Notice Type (7 bits).
namespace notice_type {
inline constexpr std::uint8_t fatal = 0;
inline constexpr std::uint8_t urgent = 1;
inline constexpr std::uint8_t security = 2;
inline constexpr std::uint8_t subnet_management = 3;
inline constexpr std::uint8_t informational = 4;
inline constexpr std::uint8_t empty = 0x7F;
} // namespace notice_type

// Trap 144 change flags: which local attribute changed.
namespace trap144 {
inline constexpr std::uint16_t node_description_changed = 0x0001;
inline constexpr std::uint16_t link_width_enabled_changed = 0x0002;
inline constexpr std::uint16_t link_speed_enabled_changed = 0x0004;
inline constexpr std::uint16_t sm_priority_changed = 0x0008;
inline constexpr std::uint16_t hierarchy_info_changed = 0x0010;
inline constexpr std::uint16_t capability_mask2_changed = 0x0020;
} // namespace trap144

using Gid = std::array<std::uint8_t, 16>;

// Details of a trap this codec does not type, or of a vendor notice.
struct RawDetails {
    std::array<std::uint8_t, notice_details_size> bytes{};
    bool operator==(const RawDetails&) const = default;
};

// Traps 64 and 65: the port GID that came into / went out of service;
// 66 and 67: the MGID of the multicast group created / deleted.
struct GidServiceDetails {
    Gid gid{};
    bool operator==(const GidServiceDetails&) const = default;
};

// Trap 128: a port of the switch at `lid` changed link state.
struct LinkStateChangeDetails {
    Lid lid;
    bool operator==(const LinkStateChangeDetails&) const = default;
};

// Traps 129, 130, 131: local link integrity threshold, excessive buffer
// overrun threshold, flow control update watchdog expired, at lid/port.
struct PortErrorDetails {
    Lid lid;
    PortNum port;
    bool operator==(const PortErrorDetails&) const = default;
};

// Trap 144: CapabilityMask (or another local attribute, see change_flags)
// of the port at `lid` changed.
struct LocalChangesDetails {
    Lid lid;
    bool other_local_changes = false;
    std::uint32_t capability_mask = 0;
    std::uint16_t change_flags = 0; // trap144::* bits
    std::uint16_t capability_mask2 = 0;
    bool operator==(const LocalChangesDetails&) const = default;
};

// Trap 145: the SystemImageGUID of the node at `lid` changed.
struct SystemImageGuidDetails {
    Lid lid;
    Guid system_image_guid;
    bool operator==(const SystemImageGuidDetails&) const = default;
};

// Trap 256: an SMP failed the M_Key check of the port at IssuerLID (IBA
// 14.2.4.3). `lid`: the requester's LID when the SMP was LID-routed (its
// SLID), `dr_slid` the DrSLID; the method, attribute and M_Key it carried;
// for a directed-route SMP, its hop count and the first 30 ports of its
// return path, which lead back to whoever sent it.
struct BadMkeyDetails {
    Lid lid;
    Lid dr_slid;
    std::uint8_t method = 0;
    std::uint16_t attr_id = 0;
    std::uint32_t attr_mod = 0;
    std::uint64_t mkey = 0;
    bool directed_route = false; // DRNotice
    bool truncated = false;      // the return path is longer than 30 hops
    std::uint8_t hop_count = 0;  // 6 bits
    std::array<std::uint8_t, 30> return_path{};
    bool operator==(const BadMkeyDetails&) const = default;
};

using NoticeDetails = std::variant<RawDetails, GidServiceDetails, LinkStateChangeDetails, PortErrorDetails,
                                   LocalChangesDetails, SystemImageGuidDetails, BadMkeyDetails>;

struct Notice {
    bool is_generic = true;
    std::uint8_t type = notice_type::informational; // 7 bits
    std::uint32_t producer_type_or_vendor_id = 0;  // 24 bits: node type when generic
    std::uint16_t trap_number_or_device_id = 0;
    Lid issuer_lid;
    bool notice_toggle = false;
    std::uint16_t notice_count = 0; // 15 bits
    // Typed when is_generic and the trap number is one listed above. Encode
    // writes whichever alternative is held, whatever the trap number says.
    NoticeDetails details;
    Gid issuer_gid{}; // zero when decoded from a 64-byte SMP data field

    bool operator==(const Notice&) const = default;
};

// Needs at least 64 bytes; reads IssuerGID when 80 are given.
std::optional<Notice> decode_notice(std::span<const std::uint8_t> data);
// The SMP form: the first 64 bytes, without IssuerGID.
void encode(const Notice& v, std::span<std::uint8_t, 64> out);
// The full 80-byte attribute as SA reports carry it.
void encode_with_issuer_gid(const Notice& v, std::span<std::uint8_t, 80> out);

} // namespace ibsm::mad
