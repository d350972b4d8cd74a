// SA record codecs (IBA 15.2.5): the records this SA serves, pure
// encode/decode over the SA data area, and for each its component table —
// the (bit offset, width) of every component in record order, reserved
// fields included, which is what a ComponentMask bit names (IBA 15.2.4:
// bit i selects the i-th component of the record).
//
// Why tables: matching a query is the same for every record (the selected
// components of the candidate equal those of the query), so one function
// (component_mask.h) serves them all and the tables double as the layout
// the tests check against captured OpenSM answers.
//
// Layouts follow the IBA tables (and OpenSM's ib_types.h structures agree):
// sizes are the record without trailing padding; AttributeOffset rounds
// them up to 8 bytes.
#pragma once

#include "mad/multicast_forwarding_table.h"
#include "mad/node_description.h"
#include "mad/node_info.h"
#include "mad/notice.h"
#include "mad/pkey_table.h"
#include "mad/port_info.h"
#include "mad/sl2vl_table.h"
#include "mad/sm_info.h"
#include "mad/switch_info.h"
#include "mad/types.h"
#include "mad/vl_arbitration.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ibsm::mad::sa {

struct Component {
    std::uint16_t offset; // bits from the start of the record
    std::uint16_t bits;
};
using ComponentTable = std::span<const Component>;

// ---- NodeRecord (0x0011): LID, reserved, NodeInfo (40 bytes), NodeDescription.
struct NodeRecord {
    Lid lid;
    NodeInfo node_info;
    NodeDescription description;
    bool operator==(const NodeRecord&) const = default;
};
inline constexpr std::size_t node_record_size = 108;
std::optional<NodeRecord> decode_node_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const NodeRecord& r);
ComponentTable node_record_components();

// ---- PortInfoRecord (0x0012): EndportLID, PortNum, Options, PortInfo (64).
struct PortInfoRecord {
    Lid lid;
    std::uint8_t port_num = 0;
    std::uint8_t options = 0;
    PortInfo port_info;
    bool operator==(const PortInfoRecord&) const = default;
};
inline constexpr std::size_t port_info_record_size = 68;
std::optional<PortInfoRecord> decode_port_info_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const PortInfoRecord& r);
ComponentTable port_info_record_components();

// ---- SwitchInfoRecord (0x0014): LID, reserved, SwitchInfo (20).
struct SwitchInfoRecord {
    Lid lid;
    SwitchInfo switch_info;
    bool operator==(const SwitchInfoRecord&) const = default;
};
inline constexpr std::size_t switch_info_record_size = 24;
std::optional<SwitchInfoRecord> decode_switch_info_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const SwitchInfoRecord& r);
ComponentTable switch_info_record_components();

// ---- LinearForwardingTableRecord (0x0015): LID, BlockNum, reserved, 64 ports.
struct LftRecord {
    Lid lid;
    std::uint16_t block = 0;
    std::array<std::uint8_t, 64> ports{};
    bool operator==(const LftRecord&) const = default;
};
inline constexpr std::size_t lft_record_size = 72;
std::optional<LftRecord> decode_lft_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const LftRecord& r);
ComponentTable lft_record_components();

// ---- SLtoVLMappingTableRecord (0x0013, IBA 15.2.5.4): LID, InputPortNum,
// OutputPortNum (both reserved for a CA), reserved, the 8-byte table.
struct Sl2VlRecord {
    Lid lid;
    std::uint8_t in_port = 0;
    std::uint8_t out_port = 0;
    Sl2VlTable table;
    bool operator==(const Sl2VlRecord&) const = default;
};
inline constexpr std::size_t sl2vl_record_size = 16;
std::optional<Sl2VlRecord> decode_sl2vl_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const Sl2VlRecord& r);
ComponentTable sl2vl_record_components();

// ---- MulticastForwardingTableRecord (0x0017, IBA 15.2.5.8): LID, Position
// (4 bits), reserved (3), BlockNum (9), reserved (32), 32 port masks.
struct MftRecord {
    Lid lid;
    std::uint8_t position = 0;
    std::uint16_t block = 0;
    MulticastForwardingTable table;
    bool operator==(const MftRecord&) const = default;
};
inline constexpr std::size_t mft_record_size = 72;
std::optional<MftRecord> decode_mft_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const MftRecord& r);
ComponentTable mft_record_components();

