// The codecs of the multicast and partition attributes:
// MCMemberRecord (SA), MulticastForwardingTable and P_KeyTable (SMPs).
// Three independent truths: round trips with every field distinct, byte
// positions written out from the IBA tables here, and libibmad's field
// tables (a separate transcription of the same tables).
#include "mad/mc_member_record.h"
#include "mad/multicast_forwarding_table.h"
#include "mad/pkey_table.h"

#include <infiniband/mad.h>

#include <catch2/catch.hpp>

#include <array>
#include <random>

using namespace ibsm;
using namespace ibsm::mad;

namespace {

McMemberRecord sample_record()
{
    McMemberRecord v;
    v.mgid = Gid128{0xff12401bffff0000ull, 0x00000000ffffffffull};
    v.port_gid = Gid128{0xfe80000000000000ull, 0x0002c90300001234ull};
    v.q_key = 0x0b1b2b3b;
    v.mlid = Lid(0xc123);
    v.mtu_selector = 2;
    v.mtu = 0x25;
    v.traffic_class = 0x9a;
    v.p_key = 0xfffe;
    v.rate_selector = 1;
    v.rate = 0x3c;
    v.packet_life_time_selector = 3;
    v.packet_life_time = 0x13;
    v.sl = 0xd;
    v.flow_label = 0xabcde;
    v.hop_limit = 0x7f;
    v.scope = 0x2;
    v.join_state = 0x5;
    v.proxy_join = true;
    return v;
}

} // namespace

TEST_CASE("MCMemberRecord round trips and pads to 56 bytes")
{
    const auto v = sample_record();
    std::array<std::uint8_t, mc_member_record_size> b{};
    b.fill(0xee);
    encode(v, b);
    auto back = decode_mc_member_record(b);
    REQUIRE(back);
    CHECK(*back == v);
    // Reserved bits after ProxyJoin and the padding are zero.
    CHECK(b[49] == 0x80);
    for (std::size_t i = 50; i < b.size(); ++i) CHECK(b[i] == 0);
    CHECK_FALSE(decode_mc_member_record(std::span<const std::uint8_t>(b).first(51)));
}

TEST_CASE("MCMemberRecord bytes sit where IBA table 197 puts them")
{
    std::array<std::uint8_t, mc_member_record_size> b{};
    encode(sample_record(), b);
    const std::array<std::uint8_t, 52> expected{
        0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, // MGID
        0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x34, // PortGID
        0x0b, 0x1b, 0x2b, 0x3b, // Q_Key
        0xc1, 0x23,             // MLID
        0xa5,                   // MTUSelector 2, MTU 0x25
        0x9a,                   // TClass
        0xff, 0xfe,             // P_Key
        0x7c,                   // RateSelector 1, Rate 0x3c
        0xd3,                   // PacketLifeTimeSelector 3, PacketLifeTime 0x13
        0xda, 0xbc, 0xde, 0x7f, // SL 0xd, FlowLabel 0xabcde, HopLimit 0x7f
        0x25,                   // Scope 2, JoinState 5
        0x80, 0x00, 0x00,       // ProxyJoin, reserved
    };
    CHECK(std::equal(expected.begin(), expected.end(), b.begin()));
}

