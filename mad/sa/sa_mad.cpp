#include "mad/sa/sa_mad.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad::sa {

std::optional<SaHeader> decode_header(std::span<const std::uint8_t> mad)
{
    if (mad.size() < header_size) return std::nullopt;
    SaHeader h;
    h.base_version = mad[0];
    h.mgmt_class = mad[1];
    h.class_version = mad[2];
    h.method = mad[3];
    h.status = wire::get_as<std::uint16_t>(mad, 4 * 8, 16);
    h.tid = wire::get(mad, 8 * 8, 64);
    h.attr_id = wire::get_as<std::uint16_t>(mad, 16 * 8, 16);
    h.attr_mod = wire::get_as<std::uint32_t>(mad, 20 * 8, 32);
    h.rmpp.version = mad[24];
    h.rmpp.type = static_cast<RmppType>(mad[25]);
    h.rmpp.resp_time = static_cast<std::uint8_t>(mad[26] >> 3);
    h.rmpp.flags = static_cast<std::uint8_t>(mad[26] & 0x7);
    h.rmpp.status = mad[27];
    h.rmpp.data1 = wire::get_as<std::uint32_t>(mad, 28 * 8, 32);
    h.rmpp.data2 = wire::get_as<std::uint32_t>(mad, 32 * 8, 32);
    h.sm_key = wire::get(mad, 36 * 8, 64);
    h.attr_offset = wire::get_as<std::uint16_t>(mad, 44 * 8, 16);
    h.component_mask = wire::get(mad, 48 * 8, 64);
    return h;
}

void encode_header(const SaHeader& h, std::span<std::uint8_t> mad)
{
    mad[0] = h.base_version;
    mad[1] = h.mgmt_class;
    mad[2] = h.class_version;
    mad[3] = h.method;
    wire::put(mad, 4 * 8, 16, h.status);
    wire::put(mad, 6 * 8, 16, 0);
    wire::put(mad, 8 * 8, 64, h.tid);
    wire::put(mad, 16 * 8, 16, h.attr_id);
    wire::put(mad, 18 * 8, 16, 0);
    wire::put(mad, 20 * 8, 32, h.attr_mod);
    mad[24] = h.rmpp.version;
    mad[25] = static_cast<std::uint8_t>(h.rmpp.type);
    mad[26] = static_cast<std::uint8_t>((h.rmpp.resp_time << 3) | (h.rmpp.flags & 0x7));
    mad[27] = h.rmpp.status;
    wire::put(mad, 28 * 8, 32, h.rmpp.data1);
    wire::put(mad, 32 * 8, 32, h.rmpp.data2);
    wire::put(mad, 36 * 8, 64, h.sm_key);
    wire::put(mad, 44 * 8, 16, h.attr_offset);
    wire::put(mad, 46 * 8, 16, 0);
    wire::put(mad, 48 * 8, 64, h.component_mask);
}

Mad make_mad(const SaHeader& h, std::span<const std::uint8_t> data)
{
    Mad m{};
    encode_header(h, m);
    std::copy_n(data.begin(), std::min(data.size(), data_size), m.begin() + header_size);
    return m;
}

std::uint8_t response_method(std::uint8_t request_method)
{
    switch (request_method) {
    case method::get:
    case method::set: return method::get_resp;
    case method::get_table:
    case method::get_trace_table: return method::get_table_resp;
    case method::get_multi: return method::get_multi_resp;
    case method::delete_: return method::delete_resp;
    case method::report: return method::report_resp;
    default: return static_cast<std::uint8_t>(request_method | 0x80);
    }
}

} // namespace ibsm::mad::sa
