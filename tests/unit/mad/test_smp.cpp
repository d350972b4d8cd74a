// SMP header layout and builders. Offsets are checked twice: literally
// (IBA 14.2.1.2 byte positions) and through libibmad's own field table.
#include "mad/smp.h"

#include <infiniband/mad.h>

#include <catch2/catch.hpp>

#include <array>
#include <vector>

using namespace ibsm;
using namespace ibsm::mad;

namespace {

std::uint32_t ibmad(const Smp& smp, MAD_FIELDS f)
{
    auto copy = smp; // libibmad takes a non-const buffer
    return mad_get_field(copy.bytes().data(), 0, f);
}

std::uint64_t ibmad64(const Smp& smp, MAD_FIELDS f)
{
    auto copy = smp;
    return mad_get_field64(copy.bytes().data(), 0, f);
}

std::array<std::uint8_t, 64> pattern_data()
{
    std::array<std::uint8_t, 64> d{};
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::uint8_t>(0xA0 + i);
    return d;
}

} // namespace

TEST_CASE("make_dr_request lays out the directed-route header")
{
    const auto path = *DrPath::parse("0,1,13,254");
    const auto data = pattern_data();
    const Smp smp = make_dr_request(Method::set, path, attr::port_info, 0x00020003u, 0x0102030405060708ull, data);
    const auto b = smp.bytes();

    CHECK(b[0] == 1);    // BaseVersion
    CHECK(b[1] == 0x81); // directed-route SM class
    CHECK(b[2] == 1);    // ClassVersion
    CHECK(b[3] == 0x02); // SubnSet
    CHECK(b[4] == 0);    // D bit clear: outbound
    CHECK(b[5] == 0);
    CHECK(b[6] == 0); // HopPointer
    CHECK(b[7] == 3); // HopCount
    const std::array<std::uint8_t, 8> tid = {1, 2, 3, 4, 5, 6, 7, 8};
    for (std::size_t i = 0; i < 8; ++i) CHECK(b[8 + i] == tid[i]);
    CHECK(b[16] == 0x00);
    CHECK(b[17] == 0x15);
    CHECK(b[18] == 0);
    CHECK(b[19] == 0);
    CHECK(b[20] == 0x00);
    CHECK(b[21] == 0x02);
    CHECK(b[22] == 0x00);
    CHECK(b[23] == 0x03);
    for (std::size_t i = 24; i < 32; ++i) CHECK(b[i] == 0); // M_Key
    CHECK(b[32] == 0xff); // DrSLID
    CHECK(b[33] == 0xff);
    CHECK(b[34] == 0xff); // DrDLID
    CHECK(b[35] == 0xff);
    for (std::size_t i = 36; i < 64; ++i) CHECK(b[i] == 0);
    for (std::size_t i = 0; i < 64; ++i) CHECK(b[64 + i] == data[i]);
    CHECK(b[128] == 0); // InitialPath[0] reserved
    CHECK(b[129] == 1);
    CHECK(b[130] == 13);
    CHECK(b[131] == 254);
    for (std::size_t i = 132; i < 256; ++i) CHECK(b[i] == 0);

    CHECK(smp.directed_route());
    CHECK_FALSE(smp.is_response());
    CHECK_FALSE(smp.direction_inbound());
    CHECK(smp.hop_count() == 3);
    CHECK(smp.hop_pointer() == 0);
    CHECK(smp.tid() == 0x0102030405060708ull);
    CHECK(smp.attr_id() == attr::port_info);
    CHECK(smp.attr_mod() == 0x00020003u);
    CHECK(smp.dr_slid() == Lid(0xffff));
    CHECK(smp.dr_dlid() == Lid(0xffff));
    CHECK(smp.initial_path(3) == 254);

    // The same header as libibmad's field table reads it.
    CHECK(ibmad(smp, IB_MAD_BASEVER_F) == 1);
    CHECK(ibmad(smp, IB_MAD_MGMTCLASS_F) == 0x81);
    CHECK(ibmad(smp, IB_MAD_CLASSVER_F) == 1);
    CHECK(ibmad(smp, IB_MAD_METHOD_F) == 0x02);
    CHECK(ibmad(smp, IB_MAD_RESPONSE_F) == 0);
    CHECK(ibmad(smp, IB_DRSMP_DIRECTION_F) == 0);
    CHECK(ibmad(smp, IB_DRSMP_HOPCNT_F) == 3);
    CHECK(ibmad(smp, IB_DRSMP_HOPPTR_F) == 0);
    CHECK(ibmad64(smp, IB_MAD_TRID_F) == 0x0102030405060708ull);
    CHECK(ibmad(smp, IB_MAD_ATTRID_F) == 0x15);
    CHECK(ibmad(smp, IB_MAD_ATTRMOD_F) == 0x00020003u);
    CHECK(ibmad(smp, IB_DRSMP_DRSLID_F) == 0xffff);
    CHECK(ibmad(smp, IB_DRSMP_DRDLID_F) == 0xffff);
}

