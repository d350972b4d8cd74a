// Subnet Administration MADs (IBA 15.2.1): the management class 0x03 header,
// the RMPP header every SA MAD carries (IBA 13.6.2.1) and the SA fields
// (SM_Key, AttributeOffset, ComponentMask) in front of the 200 data bytes.
//
// Why one header codec: the SA agent, its record handlers, the RMPP sender
// and the test clients all read and write the same 56 bytes; each record
// codec (records.h) then sees only the data area.
//
// Layout of one 256-byte SA MAD (offsets in bytes):
//   0..23   common MAD header (base version 1, class 0x03, class version 2,
//           method, status, TID, attribute id, attribute modifier)
//   24..35  RMPP header: version, type, RRespTime(5)|flags(3), status,
//           SegmentNumber / Data1, PayloadLength / NewWindowLast / Data2
//   36..43  SM_Key
//   44..45  AttributeOffset (record spacing in 8-byte words; 0 in requests)
//   48..55  ComponentMask
//   56..255 SA data (one record in requests, records in responses)
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace ibsm::mad::sa {

inline constexpr std::size_t mad_size = 256;
inline constexpr std::size_t header_size = 56;
inline constexpr std::size_t data_size = mad_size - header_size; // 200
inline constexpr std::size_t rmpp_header_offset = 24;
// Bytes each RMPP segment carries after the RMPP header (SA fields + data):
// the unit PayloadLength counts in (IBA 13.6.2.3, 15.2.1).
inline constexpr std::size_t rmpp_segment_payload = mad_size - 36; // 220

inline constexpr std::uint8_t mgmt_class = 0x03;
inline constexpr std::uint8_t class_version = 2;
inline constexpr std::uint32_t gsi_qkey = 0x80010000;

namespace method {
inline constexpr std::uint8_t get = 0x01;
inline constexpr std::uint8_t set = 0x02;
inline constexpr std::uint8_t get_resp = 0x81;
inline constexpr std::uint8_t report = 0x06;
inline constexpr std::uint8_t report_resp = 0x86;
inline constexpr std::uint8_t get_table = 0x12;
inline constexpr std::uint8_t get_table_resp = 0x92;
inline constexpr std::uint8_t get_trace_table = 0x13;
inline constexpr std::uint8_t get_multi = 0x14;
inline constexpr std::uint8_t get_multi_resp = 0x94;
inline constexpr std::uint8_t delete_ = 0x15;
inline constexpr std::uint8_t delete_resp = 0x95;
} // namespace method

// Attribute ids of SA records (IBA 15.2.5, table 195).
namespace attr {
inline constexpr std::uint16_t class_port_info = 0x0001;
inline constexpr std::uint16_t notice = 0x0002;
inline constexpr std::uint16_t inform_info = 0x0003;
inline constexpr std::uint16_t node_record = 0x0011;
inline constexpr std::uint16_t port_info_record = 0x0012;
inline constexpr std::uint16_t slvl_record = 0x0013;
inline constexpr std::uint16_t switch_info_record = 0x0014;
inline constexpr std::uint16_t lft_record = 0x0015;
inline constexpr std::uint16_t mft_record = 0x0017;
inline constexpr std::uint16_t sm_info_record = 0x0018;
inline constexpr std::uint16_t link_record = 0x0020;
inline constexpr std::uint16_t guid_info_record = 0x0030;
inline constexpr std::uint16_t service_record = 0x0031;
inline constexpr std::uint16_t pkey_table_record = 0x0033;
inline constexpr std::uint16_t path_record = 0x0035;
inline constexpr std::uint16_t vlarb_record = 0x0036;
inline constexpr std::uint16_t mcmember_record = 0x0038;
inline constexpr std::uint16_t multipath_record = 0x003A;
inline constexpr std::uint16_t inform_info_record = 0x00F3;
} // namespace attr

// Status of an SA response: the class-independent MAD status in bits 0..7
// (IBA 13.4.7, table 27-2) and the SA's own code in bits 8..15 (IBA 15.2.1.1,
// table 193). One 16-bit value, as it sits in the header.
namespace status {
inline constexpr std::uint16_t ok = 0x0000;
inline constexpr std::uint16_t bad_version = 0x0004;
inline constexpr std::uint16_t method_unsupported = 0x0008;
inline constexpr std::uint16_t method_attr_unsupported = 0x000C;
inline constexpr std::uint16_t invalid_field = 0x001C;
inline constexpr std::uint16_t no_resources = 0x0100;
inline constexpr std::uint16_t req_invalid = 0x0200;
inline constexpr std::uint16_t no_records = 0x0300;
inline constexpr std::uint16_t too_many_records = 0x0400;
inline constexpr std::uint16_t invalid_gid = 0x0500;
inline constexpr std::uint16_t insufficient_components = 0x0600;
inline constexpr std::uint16_t denied = 0x0700;
} // namespace status

// RMPP (IBA 13.6.2.1). Type: what the packet is; flags in the low 3 bits of
// byte 26, RRespTime in its high 5.
enum class RmppType : std::uint8_t { none = 0, data = 1, ack = 2, stop = 3, abort = 4 };
namespace rmpp_flag {
inline constexpr std::uint8_t active = 0x1;
inline constexpr std::uint8_t first = 0x2;
inline constexpr std::uint8_t last = 0x4;
} // namespace rmpp_flag
// RMPP status of STOP/ABORT packets (IBA 13.6.2.1, table 171).
namespace rmpp_status {
inline constexpr std::uint8_t ok = 0;
inline constexpr std::uint8_t resources_exhausted = 1; // STOP
inline constexpr std::uint8_t total_time_too_long = 118;
inline constexpr std::uint8_t inconsistent_last = 119;
inline constexpr std::uint8_t inconsistent_first = 120;
inline constexpr std::uint8_t bad_rmpp_type = 121;
inline constexpr std::uint8_t unacceptable_newwin = 122; // NewWindowLast too small
inline constexpr std::uint8_t seg_num_too_big = 123;
inline constexpr std::uint8_t illegal_status = 124;
inline constexpr std::uint8_t unsupported_version = 125;
inline constexpr std::uint8_t too_many_retries = 126;
inline constexpr std::uint8_t unspecified = 127;
} // namespace rmpp_status

struct RmppHeader {
    std::uint8_t version = 0; // 1 when RMPP is used
    RmppType type = RmppType::none;
    std::uint8_t resp_time = 0x1f; // 0x1f: no time given
    std::uint8_t flags = 0;
    std::uint8_t status = 0;
    std::uint32_t data1 = 0; // SegmentNumber for DATA and ACK
    std::uint32_t data2 = 0; // PayloadLength (DATA) / NewWindowLast (ACK)
    bool active() const { return (flags & rmpp_flag::active) != 0; }
    bool operator==(const RmppHeader&) const = default;
};

// The decoded header of one SA MAD (host order).
struct SaHeader {
    std::uint8_t base_version = 1;
    std::uint8_t mgmt_class = sa::mgmt_class;
    std::uint8_t class_version = sa::class_version;
    std::uint8_t method = 0;
    std::uint16_t status = 0;
    std::uint64_t tid = 0;
    std::uint16_t attr_id = 0;
    std::uint32_t attr_mod = 0;
    RmppHeader rmpp;
    std::uint64_t sm_key = 0;
    std::uint16_t attr_offset = 0; // 8-byte words
    std::uint64_t component_mask = 0;
    bool operator==(const SaHeader&) const = default;
};

// nullopt when shorter than the 56-byte header.
std::optional<SaHeader> decode_header(std::span<const std::uint8_t> mad);
void encode_header(const SaHeader& h, std::span<std::uint8_t> mad);

using Mad = std::array<std::uint8_t, mad_size>;

// A MAD built from a header and at most 200 data bytes.
Mad make_mad(const SaHeader& h, std::span<const std::uint8_t> data = {});
inline std::span<const std::uint8_t> data_of(std::span<const std::uint8_t, mad_size> mad)
{
    return mad.subspan<header_size>();
}

// AttributeOffset for records of `record_bytes`: the size rounded up to
// 8-byte words (IBA 15.2.1: records in a response are that far apart).
constexpr std::uint16_t attr_offset_for(std::size_t record_bytes)
{
    return static_cast<std::uint16_t>((record_bytes + 7) / 8);
}

// The response method for a request method (GetTable -> GetTableResp,
// Set/Get -> GetResp, Delete -> DeleteResp, ...).
std::uint8_t response_method(std::uint8_t request_method);

} // namespace ibsm::mad::sa