// ---- P_KeyTableRecord (0x0033, IBA 15.2.5.11): LID, BlockNum (16), PortNum
// (switches; reserved for a CA), reserved (24), 32 P_Keys.
struct PKeyTableRecord {
    Lid lid;
    std::uint16_t block = 0;
    std::uint8_t port = 0;
    PKeyTable table;
    bool operator==(const PKeyTableRecord&) const = default;
};
inline constexpr std::size_t pkey_table_record_size = 72;
std::optional<PKeyTableRecord> decode_pkey_table_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const PKeyTableRecord& r);
ComponentTable pkey_table_record_components();

// ---- VLArbitrationTableRecord (0x0036, IBA 15.2.5.9): LID, OutputPortNum,
// BlockNum (1..4 as the attribute modifier: low 0-31, low 32-63, high 0-31,
// high 32-63), reserved (32), 32 entries.
struct VlArbRecord {
    Lid lid;
    std::uint8_t port = 0;
    std::uint8_t block = 0;
    VlArbitrationTable table;
    bool operator==(const VlArbRecord&) const = default;
};
inline constexpr std::size_t vlarb_record_size = 72;
std::optional<VlArbRecord> decode_vlarb_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const VlArbRecord& r);
ComponentTable vlarb_record_components();

// ---- SMInfoRecord (0x0018): LID, reserved, SMInfo (21).
struct SmInfoRecord {
    Lid lid;
    SmInfo sm_info;
    bool operator==(const SmInfoRecord&) const = default;
};
inline constexpr std::size_t sm_info_record_size = 25;
std::optional<SmInfoRecord> decode_sm_info_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const SmInfoRecord& r);
ComponentTable sm_info_record_components();

// ---- LinkRecord (0x0020): FromLID, FromPort, ToPort, ToLID, reserved.
struct LinkRecord {
    Lid from_lid;
    std::uint8_t from_port = 0;
    std::uint8_t to_port = 0;
    Lid to_lid;
    bool operator==(const LinkRecord&) const = default;
};
inline constexpr std::size_t link_record_size = 8;
std::optional<LinkRecord> decode_link_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const LinkRecord& r);
ComponentTable link_record_components();

// ---- GUIDInfoRecord (0x0030): LID, BlockNum, reserved, 8 GUIDs.
struct GuidInfoRecord {
    Lid lid;
    std::uint8_t block = 0;
    std::array<Guid, 8> guids{};
    bool operator==(const GuidInfoRecord&) const = default;
};
inline constexpr std::size_t guid_info_record_size = 72;
std::optional<GuidInfoRecord> decode_guid_info_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const GuidInfoRecord& r);
ComponentTable guid_info_record_components();

// ---- ServiceRecord (0x0031).
struct ServiceRecord {
    std::uint64_t service_id = 0;
    Gid service_gid{};
    std::uint16_t service_pkey = 0;
    std::uint32_t service_lease = 0; // seconds; 0xffffffff: indefinite
    std::array<std::uint8_t, 16> service_key{};
    std::array<std::uint8_t, 64> service_name{};
    std::array<std::uint8_t, 16> data8{};
    std::array<std::uint16_t, 8> data16{};
    std::array<std::uint32_t, 4> data32{};
    std::array<std::uint64_t, 2> data64{};
    bool operator==(const ServiceRecord&) const = default;
};
inline constexpr std::size_t service_record_size = 176;
std::optional<ServiceRecord> decode_service_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const ServiceRecord& r);
ComponentTable service_record_components();

// ---- PathRecord (0x0035), 64 bytes.
struct PathRecord {
    std::uint64_t service_id = 0;
    Gid dgid{};
    Gid sgid{};
    Lid dlid;
    Lid slid;
    bool raw_traffic = false;
    std::uint32_t flow_label = 0; // 20 bits
    std::uint8_t hop_limit = 0;
    std::uint8_t tclass = 0;
    bool reversible = false;
    std::uint8_t numb_path = 0; // 7 bits
    std::uint16_t pkey = 0;
    std::uint16_t qos_class = 0; // 12 bits
    std::uint8_t sl = 0;         // 4 bits
    std::uint8_t mtu_selector = 0;
    std::uint8_t mtu = 0;
    std::uint8_t rate_selector = 0;
    std::uint8_t rate = 0;
    std::uint8_t packet_life_selector = 0;
    std::uint8_t packet_life = 0;
    std::uint8_t preference = 0;
    bool operator==(const PathRecord&) const = default;
};
inline constexpr std::size_t path_record_size = 64;
std::optional<PathRecord> decode_path_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const PathRecord& r);
ComponentTable path_record_components();
// Component bits of PathRecord the PathRecord handler reads by name.
namespace pr_mask {
inline constexpr std::uint64_t service_id = 0x3; // 8 MSBs and 56 LSBs, either names it
inline constexpr std::uint64_t dgid = 1ull << 2;
inline constexpr std::uint64_t sgid = 1ull << 3;
inline constexpr std::uint64_t dlid = 1ull << 4;
inline constexpr std::uint64_t slid = 1ull << 5;
inline constexpr std::uint64_t reversible = 1ull << 11;
inline constexpr std::uint64_t numb_path = 1ull << 12;
inline constexpr std::uint64_t pkey = 1ull << 13;
inline constexpr std::uint64_t qos_class = 1ull << 14;
inline constexpr std::uint64_t sl = 1ull << 15;
inline constexpr std::uint64_t mtu_selector = 1ull << 16;
inline constexpr std::uint64_t mtu = 1ull << 17;
inline constexpr std::uint64_t rate_selector = 1ull << 18;
inline constexpr std::uint64_t rate = 1ull << 19;
inline constexpr std::uint64_t packet_life_selector = 1ull << 20;
inline constexpr std::uint64_t packet_life = 1ull << 21;
} // namespace pr_mask

