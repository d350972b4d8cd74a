// Round trips and rejections for every attribute codec. Two directions:
//  - decode(encode(v)) == v, with values chosen so bit-packed neighbours
//    hold different, non-zero patterns (a shifted field shows up as a
//    mismatch in its neighbour);
//  - encode(decode(x)) == x for random bytes whose reserved bits (listed
//    here from the IBA tables, independently of the codecs) are cleared: no
//    defined bit is dropped or moved.
#include "mad/linear_forwarding_table.h"
#include "mad/node_description.h"
#include "mad/node_info.h"
#include "mad/notice.h"
#include "mad/port_info.h"
#include "mad/sl2vl_table.h"
#include "mad/sm_info.h"
#include "mad/switch_info.h"
#include "mad/vl_arbitration.h"

#include "sample_attributes.h"

#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <vector>

using namespace ibsm;
using namespace ibsm::mad;

namespace {

using Block = std::array<std::uint8_t, 64>;

// Per-byte masks of the bits an attribute defines (1 = defined).
Block defined_bits(std::size_t attribute_bytes, std::initializer_list<std::pair<std::size_t, std::uint8_t>> reserved)
{
    Block m{};
    for (std::size_t i = 0; i < attribute_bytes; ++i) m[i] = 0xff;
    for (auto [byte, mask] : reserved) m[byte] = static_cast<std::uint8_t>(m[byte] & ~mask);
    return m;
}

Block random_block(std::mt19937& rng, const Block& defined)
{
    Block b{};
    std::uniform_int_distribution<int> byte(0, 255);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(byte(rng) & defined[i]);
    return b;
}

template <typename Decode>
void check_bytes_round_trip(const Block& defined, Decode decode, void (*fix)(Block&, std::mt19937&) = nullptr)
{
    std::mt19937 rng(20240601);
    for (int i = 0; i < 500; ++i) {
        Block x = random_block(rng, defined);
        if (fix) fix(x, rng);
        auto v = decode(std::span<const std::uint8_t>(x));
        REQUIRE(v);
        Block y{};
        y.fill(0xEE); // encode must write every byte, not rely on a zeroed buffer
        encode(*v, y);
        REQUIRE(y == x);
    }
}

} // namespace

// ---------------------------------------------------------------- NodeInfo

TEST_CASE("NodeInfo round trips")
{
    NodeInfo v;
    v.base_version = 0x12;
    v.class_version = 0x34;
    v.node_type = NodeKind::router;
    v.num_ports = 0xFE;
    v.system_image_guid = Guid(0x0102030405060708ull);
    v.node_guid = Guid(0x1112131415161718ull);
    v.port_guid = Guid(0x2122232425262728ull);
    v.partition_cap = 0xA1B2;
    v.device_id = 0xC3D4;
    v.revision = 0xE5F60718;
    v.local_port_num = PortNum(0x9A);
    v.vendor_id = 0xABCDEF;
    Block b{};
    encode(v, b);
    CHECK(b[2] == 3);
    CHECK(b[37] == 0xAB); // VendorID occupies bytes 37..39
    CHECK(b[39] == 0xEF);
    CHECK(decode_node_info(b) == v);

    check_bytes_round_trip(defined_bits(40, {}), decode_node_info, [](Block& x, std::mt19937& rng) {
        x[2] = static_cast<std::uint8_t>(1 + rng() % 3);
    });
}

TEST_CASE("NodeInfo rejects short input and unknown node types")
{
    NodeInfo v;
    v.node_type = NodeKind::switch_node;
    Block b{};
    encode(v, b);
    REQUIRE(decode_node_info(b));
    CHECK_FALSE(decode_node_info(std::span<const std::uint8_t>(b).first(39)));
    CHECK_FALSE(decode_node_info({}));
    b[2] = 0;
    CHECK_FALSE(decode_node_info(b));
    b[2] = 4;
    CHECK_FALSE(decode_node_info(b));
}

// --------------------------------------------------------- NodeDescription