TEST_CASE("MCMemberRecord fields agree with libibmad")
{
    const auto v = sample_record();
    std::array<std::uint8_t, 64> b{};
    encode(v, std::span<std::uint8_t, mc_member_record_size>(b.data(), mc_member_record_size));
    std::array<std::uint8_t, 16> gid{};
    mad_get_array(b.data(), 0, IB_SA_MCM_MGID_F, gid.data());
    CHECK(gid[0] == 0xff);
    CHECK(gid[1] == 0x12);
    CHECK(gid[15] == 0xff);
    mad_get_array(b.data(), 0, IB_SA_MCM_PORTGID_F, gid.data());
    CHECK(gid[0] == 0xfe);
    CHECK(gid[15] == 0x34);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_QKEY_F) == v.q_key);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_MLID_F) == 0xc123);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_MTU_F) == 0x25);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_TCLASS_F) == 0x9a);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_PKEY_F) == 0xfffe);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_RATE_F) == 0x3c);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_SL_F) == 0xd);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_FLOW_LABEL_F) == 0xabcde);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_JOIN_STATE_F) == 0x5);
    CHECK(mad_get_field(b.data(), 0, IB_SA_MCM_PROXY_JOIN_F) == 1);

    // And the other way: what libibmad writes, we read.
    std::array<std::uint8_t, 64> w{};
    mad_set_field(w.data(), 0, IB_SA_MCM_QKEY_F, 0x80010000);
    mad_set_field(w.data(), 0, IB_SA_MCM_MLID_F, 0xc001);
    mad_set_field(w.data(), 0, IB_SA_MCM_JOIN_STATE_F, 1);
    mad_set_field(w.data(), 0, IB_SA_MCM_PKEY_F, 0xffff);
    auto r = decode_mc_member_record(w);
    REQUIRE(r);
    CHECK(r->q_key == 0x80010000);
    CHECK(r->mlid == Lid(0xc001));
    CHECK(r->join_state == 1);
    CHECK(r->p_key == 0xffff);
}

TEST_CASE("MCMemberRecord bytes round trip for random records")
{
    std::mt19937 rng(1515);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 300; ++i) {
        std::array<std::uint8_t, mc_member_record_size> x{};
        for (std::size_t k = 0; k < 52; ++k) x[k] = static_cast<std::uint8_t>(byte(rng));
        x[49] &= 0x80; // reserved bits after ProxyJoin
        x[50] = x[51] = 0;
        auto v = decode_mc_member_record(x);
        REQUIRE(v);
        std::array<std::uint8_t, mc_member_record_size> y{};
        y.fill(0xee);
        encode(*v, y);
        REQUIRE(y == x);
    }
}

TEST_CASE("MulticastForwardingTable: masks big-endian, modifier carries block and position")
{
    MulticastForwardingTable t;
    for (std::size_t i = 0; i < t.masks.size(); ++i) t.masks[i] = static_cast<std::uint16_t>(0x0101 * i + 3);
    std::array<std::uint8_t, 64> b{};
    encode(t, b);
    CHECK(b[0] == 0x00);
    CHECK(b[1] == 0x03);
    CHECK(b[62] == 0x1f);
    CHECK(b[63] == 0x22);
    auto back = decode_multicast_forwarding_table(b);
    REQUIRE(back);
    CHECK(*back == t);
    // libibmad reads the block as one 512-bit array: the same bytes.
    std::array<std::uint8_t, 64> raw{};
    mad_get_array(b.data(), 0, IB_MULTICAST_FORW_TBL_F, raw.data());
    CHECK(raw == b);

    CHECK(mft_block_of(Lid(0xc000)) == 0);
    CHECK(mft_index_of(Lid(0xc000)) == 0);
    CHECK(mft_block_of(Lid(0xc021)) == 1);
    CHECK(mft_index_of(Lid(0xc021)) == 1);
    CHECK(mft_attr_mod(1, 2) == 0x20000001u);
    CHECK(mft_attr_mod(0x1ff, 15) == 0xf00001ffu);
    CHECK_FALSE(decode_multicast_forwarding_table(std::span<const std::uint8_t>(b).first(63)));
}

TEST_CASE("P_KeyTable: 32 big-endian keys, switch port in the modifier")
{
    PKeyTable t;
    t.keys[0] = default_pkey;
    t.keys[1] = 0x8001;
    t.keys[31] = 0x7abc;
    std::array<std::uint8_t, 64> b{};
    encode(t, b);
    CHECK(b[0] == 0xff);
    CHECK(b[1] == 0xff);
    CHECK(b[2] == 0x80);
    CHECK(b[3] == 0x01);
    CHECK(b[62] == 0x7a);
    CHECK(b[63] == 0xbc);
    auto back = decode_pkey_table(b);
    REQUIRE(back);
    CHECK(*back == t);
    CHECK(pkey_attr_mod(0) == 0);
    CHECK(pkey_attr_mod(1, 7) == 0x00070001u);
    CHECK(pkey_full(0xffff));
    CHECK_FALSE(pkey_full(0x7fff));
    CHECK(pkey_base(0xffff) == 0x7fff);
    CHECK(pkey_empty(0x8000));
}