// ---- MultiPathRecord (0x003A): 24 bytes of path attributes, then SGIDCount
// source and DGIDCount destination GIDs, the first at byte 24 (IBA
// 15.2.5.20; OpenSM's ib_multipath_rec_t, which kernel-RMPP clients send).
struct MultiPathRecord {
    bool raw_traffic = false;
    std::uint32_t flow_label = 0;
    std::uint8_t hop_limit = 0;
    std::uint8_t tclass = 0;
    bool reversible = false;
    std::uint8_t numb_path = 0;
    std::uint16_t pkey = 0;
    std::uint16_t qos_class = 0;
    std::uint8_t sl = 0;
    std::uint8_t mtu_selector = 0;
    std::uint8_t mtu = 0;
    std::uint8_t rate_selector = 0;
    std::uint8_t rate = 0;
    std::uint8_t packet_life_selector = 0;
    std::uint8_t packet_life = 0;
    std::uint64_t service_id = 0; // 8 MSBs + 56 LSBs
    std::uint8_t independence = 0; // 2 bits
    std::vector<Gid> sgids;
    std::vector<Gid> dgids;
    bool operator==(const MultiPathRecord&) const = default;
};
inline constexpr std::size_t multipath_record_fixed_size = 24;
// nullopt when shorter than the fixed part or the GIDs it counts.
std::optional<MultiPathRecord> decode_multipath_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const MultiPathRecord& r);
ComponentTable multipath_record_components();
namespace mpr_mask {
inline constexpr std::uint64_t numb_path = 1ull << 6;
inline constexpr std::uint64_t qos_class = 1ull << 8;
inline constexpr std::uint64_t sl = 1ull << 9;
inline constexpr std::uint64_t service_id = (1ull << 16) | (1ull << 21); // 8 MSBs, 56 LSBs
inline constexpr std::uint64_t sgid_count = 1ull << 19;
inline constexpr std::uint64_t dgid_count = 1ull << 20;
} // namespace mpr_mask

// ---- InformInfo (0x0003, 36 bytes) and InformInfoRecord (0x00F3).
struct InformInfo {
    Gid gid{};
    Lid lid_range_begin;
    Lid lid_range_end;
    bool is_generic = true;
    bool subscribe = false;
    std::uint16_t type = 0;
    std::uint16_t trap_number_or_device_id = 0;
    std::uint32_t qpn = 0; // 24 bits
    std::uint8_t resp_time_value = 0; // 5 bits
    std::uint32_t producer_type_or_vendor_id = 0; // 24 bits
    bool operator==(const InformInfo&) const = default;
};
inline constexpr std::size_t inform_info_size = 36;
std::optional<InformInfo> decode_inform_info(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const InformInfo& r);
ComponentTable inform_info_components();

struct InformInfoRecord {
    Gid subscriber_gid{};
    std::uint16_t subscriber_enum = 0;
    InformInfo inform_info;
    bool operator==(const InformInfoRecord&) const = default;
};
inline constexpr std::size_t inform_info_record_size = 60;
std::optional<InformInfoRecord> decode_inform_info_record(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode(const InformInfoRecord& r);
ComponentTable inform_info_record_components();

// GID helpers: the default GID prefix (0xfe80::) with a port GUID, and back.
inline constexpr std::uint64_t default_gid_prefix = 0xfe80000000000000ull;
Gid make_gid(std::uint64_t prefix, Guid guid);
std::uint64_t gid_prefix(const Gid& g);
Guid gid_guid(const Gid& g);

} // namespace ibsm::mad::sa
