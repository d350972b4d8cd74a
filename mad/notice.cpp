// Notice codec. Header bit offsets (IBA 13.4.8.2): IsGeneric 0:1, Type 1:7,
// ProducerType/VendorID 8:24, TrapNumber/DeviceID 32:16, IssuerLID 48:16,
// NoticeToggle 64:1, NoticeCount 65:15, DataDetails bytes 10..63, IssuerGID
// bytes 64..79. Detail layouts (IBA 14.2.5.1) are given as byte offsets
// inside DataDetails next to each trap below.
#include "mad/notice.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {

constexpr std::size_t details_offset = 10;
constexpr std::size_t issuer_gid_offset = 64;

using Bytes = std::span<const std::uint8_t>;
using MutBytes = std::span<std::uint8_t>;

std::uint16_t be16(Bytes d, std::size_t at) { return wire::get_as<std::uint16_t>(d, at * 8, 16); }
void put_be(MutBytes d, std::size_t at, unsigned bytes, std::uint64_t v) { wire::put(d, at * 8, bytes * 8, v); }

RawDetails raw_details(Bytes d)
{
    RawDetails r;
    std::copy_n(d.begin(), r.bytes.size(), r.bytes.begin());
    return r;
}

NoticeDetails decode_details(std::uint16_t trap_number, Bytes d)
{
    switch (trap_number) {
    case trap::gid_in_service:
    case trap::gid_out_of_service:
    case trap::mc_group_created:
    case trap::mc_group_deleted: { // 0..5 reserved, 6..21 GID (the MGID for 66/67)
        GidServiceDetails g;
        std::copy_n(d.begin() + 6, g.gid.size(), g.gid.begin());
        return g;
    }
    case trap::link_state_change: // 0..1 LIDADDR
        return LinkStateChangeDetails{Lid(be16(d, 0))};
    case trap::local_link_integrity:
    case trap::excessive_buffer_overrun:
    case trap::flow_control_watchdog: // 0..1 reserved, 2..3 LIDADDR, 4 PORTNO
        return PortErrorDetails{Lid(be16(d, 2)), PortNum(d[4])};
    case trap::local_changes: { // 2..3 LIDADDR, 5 bit 0 OtherLocalChanges,
                                // 6..9 CAPABILITYMASK, 10..11 change flags,
                                // 12..13 CapabilityMask2
        LocalChangesDetails c;
        c.lid = Lid(be16(d, 2));
        c.other_local_changes = (d[5] & 0x01) != 0;
        c.capability_mask = wire::get_as<std::uint32_t>(d, 6 * 8, 32);
        c.change_flags = be16(d, 10);
        c.capability_mask2 = be16(d, 12);
        return c;
    }
    case trap::system_image_guid_change: // 2..3 LIDADDR, 6..13 SystemImageGUID
        return SystemImageGuidDetails{Lid(be16(d, 2)), Guid(wire::get(d, 6 * 8, 64))};
    case trap::bad_mkey: { // 2..3 LIDADDR, 4..5 DRSLID, 6 Method, 8..9
                           // AttributeID, 10..13 AttributeModifier, 14..21
                           // M_Key, 22 bit 0 DRNotice, 23 bit 7 DRPathTruncated
                           // and bits 0..5 DRHopCount, 24..53 DRNoticeReturnPath
        BadMkeyDetails b;
        b.lid = Lid(be16(d, 2));
        b.dr_slid = Lid(be16(d, 4));
        b.method = d[6];
        b.attr_id = be16(d, 8);
        b.attr_mod = wire::get_as<std::uint32_t>(d, 10 * 8, 32);
        b.mkey = wire::get(d, 14 * 8, 64);
        b.directed_route = (d[22] & 0x01) != 0;
        b.truncated = (d[23] & 0x80) != 0;
        b.hop_count = d[23] & 0x3f;
        std::copy_n(d.begin() + 24, b.return_path.size(), b.return_path.begin());
        return b;
    }
    default:
        return raw_details(d);
    }
}

struct DetailsWriter {
    MutBytes d;

