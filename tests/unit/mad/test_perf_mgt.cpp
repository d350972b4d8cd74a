// PerfMgt codecs: every field at the offset libibmad (perfquery's library)
// reads it from, the request builders' headers, and decoders that never
// read past the bytes they are given.
#include "mad/perf_mgt.h"

#include <infiniband/mad.h>

#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <vector>

using namespace ibsm;
using namespace ibsm::mad;

namespace {

using Block = std::array<std::uint8_t, perf::data_size>;

std::uint32_t field(Block& b, MAD_FIELDS f) { return mad_get_field(b.data(), 0, f); }
std::uint64_t field64(Block& b, MAD_FIELDS f) { return mad_get_field64(b.data(), 0, f); }

perf::PortCounters sample_counters()
{
    perf::PortCounters v;
    v.port_select = 17;
    v.counter_select = 0xA5C3;
    v.symbol_errors = 0x1234;
    v.link_error_recovery = 0x56;
    v.link_downed = 0x78;
    v.rcv_errors = 0x9ABC;
    v.rcv_remote_physical_errors = 0xDEF0;
    v.rcv_switch_relay_errors = 0x1357;
    v.xmit_discards = 0x2468;
    v.xmit_constraint_errors = 0x9B;
    v.rcv_constraint_errors = 0xCD;
    v.counter_select2 = 0x01;
    v.local_link_integrity_errors = 0xE;
    v.excessive_buffer_overrun_errors = 0x7;
    v.vl15_dropped = 0xFEDC;
    v.xmit_data = 0x11223344;
    v.rcv_data = 0x55667788;
    v.xmit_pkts = 0x99AABBCC;
    v.rcv_pkts = 0xDDEEFF01;
    v.xmit_wait = 0x0badcafe;
    return v;
}

} // namespace

TEST_CASE("PortCounters fields agree with libibmad")
{
    const auto v = sample_counters();
    Block b{};
    perf::encode(v, b);
    CHECK(field(b, IB_PC_PORT_SELECT_F) == 17);
    CHECK(field(b, IB_PC_COUNTER_SELECT_F) == 0xA5C3);
    CHECK(field(b, IB_PC_ERR_SYM_F) == 0x1234);
    CHECK(field(b, IB_PC_LINK_RECOVERS_F) == 0x56);
    CHECK(field(b, IB_PC_LINK_DOWNED_F) == 0x78);
    CHECK(field(b, IB_PC_ERR_RCV_F) == 0x9ABC);
    CHECK(field(b, IB_PC_ERR_PHYSRCV_F) == 0xDEF0);
    CHECK(field(b, IB_PC_ERR_SWITCH_REL_F) == 0x1357);
    CHECK(field(b, IB_PC_XMT_DISCARDS_F) == 0x2468);
    CHECK(field(b, IB_PC_ERR_XMTCONSTR_F) == 0x9B);
    CHECK(field(b, IB_PC_ERR_RCVCONSTR_F) == 0xCD);
    CHECK(field(b, IB_PC_COUNTER_SELECT2_F) == 0x01);
    CHECK(field(b, IB_PC_ERR_LOCALINTEG_F) == 0xE);
    CHECK(field(b, IB_PC_ERR_EXCESS_OVR_F) == 0x7);
    CHECK(field(b, IB_PC_VL15_DROPPED_F) == 0xFEDC);
    CHECK(field(b, IB_PC_XMT_BYTES_F) == 0x11223344);
    CHECK(field(b, IB_PC_RCV_BYTES_F) == 0x55667788);
    CHECK(field(b, IB_PC_XMT_PKTS_F) == 0x99AABBCC);
    CHECK(field(b, IB_PC_RCV_PKTS_F) == 0xDDEEFF01);
    CHECK(field(b, IB_PC_XMT_WAIT_F) == 0x0badcafe);
    CHECK(perf::decode_port_counters(b) == v);
}

TEST_CASE("PortCounters decodes what libibmad writes")
{
    Block b{};
    mad_set_field(b.data(), 0, IB_PC_ERR_SYM_F, 65535);
    mad_set_field(b.data(), 0, IB_PC_ERR_LOCALINTEG_F, 3);
    mad_set_field(b.data(), 0, IB_PC_ERR_EXCESS_OVR_F, 12);
    mad_set_field(b.data(), 0, IB_PC_XMT_WAIT_F, 42);
    const auto v = perf::decode_port_counters(b);
    REQUIRE(v);
    CHECK(v->symbol_errors == 65535);
    CHECK(v->local_link_integrity_errors == 3);
    CHECK(v->excessive_buffer_overrun_errors == 12);
    CHECK(v->xmit_wait == 42);
    CHECK(v->link_downed == 0);
}