TEST_CASE("NodeDescription round trips, including a full 64-byte text")
{
    NodeDescription v{"ibsm-host-01 HCA-1"};
    Block b{};
    b.fill(0xEE);
    encode(v, b);
    CHECK(b[18] == 0);
    CHECK(b[63] == 0);
    CHECK(decode_node_description(b) == v);

    NodeDescription full{std::string(64, 'x')};
    encode(full, b);
    CHECK(decode_node_description(b) == full);

    NodeDescription too_long{std::string(70, 'y')};
    encode(too_long, b);
    CHECK(decode_node_description(b)->text == std::string(64, 'y'));

    CHECK_FALSE(decode_node_description(std::span<const std::uint8_t>(b).first(63)));
}

// ---------------------------------------------------------------- PortInfo

TEST_CASE("PortInfo round trips with every field set")
{
    const PortInfo v = test::sample_port_info();
    Block b{};
    encode(v, b);
    CHECK(b[32] == 0xA3); // LinkSpeedSupported | PortState
    CHECK(b[33] == 0x5C); // PortPhysicalState | LinkDownDefaultState
    CHECK(b[34] == 0x85); // M_KeyProtectBits(2) reserved(3) LMC(3)
    CHECK(b[35] == 0x96);
    CHECK(b[42] == 0xB3); // VLStallCount(3) HOQLife(5)
    CHECK(b[43] == 0x39); // OperationalVLs PE-in PE-out FR-in FR-out
    CHECK(b[51] == 0x95); // ClientReregister, 2 reserved, SubnetTimeOut(5)
    CHECK(b[52] == 0x0B);
    CHECK(b[56] == 0x00);
    CHECK(b[57] == 0xAB);
    CHECK(b[62] == 0x69);
    CHECK(b[63] == 0x1E);
    CHECK(decode_port_info(b) == v);

    // All-ones fields next to each other.
    PortInfo ones;
    ones.link_speed_supported = 0xF;
    ones.port_state = PortState::active;
    ones.mkey_protect_bits = 3;
    ones.lmc = 7;
    ones.vl_stall_count = 7;
    ones.hoq_life = 0x1F;
    ones.subnet_timeout = 0x1F;
    ones.resp_time_value = 0x1F;
    ones.link_speed_ext_enabled = 0x1F;
    encode(ones, b);
    CHECK(b[34] == 0xC7);
    CHECK(decode_port_info(b) == ones);
}

TEST_CASE("PortInfo XDR fields sit in byte 56 as libibmad's fields.c places them")
{
    // BITSOFFS(449, 2) LinkSpeedExtActive2, (451, 2) LinkSpeedExtSupported2,
    // (453, 3) LinkSpeedExtEnabled2: bits 6..5, 4..3 and 2..0 of byte 56.
    Block b{};
    PortInfo v;
    v.link_speed_ext_active2 = 1;
    encode(v, b);
    CHECK(b[56] == 0x20);
    v = PortInfo{};
    v.link_speed_ext_supported2 = 1;
    encode(v, b);
    CHECK(b[56] == 0x08);
    v = PortInfo{};
    v.link_speed_ext_enabled2 = 7;
    encode(v, b);
    CHECK(b[56] == 0x07);
    b[56] = 0x7F;
    auto d = decode_port_info(b);
    REQUIRE(d);
    CHECK(d->link_speed_ext_active2 == 3);
    CHECK(d->link_speed_ext_supported2 == 3);
    CHECK(d->link_speed_ext_enabled2 == 7);
    CHECK(d->link_round_trip_latency == 0); // byte 57.. untouched
}

TEST_CASE("PortInfo keeps every defined bit")
{
    // Reserved: 274:3 (byte 34), 409:2 (byte 51, multicast P_Key trap
    // suppression, not modelled), 416:3 (byte 52), 448:1 (byte 56), 504:3
    // (byte 63).
    const Block defined = defined_bits(64, {{34, 0x38}, {51, 0x60}, {52, 0xE0}, {56, 0x80}, {63, 0xE0}});
    check_bytes_round_trip(defined, decode_port_info, [](Block& x, std::mt19937& rng) {
        x[32] = static_cast<std::uint8_t>((x[32] & 0xF0) | (rng() % 5)); // PortState 0..4
    });
}