TEST_CASE("make_dr_request to the local node has no hops; data is padded or cut to 64 bytes")
{
    const std::array<std::uint8_t, 3> short_data = {7, 8, 9};
    Smp smp = make_dr_request(Method::get, DrPath{}, attr::node_info, 0, 42, short_data);
    CHECK(smp.hop_count() == 0);
    CHECK(smp.initial_path(0) == 0);
    CHECK(smp.initial_path(1) == 0);
    CHECK(smp.data()[2] == 9);
    CHECK(smp.data()[3] == 0);

    std::vector<std::uint8_t> long_data(100, 0x55);
    smp = make_dr_request(Method::get, DrPath{}, attr::node_info, 0, 42, long_data);
    CHECK(smp.data()[63] == 0x55);
    CHECK(smp.initial_path(0) == 0); // byte 128 not overrun
}

TEST_CASE("make_dr_request carries a 63-hop path")
{
    DrPath p;
    for (int i = 0; i < 63; ++i) p = p.extended(PortNum(static_cast<std::uint8_t>(i + 1)));
    const Smp smp = make_dr_request(Method::get, p, attr::node_info, 0, 1);
    CHECK(smp.hop_count() == 63);
    CHECK(smp.initial_path(0) == 0);
    CHECK(smp.initial_path(1) == 1);
    CHECK(smp.initial_path(63) == 63);
    CHECK(smp.return_path(0) == 0); // path did not spill into ReturnPath
}

TEST_CASE("make_lid_request uses the LID-routed class and no DR fields")
{
    const Smp smp = make_lid_request(Method::get, Lid(7), attr::switch_info, 5, 0xAABBCCDD11223344ull);
    const auto b = smp.bytes();
    CHECK(b[0] == 1);
    CHECK(b[1] == 0x01);
    CHECK(b[2] == 1);
    CHECK(b[3] == 0x01);
    CHECK_FALSE(smp.directed_route());
    CHECK(smp.hop_count() == 0);
    CHECK(smp.hop_pointer() == 0);
    CHECK(smp.dr_slid() == Lid(0));
    CHECK(smp.dr_dlid() == Lid(0));
    CHECK(smp.tid() == 0xAABBCCDD11223344ull);
    CHECK(smp.attr_id() == attr::switch_info);
    CHECK(smp.attr_mod() == 5);
    for (std::size_t i = 128; i < 256; ++i) CHECK(b[i] == 0);
}

