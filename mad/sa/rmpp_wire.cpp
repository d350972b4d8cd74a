#include "mad/sa/rmpp_wire.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad::sa {

std::size_t rmpp_data_offset(std::uint8_t mgmt_class)
{
    if (mgmt_class == sa::mgmt_class) return header_size;
    if (mgmt_class >= 0x30 && mgmt_class <= 0x4f) return 40;
    return 36;
}

RmppHeader read_rmpp(std::span<const std::uint8_t> mad)
{
    RmppHeader h;
    h.version = mad[24];
    h.type = static_cast<RmppType>(mad[25]);
    h.resp_time = static_cast<std::uint8_t>(mad[26] >> 3);
    h.flags = static_cast<std::uint8_t>(mad[26] & 0x7);
    h.status = mad[27];
    h.data1 = wire::get_as<std::uint32_t>(mad, 28 * 8, 32);
    h.data2 = wire::get_as<std::uint32_t>(mad, 32 * 8, 32);
    return h;
}

void write_rmpp(std::span<std::uint8_t> mad, const RmppHeader& h)
{
    mad[24] = h.version;
    mad[25] = static_cast<std::uint8_t>(h.type);
    mad[26] = static_cast<std::uint8_t>((h.resp_time << 3) | (h.flags & 0x7));
    mad[27] = h.status;
    wire::put(mad, 28 * 8, 32, h.data1);
    wire::put(mad, 32 * 8, 32, h.data2);
}

Mad rmpp_reply(std::span<const std::uint8_t> received, std::size_t data_offset, RmppType type,
               std::uint8_t status, std::uint32_t data1, std::uint32_t data2)
{
    Mad m{};
    std::copy_n(received.begin(), std::min({data_offset, received.size(), m.size()}), m.begin());
    m[3] = static_cast<std::uint8_t>(m[3] ^ 0x80);
    write_rmpp(m, RmppHeader{1, type, 0x1f, rmpp_flag::active, status, data1, data2});
    return m;
}

} // namespace ibsm::mad::sa