TEST_CASE("PortInfo rejects short input and PortState > 4")
{
    Block b{};
    encode(test::sample_port_info(), b);
    CHECK_FALSE(decode_port_info(std::span<const std::uint8_t>(b).first(63)));
    b[32] = 0x05;
    CHECK_FALSE(decode_port_info(b));
    b[32] = 0x0F;
    CHECK_FALSE(decode_port_info(b));
    b[32] = 0xF4;
    CHECK(decode_port_info(b));
}

// -------------------------------------------------------------- SwitchInfo

TEST_CASE("SwitchInfo round trips")
{
    const SwitchInfo v = test::sample_switch_info();
    Block b{};
    encode(v, b);
    CHECK(b[11] == 0xAE); // LifeTimeValue(5) PortStateChange OptimizedSL2VL(2)
    CHECK(b[16] == 0xA8); // in/out enforcement, raw in/out, EnhancedPort0, 3 reserved
    CHECK(b[18] == 0xC1);
    CHECK(decode_switch_info(b) == v);

    check_bytes_round_trip(defined_bits(20, {{16, 0x07}, {17, 0xFF}}), decode_switch_info);
    CHECK_FALSE(decode_switch_info(std::span<const std::uint8_t>(b).first(19)));
}

// ---------------------------------------------------- LinearForwardingTable

TEST_CASE("LinearForwardingTable round trips and maps LIDs to blocks")
{
    LinearForwardingTable v;
    for (std::size_t i = 0; i < 64; ++i) v.ports[i] = static_cast<std::uint8_t>(i * 3 + 1);
    v.ports[7] = lft_no_route;
    Block b{};
    encode(v, b);
    CHECK(b[7] == 0xFF);
    CHECK(b[63] == 190);
    CHECK(decode_linear_forwarding_table(b) == v);
    check_bytes_round_trip(defined_bits(64, {}), decode_linear_forwarding_table);
    CHECK_FALSE(decode_linear_forwarding_table(std::span<const std::uint8_t>(b).first(63)));

    CHECK(lft_block_of(Lid(0)) == 0);
    CHECK(lft_block_of(Lid(63)) == 0);
    CHECK(lft_block_of(Lid(64)) == 1);
    CHECK(lft_index_of(Lid(64)) == 0);
    CHECK(lft_block_of(Lid(0xBFFF)) == 767);
    CHECK(lft_index_of(Lid(0xBFFF)) == 63);
}

// -------------------------------------------------------- SL2VLMappingTable

TEST_CASE("SL2VL table round trips with SL0 in the high nibble")
{
    Sl2VlTable v;
    for (std::size_t sl = 0; sl < 16; ++sl) v.vl[sl] = static_cast<std::uint8_t>(15 - sl);
    Block b{};
    encode(v, b);
    CHECK(b[0] == 0xFE);
    CHECK(b[7] == 0x10);
    CHECK(b[8] == 0);
    CHECK(decode_sl2vl_table(b) == v);
    check_bytes_round_trip(defined_bits(8, {}), decode_sl2vl_table);
    CHECK_FALSE(decode_sl2vl_table(std::span<const std::uint8_t>(b).first(7)));
    CHECK(decode_sl2vl_table(std::span<const std::uint8_t>(b).first(8)) == v);

    CHECK(sl2vl_attr_mod(PortNum(1), PortNum(3)) == 0x0103);
    CHECK(sl2vl_attr_mod(PortNum(254), PortNum(0)) == 0xFE00);
    CHECK((sl2vl_all_input_ports | sl2vl_all_output_ports) == 0x30000);
}

// ------------------------------------------------------- VLArbitrationTable

TEST_CASE("VLArbitration table round trips")
{
    VlArbitrationTable v;
    for (std::size_t i = 0; i < 32; ++i) v.entries[i] = {static_cast<std::uint8_t>(i % 16), static_cast<std::uint8_t>(255 - i)};
    Block b{};
    encode(v, b);
    CHECK(b[0] == 0x00);
    CHECK(b[1] == 0xFF);
    CHECK(b[2 * 15] == 0x0F);
    CHECK(b[2 * 15 + 1] == 240);
    CHECK(decode_vl_arbitration(b) == v);

    Block defined{};
    for (std::size_t i = 0; i < 64; ++i) defined[i] = (i % 2 == 0) ? 0x0F : 0xFF;
    check_bytes_round_trip(defined, decode_vl_arbitration);
    CHECK_FALSE(decode_vl_arbitration(std::span<const std::uint8_t>(b).first(63)));

    CHECK(vl_arb_attr_mod(VlArbBlock::low_0_31, PortNum(5)) == 0x10005);
    CHECK(vl_arb_attr_mod(VlArbBlock::high_32_63, PortNum(36)) == 0x40024);
}