TEST_CASE("PortCountersExtended fields agree with libibmad")
{
    perf::PortCountersExtended v;
    v.port_select = 3;
    v.counter_select = 0x00F0;
    v.xmit_data = 0x0102030405060708ULL;
    v.rcv_data = 0x1112131415161718ULL;
    v.xmit_pkts = 0x2122232425262728ULL;
    v.rcv_pkts = 0x3132333435363738ULL;
    v.unicast_xmit_pkts = 0x41;
    v.unicast_rcv_pkts = 0x51;
    v.multicast_xmit_pkts = 0x61;
    v.multicast_rcv_pkts = 0xFFFFFFFFFFFFFFFFULL;
    Block b{};
    perf::encode(v, b);
    CHECK(field(b, IB_PC_EXT_PORT_SELECT_F) == 3);
    CHECK(field(b, IB_PC_EXT_COUNTER_SELECT_F) == 0x00F0);
    CHECK(field64(b, IB_PC_EXT_XMT_BYTES_F) == v.xmit_data);
    CHECK(field64(b, IB_PC_EXT_RCV_BYTES_F) == v.rcv_data);
    CHECK(field64(b, IB_PC_EXT_XMT_PKTS_F) == v.xmit_pkts);
    CHECK(field64(b, IB_PC_EXT_RCV_PKTS_F) == v.rcv_pkts);
    CHECK(field64(b, IB_PC_EXT_XMT_UPKTS_F) == 0x41);
    CHECK(field64(b, IB_PC_EXT_RCV_UPKTS_F) == 0x51);
    CHECK(field64(b, IB_PC_EXT_XMT_MPKTS_F) == 0x61);
    CHECK(field64(b, IB_PC_EXT_RCV_MPKTS_F) == v.multicast_rcv_pkts);
    CHECK(perf::decode_port_counters_extended(b) == v);
}

TEST_CASE("PMA ClassPortInfo fields agree with libibmad")
{
    Block b{};
    mad_set_field(b.data(), 0, IB_CPI_BASEVER_F, 1);
    mad_set_field(b.data(), 0, IB_CPI_CLASSVER_F, 1);
    mad_set_field(b.data(), 0, IB_CPI_CAPMASK_F, 0x0200 | 0x1000 /* IsExtendedWidthSupported | IsPortCountersXmitWaitSupported */);
    mad_set_field(b.data(), 0, IB_CPI_RESP_TIME_VALUE_F, 0x12);
    const auto v = perf::decode_class_port_info(b);
    REQUIRE(v);
    CHECK(v->base_version == 1);
    CHECK(v->class_version == 1);
    CHECK(v->capability_mask == (perf::cap::extended_width | perf::cap::xmit_wait));
    CHECK(v->resp_time_value == 0x12);
    CHECK(v->extended_counters());
    CHECK(v->xmit_wait());
    Block back{};
    perf::encode(*v, back);
    CHECK(back == b);

    perf::ClassPortInfo plain;
    plain.capability_mask = perf::cap::all_port_select;
    CHECK_FALSE(plain.extended_counters());
    CHECK_FALSE(plain.xmit_wait());
    plain.capability_mask = perf::cap::extended_width_no_ietf;
    CHECK(plain.extended_counters());
}

TEST_CASE("PerfMgt requests carry class 0x04 version 1, the attribute and PortSelect")
{
    const Smp get = perf::make_port_counters_get(PortNum(9), 0x1234);
    CHECK(get.base_version() == 1);
    CHECK(get.mgmt_class() == 0x04);
    CHECK(get.class_version() == 1);
    CHECK(get.method() == 0x01);
    CHECK(get.tid() == 0x1234);
    CHECK(get.attr_id() == 0x0012);
    CHECK(get.attr_mod() == 0);
    CHECK(get.bytes()[64 + 1] == 9);

    const Smp ext = perf::make_port_counters_extended_get(PortNum(2));
    CHECK(ext.attr_id() == 0x001D);
    CHECK(ext.bytes()[64 + 1] == 2);

    const Smp cpi = perf::make_class_port_info_get();
    CHECK(cpi.attr_id() == 0x0001);
    CHECK(cpi.method() == 0x01);

    const Smp clear = perf::make_port_counters_clear(PortNum(5), perf::select::symbol_errors | perf::select::link_downed);
    CHECK(clear.method() == 0x02);
    Block b{};
    std::copy_n(perf::attribute_data(clear).begin(), b.size(), b.begin());
    CHECK(field(b, IB_PC_PORT_SELECT_F) == 5);
    CHECK(field(b, IB_PC_COUNTER_SELECT_F) == 0x0005);
    CHECK(field(b, IB_PC_COUNTER_SELECT2_F) == 0);
    CHECK(field(b, IB_PC_ERR_SYM_F) == 0);
}

TEST_CASE("PerfMgt decoders refuse short input and never read past it")
{
    // Every length from 0 to a whole attribute, random content, in a vector
    // of exactly that size (ASan/valgrind would flag a read past its end).
    std::mt19937 rng(21);
    for (std::size_t n = 0; n <= perf::data_size; ++n) {
        for (int round = 0; round < 4; ++round) {
            std::vector<std::uint8_t> d(n);
            for (auto& x : d) x = static_cast<std::uint8_t>(rng());
            const auto cpi = perf::decode_class_port_info(d);
            const auto pc = perf::decode_port_counters(d);
            const auto ext = perf::decode_port_counters_extended(d);
            CHECK(cpi.has_value() == (n >= 72));
            CHECK(pc.has_value() == (n >= perf::port_counters_size));
            CHECK(ext.has_value() == (n >= perf::port_counters_extended_size));
            if (pc) {
                CHECK(pc->local_link_integrity_errors <= 15);
                CHECK(pc->excessive_buffer_overrun_errors <= 15);
            }
        }
    }
}