TEST_CASE("make_get_resp turns a DR request around with the D bit set")
{
    const auto path = *DrPath::parse("0,3,5");
    Smp req = make_dr_request(Method::get, path, attr::sm_info, 0, 0x1122334455667788ull);
    req.set_mkey(0x0102030405060708ull);
    // As it arrives at the responder: hop pointer past the last hop, return
    // path filled in by the switches on the way.
    req.bytes()[6] = 3;
    req.bytes()[192 + 1] = 4;
    req.bytes()[192 + 2] = 9;

    const auto data = pattern_data();
    const Smp resp = make_get_resp(req, data, 0x001C);
    const auto b = resp.bytes();
    CHECK(resp.method() == 0x81);
    CHECK(resp.is_response());
    CHECK(resp.directed_route());
    CHECK(resp.direction_inbound());
    CHECK((b[4] & 0x80) != 0);
    CHECK(resp.status() == 0x001C);
    CHECK(b[4] == 0x80);
    CHECK(b[5] == 0x1C);
    CHECK(resp.hop_count() == 2);
    CHECK(resp.hop_pointer() == 3);
    CHECK(resp.tid() == 0x1122334455667788ull);
    CHECK(resp.attr_id() == attr::sm_info);
    CHECK(resp.mkey() == 0x0102030405060708ull);
    CHECK(resp.dr_slid() == Lid(0xffff));
    CHECK(resp.dr_dlid() == Lid(0xffff));
    CHECK(resp.initial_path(1) == 3);
    CHECK(resp.initial_path(2) == 5);
    CHECK(resp.return_path(1) == 4);
    CHECK(resp.return_path(2) == 9);
    for (std::size_t i = 0; i < 64; ++i) CHECK(resp.data()[i] == data[i]);

    CHECK(ibmad(resp, IB_DRSMP_DIRECTION_F) == 1);
    CHECK(ibmad(resp, IB_DRSMP_STATUS_F) == 0x001C);
    CHECK(ibmad(resp, IB_MAD_RESPONSE_F) == 1);
}

TEST_CASE("make_get_resp answers a LID-routed request without a D bit")
{
    Smp req = make_lid_request(Method::get, Lid(3), attr::sm_info, 0, 99);
    req.bytes()[200] = 0x77; // junk in a reserved area must not echo back
    const std::array<std::uint8_t, 2> data = {0xAB, 0xCD};
    const Smp resp = make_get_resp(req, data, 0x8004);
    CHECK(resp.mgmt_class() == 0x01);
    CHECK(resp.method() == 0x81);
    CHECK_FALSE(resp.direction_inbound());
    CHECK(resp.status() == 0x8004); // bit 15 is status here, not direction
    CHECK(resp.tid() == 99);
    CHECK(resp.data()[0] == 0xAB);
    CHECK(resp.data()[1] == 0xCD);
    CHECK(resp.data()[2] == 0);
    CHECK(resp.bytes()[200] == 0);
}

TEST_CASE("Smp setters are big-endian and set_status keeps the DR direction")
{
    Smp smp = make_dr_request(Method::get, DrPath{}, attr::node_info, 0, 0);
    smp.set_tid(0x8877665544332211ull);
    smp.set_attr_id(0xBEEF);
    smp.set_attr_mod(0xDEADBEEF);
    smp.set_mkey(0xCAFEF00D12345678ull);
    CHECK(smp.bytes()[8] == 0x88);
    CHECK(smp.bytes()[15] == 0x11);
    CHECK(smp.bytes()[16] == 0xBE);
    CHECK(smp.bytes()[20] == 0xDE);
    CHECK(smp.bytes()[23] == 0xEF);
    CHECK(smp.bytes()[24] == 0xCA);
    CHECK(smp.bytes()[31] == 0x78);
    CHECK(smp.tid() == 0x8877665544332211ull);
    CHECK(smp.attr_id() == 0xBEEF);
    CHECK(smp.attr_mod() == 0xDEADBEEF);
    CHECK(smp.mkey() == 0xCAFEF00D12345678ull);

    smp.bytes()[4] = 0x80; // inbound
    smp.set_status(0xFFFF);
    CHECK(smp.direction_inbound());
    CHECK(smp.status() == 0x7FFF);
    smp.bytes()[4] = 0x00;
    smp.set_status(0x8001);
    CHECK_FALSE(smp.direction_inbound());
    CHECK(smp.status() == 0x0001);
}

TEST_CASE("Smp::from_bytes zero-pads short input")
{
    const std::array<std::uint8_t, 4> head = {1, 0x81, 1, 0x81};
    const Smp smp = Smp::from_bytes(head);
    CHECK(smp.base_version() == 1);
    CHECK(smp.mgmt_class() == 0x81);
    CHECK(smp.is_response());
    CHECK(smp.bytes()[4] == 0);
    CHECK(smp.bytes()[255] == 0);
}