// ------------------------------------------------------------------ SMInfo

TEST_CASE("SMInfo round trips and rejects bad states")
{
    SmInfo v;
    v.guid = Guid(0x0002C90300A1B2C3ull);
    v.sm_key = 0x0123456789ABCDEFull;
    v.act_count = 0xFEDCBA98;
    v.priority = 0xD;
    v.sm_state = SmState::standby;
    Block b{};
    encode(v, b);
    CHECK(b[20] == 0xD2);
    CHECK(decode_sm_info(b) == v);
    check_bytes_round_trip(defined_bits(21, {}), decode_sm_info, [](Block& x, std::mt19937& rng) {
        x[20] = static_cast<std::uint8_t>((x[20] & 0xF0) | (rng() % 4));
    });
    CHECK_FALSE(decode_sm_info(std::span<const std::uint8_t>(b).first(20)));
    b[20] = 0xD4;
    CHECK_FALSE(decode_sm_info(b));
}

// ------------------------------------------------------------------ Notice

namespace {

Notice sample_notice(std::uint16_t trap_number, NoticeDetails details)
{
    Notice n;
    n.is_generic = true;
    n.type = notice_type::urgent;
    n.producer_type_or_vendor_id = 0x000002;
    n.trap_number_or_device_id = trap_number;
    n.issuer_lid = Lid(0x1A2B);
    n.notice_toggle = true;
    n.notice_count = 0x7ABC;
    n.details = std::move(details);
    return n;
}

Gid sample_gid()
{
    Gid g{};
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<std::uint8_t>(0xF0 + i);
    return g;
}

} // namespace

TEST_CASE("Notice header round trips bit-packed fields")
{
    const Notice n = sample_notice(trap::link_state_change, LinkStateChangeDetails{Lid(0x0102)});
    Block b{};
    encode(n, b);
    CHECK(b[0] == 0x81); // IsGeneric | Type 1
    CHECK(b[3] == 0x02);
    CHECK(b[4] == 0x00);
    CHECK(b[5] == 128);
    CHECK(b[6] == 0x1A);
    CHECK(b[8] == 0xFA); // NoticeToggle | NoticeCount high bits
    CHECK(b[9] == 0xBC);
    CHECK(b[10] == 0x01); // LIDADDR at DataDetails[0..1]
    CHECK(b[11] == 0x02);
    CHECK(decode_notice(b) == n);
}

TEST_CASE("Notice details of each typed trap round trip at their IBA offsets")
{
    Block b{};

    for (auto number : {trap::gid_in_service, trap::gid_out_of_service}) {
        const Notice n = sample_notice(number, GidServiceDetails{sample_gid()});
        encode(n, b);
        CHECK(b[10 + 5] == 0);
        CHECK(b[10 + 6] == 0xF0);
        CHECK(b[10 + 21] == 0xFF);
        CHECK(decode_notice(b) == n);
    }

    for (auto number : {trap::local_link_integrity, trap::excessive_buffer_overrun, trap::flow_control_watchdog}) {
        const Notice n = sample_notice(number, PortErrorDetails{Lid(0x0304), PortNum(17)});
        encode(n, b);
        CHECK(b[10] == 0);
        CHECK(b[12] == 0x03);
        CHECK(b[13] == 0x04);
        CHECK(b[14] == 17);
        CHECK(decode_notice(b) == n);
    }

    {
        LocalChangesDetails c;
        c.lid = Lid(0x0506);
        c.other_local_changes = true;
        c.capability_mask = 0x0A0B0C0D;
        c.change_flags = trap144::node_description_changed | trap144::capability_mask2_changed;
        c.capability_mask2 = 0x1122;
        const Notice n = sample_notice(trap::local_changes, c);
        encode(n, b);
        CHECK(b[12] == 0x05);
        CHECK(b[15] == 0x01);
        CHECK(b[16] == 0x0A);
        CHECK(b[19] == 0x0D);
        CHECK(b[20] == 0x00);
        CHECK(b[21] == 0x21);
        CHECK(b[22] == 0x11);
        CHECK(decode_notice(b) == n);
    }

    {
        const Notice n = sample_notice(trap::system_image_guid_change,
                                       SystemImageGuidDetails{Lid(0x0708), Guid(0x1122334455667788ull)});
        encode(n, b);
        CHECK(b[12] == 0x07);
        CHECK(b[14] == 0);
        CHECK(b[16] == 0x11);
        CHECK(b[23] == 0x88);
        CHECK(decode_notice(b) == n);
    }
}