    void operator()(const RawDetails& r) const { std::copy(r.bytes.begin(), r.bytes.end(), d.begin()); }
    void operator()(const GidServiceDetails& g) const { std::copy(g.gid.begin(), g.gid.end(), d.begin() + 6); }
    void operator()(const LinkStateChangeDetails& l) const { put_be(d, 0, 2, l.lid.value()); }
    void operator()(const PortErrorDetails& p) const
    {
        put_be(d, 2, 2, p.lid.value());
        d[4] = p.port.value();
    }
    void operator()(const LocalChangesDetails& c) const
    {
        put_be(d, 2, 2, c.lid.value());
        d[5] = c.other_local_changes ? 0x01 : 0x00;
        put_be(d, 6, 4, c.capability_mask);
        put_be(d, 10, 2, c.change_flags);
        put_be(d, 12, 2, c.capability_mask2);
    }
    void operator()(const SystemImageGuidDetails& s) const
    {
        put_be(d, 2, 2, s.lid.value());
        put_be(d, 6, 8, s.system_image_guid.value());
    }
    void operator()(const BadMkeyDetails& b) const
    {
        put_be(d, 2, 2, b.lid.value());
        put_be(d, 4, 2, b.dr_slid.value());
        d[6] = b.method;
        put_be(d, 8, 2, b.attr_id);
        put_be(d, 10, 4, b.attr_mod);
        put_be(d, 14, 8, b.mkey);
        d[22] = b.directed_route ? 0x01 : 0x00;
        d[23] = static_cast<std::uint8_t>((b.truncated ? 0x80 : 0) | (b.hop_count & 0x3f));
        std::copy(b.return_path.begin(), b.return_path.end(), d.begin() + 24);
    }
};

void encode_smp_part(const Notice& v, MutBytes out)
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    wire::put(out, 0, 1, v.is_generic);
    wire::put(out, 1, 7, v.type);
    wire::put(out, 8, 24, v.producer_type_or_vendor_id);
    wire::put(out, 32, 16, v.trap_number_or_device_id);
    wire::put(out, 48, 16, v.issuer_lid.value());
    wire::put(out, 64, 1, v.notice_toggle);
    wire::put(out, 65, 15, v.notice_count);
    std::visit(DetailsWriter{out.subspan(details_offset, notice_details_size)}, v.details);
}

} // namespace

std::optional<Notice> decode_notice(std::span<const std::uint8_t> d)
{
    if (d.size() < notice_smp_size) return std::nullopt;
    Notice v;
    v.is_generic = wire::get(d, 0, 1) != 0;
    v.type = wire::get_as<std::uint8_t>(d, 1, 7);
    v.producer_type_or_vendor_id = wire::get_as<std::uint32_t>(d, 8, 24);
    v.trap_number_or_device_id = wire::get_as<std::uint16_t>(d, 32, 16);
    v.issuer_lid = Lid(wire::get_as<std::uint16_t>(d, 48, 16));
    v.notice_toggle = wire::get(d, 64, 1) != 0;
    v.notice_count = wire::get_as<std::uint16_t>(d, 65, 15);
    const auto details = d.subspan(details_offset, notice_details_size);
    // A vendor notice's "trap number" is a device ID: its details are the
    // vendor's, never one of the generic layouts.
    v.details = v.is_generic ? decode_details(v.trap_number_or_device_id, details)
                             : NoticeDetails{raw_details(details)};
    if (d.size() >= notice_size) std::copy_n(d.begin() + issuer_gid_offset, v.issuer_gid.size(), v.issuer_gid.begin());
    return v;
}

void encode(const Notice& v, std::span<std::uint8_t, 64> out) { encode_smp_part(v, out); }

void encode_with_issuer_gid(const Notice& v, std::span<std::uint8_t, 80> out)
{
    encode_smp_part(v, out.first<notice_smp_size>());
    std::copy(v.issuer_gid.begin(), v.issuer_gid.end(), out.begin() + issuer_gid_offset);
}

} // namespace ibsm::mad