TEST_CASE("Notice: trap 256 (bad M_Key) details at their IBA offsets")
{
    BadMkeyDetails m;
    m.lid = Lid(0x0102);
    m.dr_slid = Lid(0xffff);
    m.method = 0x02;
    m.attr_id = 0x0015;
    m.attr_mod = 0x80000003;
    m.mkey = 0x1122334455667788ull;
    m.directed_route = true;
    m.hop_count = 3;
    m.return_path = {4, 1, 7};
    const Notice n = sample_notice(trap::bad_mkey, m);
    Block b{};
    encode(n, b);
    // DataDetails start at byte 10.
    CHECK(b[12] == 0x01);
    CHECK(b[13] == 0x02);
    CHECK(b[14] == 0xff);
    CHECK(b[16] == 0x02);
    CHECK(b[19] == 0x15);
    CHECK(b[20] == 0x80);
    CHECK(b[24] == 0x11);
    CHECK(b[31] == 0x88);
    CHECK(b[32] == 0x01);
    CHECK(b[33] == 3);
    CHECK(b[34] == 4);
    CHECK(b[36] == 7);
    CHECK(decode_notice(b) == n);
}

TEST_CASE("Notice with an unknown trap number or from a vendor keeps raw details")
{
    RawDetails raw;
    for (std::size_t i = 0; i < raw.bytes.size(); ++i) raw.bytes[i] = static_cast<std::uint8_t>(i + 1);
    const Notice n = sample_notice(257, raw); // bad P_Key: not typed here
    Block b{};
    encode(n, b);
    CHECK(b[10] == 1);
    CHECK(b[63] == 54);
    auto d = decode_notice(b);
    REQUIRE(d);
    CHECK(std::holds_alternative<RawDetails>(d->details));
    CHECK(*d == n);

    // A vendor notice whose DeviceID happens to be 128 is not trap 128.
    Notice vendor = n;
    vendor.is_generic = false;
    vendor.trap_number_or_device_id = 128;
    vendor.producer_type_or_vendor_id = 0x0002C9;
    encode(vendor, b);
    d = decode_notice(b);
    REQUIRE(d);
    CHECK(std::holds_alternative<RawDetails>(d->details));
    CHECK(*d == vendor);

    // Any raw 64 bytes of an untyped notice survive decode + encode.
    const Block defined = defined_bits(64, {});
    check_bytes_round_trip(defined, decode_notice, [](Block& x, std::mt19937&) {
        x[0] &= 0x7F; // vendor notices: details never typed
    });
}

TEST_CASE("Notice IssuerGID travels only in the 80-byte form")
{
    Notice n = sample_notice(trap::gid_in_service, GidServiceDetails{sample_gid()});
    n.issuer_gid = sample_gid();
    n.issuer_gid[15] = 0x01;
    std::array<std::uint8_t, 80> full{};
    encode_with_issuer_gid(n, full);
    CHECK(full[64] == 0xF0);
    CHECK(full[79] == 0x01);
    CHECK(decode_notice(full) == n);

    Block smp{};
    encode(n, smp);
    auto d = decode_notice(smp);
    REQUIRE(d);
    CHECK(d->issuer_gid == Gid{});
    CHECK_FALSE(decode_notice(std::span<const std::uint8_t>(smp).first(63)));
}
