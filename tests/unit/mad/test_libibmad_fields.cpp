// Cross-check of the codecs' bit offsets against libibmad's field tables
// (an independent transcription of the same IBA tables): what we encode,
// libibmad reads back field by field, and what libibmad writes, we decode.
#include "mad/node_info.h"
#include "mad/notice.h"
#include "mad/port_info.h"
#include "mad/sm_info.h"
#include "mad/switch_info.h"

#include <infiniband/mad.h>

#include "sample_attributes.h"

#include <catch2/catch.hpp>

#include <array>

using namespace ibsm;
using namespace ibsm::mad;

namespace {

using Block = std::array<std::uint8_t, 64>;

std::uint32_t field(Block& b, MAD_FIELDS f) { return mad_get_field(b.data(), 0, f); }
std::uint64_t field64(Block& b, MAD_FIELDS f) { return mad_get_field64(b.data(), 0, f); }

} // namespace

TEST_CASE("PortInfo fields agree with libibmad")
{
    const PortInfo v = test::sample_port_info();
    Block b{};
    encode(v, b);
    CHECK(field64(b, IB_PORT_MKEY_F) == v.mkey);
    CHECK(field64(b, IB_PORT_GID_PREFIX_F) == v.gid_prefix);
    CHECK(field(b, IB_PORT_LID_F) == 0x1234);
    CHECK(field(b, IB_PORT_SMLID_F) == 0x5678);
    CHECK(field(b, IB_PORT_CAPMASK_F) == 0x9ABCDEF0);
    CHECK(field(b, IB_PORT_DIAG_F) == 0x1357);
    CHECK(field(b, IB_PORT_MKEY_LEASE_F) == 0x2468);
    CHECK(field(b, IB_PORT_LOCAL_PORT_F) == 0x11);
    CHECK(field(b, IB_PORT_LINK_WIDTH_ENABLED_F) == 0x22);
    CHECK(field(b, IB_PORT_LINK_WIDTH_SUPPORTED_F) == 0x33);
    CHECK(field(b, IB_PORT_LINK_WIDTH_ACTIVE_F) == 0x44);
    CHECK(field(b, IB_PORT_LINK_SPEED_SUPPORTED_F) == 0xA);
    CHECK(field(b, IB_PORT_STATE_F) == 3);
    CHECK(field(b, IB_PORT_PHYS_STATE_F) == 0x5);
    CHECK(field(b, IB_PORT_LINK_DOWN_DEF_F) == 0xC);
    CHECK(field(b, IB_PORT_MKEY_PROT_BITS_F) == 0x2);
    CHECK(field(b, IB_PORT_LMC_F) == 0x5);
    CHECK(field(b, IB_PORT_LINK_SPEED_ACTIVE_F) == 0x9);
    CHECK(field(b, IB_PORT_LINK_SPEED_ENABLED_F) == 0x6);
    CHECK(field(b, IB_PORT_NEIGHBOR_MTU_F) == 0xB);
    CHECK(field(b, IB_PORT_SMSL_F) == 0x4);
    CHECK(field(b, IB_PORT_VL_CAP_F) == 0xD);
    CHECK(field(b, IB_PORT_INIT_TYPE_F) == 0x2);
    CHECK(field(b, IB_PORT_VL_HIGH_LIMIT_F) == 0x77);
    CHECK(field(b, IB_PORT_VL_ARBITRATION_HIGH_CAP_F) == 0x88);
    CHECK(field(b, IB_PORT_VL_ARBITRATION_LOW_CAP_F) == 0x99);
    CHECK(field(b, IB_PORT_INIT_TYPE_REPLY_F) == 0xE);
    CHECK(field(b, IB_PORT_MTU_CAP_F) == 0x1);
    CHECK(field(b, IB_PORT_VL_STALL_COUNT_F) == 0x5);
    CHECK(field(b, IB_PORT_HOQ_LIFE_F) == 0x13);
    CHECK(field(b, IB_PORT_OPER_VLS_F) == 0x3);
    CHECK(field(b, IB_PORT_PART_EN_INB_F) == 1);
    CHECK(field(b, IB_PORT_PART_EN_OUTB_F) == 0);
    CHECK(field(b, IB_PORT_FILTER_RAW_INB_F) == 0);
    CHECK(field(b, IB_PORT_FILTER_RAW_OUTB_F) == 1);
    CHECK(field(b, IB_PORT_MKEY_VIOL_F) == 0xAAAA);
    CHECK(field(b, IB_PORT_PKEY_VIOL_F) == 0xBBBB);
    CHECK(field(b, IB_PORT_QKEY_VIOL_F) == 0xCCCC);
    CHECK(field(b, IB_PORT_GUID_CAP_F) == 0xDD);
    CHECK(field(b, IB_PORT_CLIENT_REREG_F) == 1);
    CHECK(field(b, IB_PORT_MCAST_PKEY_SUPR_ENAB_F) == 0);
    CHECK(field(b, IB_PORT_SUBN_TIMEOUT_F) == 0x15);
    CHECK(field(b, IB_PORT_RESP_TIME_VAL_F) == 0x0B);
    CHECK(field(b, IB_PORT_LOCAL_PHYS_ERR_F) == 0x7);
    CHECK(field(b, IB_PORT_OVERRUN_ERR_F) == 0x8);
    CHECK(field(b, IB_PORT_MAX_CREDIT_HINT_F) == 0xEEEE);
    CHECK(field(b, IB_PORT_LINK_ROUND_TRIP_F) == 0xABCDEF);
    CHECK(field(b, IB_PORT_CAPMASK2_F) == 0x1234);
    CHECK(field(b, IB_PORT_LINK_SPEED_EXT_ACTIVE_F) == 0x6);
    CHECK(field(b, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F) == 0x9);
    CHECK(field(b, IB_PORT_LINK_SPEED_EXT_ENABLED_F) == 0x1E);

    // And the other way: libibmad writes, we decode.
    Block w{};
    mad_set_field(w.data(), 0, IB_PORT_STATE_F, 4);
    mad_set_field(w.data(), 0, IB_PORT_LMC_F, 6);
    mad_set_field(w.data(), 0, IB_PORT_MKEY_PROT_BITS_F, 1);
    mad_set_field(w.data(), 0, IB_PORT_HOQ_LIFE_F, 0x1F);
    mad_set_field(w.data(), 0, IB_PORT_SUBN_TIMEOUT_F, 0x12);
    mad_set_field(w.data(), 0, IB_PORT_LINK_ROUND_TRIP_F, 0x123456);
    mad_set_field(w.data(), 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 0x11);
    auto d = decode_port_info(w);
    REQUIRE(d);
    CHECK(d->port_state == PortState::active);
    CHECK(d->lmc == 6);
    CHECK(d->mkey_protect_bits == 1);
    CHECK(d->hoq_life == 0x1F);
    CHECK(d->subnet_timeout == 0x12);
    CHECK(d->link_round_trip_latency == 0x123456);
    CHECK(d->link_speed_ext_enabled == 0x11);
    CHECK(d->vl_stall_count == 0);
}

TEST_CASE("NodeInfo fields agree with libibmad")
{
    NodeInfo v;
    v.base_version = 1;
    v.class_version = 2;
    v.node_type = NodeKind::switch_node;
    v.num_ports = 36;
    v.system_image_guid = Guid(0x0102030405060708ull);
    v.node_guid = Guid(0x1112131415161718ull);
    v.port_guid = Guid(0x2122232425262728ull);
    v.partition_cap = 0xA1B2;
    v.device_id = 0xC3D4;
    v.revision = 0xE5F60718;
    v.local_port_num = PortNum(9);
    v.vendor_id = 0x02C9AB;
    Block b{};
    encode(v, b);
    CHECK(field(b, IB_NODE_BASE_VERS_F) == 1);
    CHECK(field(b, IB_NODE_CLASS_VERS_F) == 2);
    CHECK(field(b, IB_NODE_TYPE_F) == 2);
    CHECK(field(b, IB_NODE_NPORTS_F) == 36);
    CHECK(field64(b, IB_NODE_SYSTEM_GUID_F) == 0x0102030405060708ull);
    CHECK(field64(b, IB_NODE_GUID_F) == 0x1112131415161718ull);
    CHECK(field64(b, IB_NODE_PORT_GUID_F) == 0x2122232425262728ull);
    CHECK(field(b, IB_NODE_PARTITION_CAP_F) == 0xA1B2);
    CHECK(field(b, IB_NODE_DEVID_F) == 0xC3D4);
    CHECK(field(b, IB_NODE_REVISION_F) == 0xE5F60718);
    CHECK(field(b, IB_NODE_LOCAL_PORT_F) == 9);
    CHECK(field(b, IB_NODE_VENDORID_F) == 0x02C9AB);
}

TEST_CASE("SwitchInfo fields agree with libibmad")
{
    const SwitchInfo v = test::sample_switch_info();
    Block b{};
    encode(v, b);
    CHECK(field(b, IB_SW_LINEAR_FDB_CAP_F) == 0xC000);
    CHECK(field(b, IB_SW_RANDOM_FDB_CAP_F) == 0x1234);
    CHECK(field(b, IB_SW_MCAST_FDB_CAP_F) == 0x0400);
    CHECK(field(b, IB_SW_LINEAR_FDB_TOP_F) == 0xBFFF);
    CHECK(field(b, IB_SW_DEF_PORT_F) == 0x11);
    CHECK(field(b, IB_SW_DEF_MCAST_PRIM_F) == 0x22);
    CHECK(field(b, IB_SW_DEF_MCAST_NOT_PRIM_F) == 0x33);
    CHECK(field(b, IB_SW_LIFE_TIME_F) == 0x15);
    CHECK(field(b, IB_SW_STATE_CHANGE_F) == 1);
    CHECK(field(b, IB_SW_OPT_SLTOVL_MAPPING_F) == 2);
    CHECK(field(b, IB_SW_LIDS_PER_PORT_F) == 0x4455);
    CHECK(field(b, IB_SW_PARTITION_ENFORCE_CAP_F) == 0x6677);
    CHECK(field(b, IB_SW_PARTITION_ENF_INB_F) == 1);
    CHECK(field(b, IB_SW_PARTITION_ENF_OUTB_F) == 0);
    CHECK(field(b, IB_SW_FILTER_RAW_INB_F) == 1);
    CHECK(field(b, IB_SW_FILTER_RAW_OUTB_F) == 0);
    CHECK(field(b, IB_SW_ENHANCED_PORT0_F) == 1);
    CHECK(field(b, IB_SW_MCAST_FDB_TOP_F) == 0xC123);
}

TEST_CASE("SMInfo fields agree with libibmad")
{
    SmInfo v;
    v.guid = Guid(0x0002C90300A1B2C3ull);
    v.sm_key = 0x0123456789ABCDEFull;
    v.act_count = 0xFEDCBA98;
    v.priority = 0xD;
    v.sm_state = SmState::master;
    Block b{};
    encode(v, b);
    CHECK(field64(b, IB_SMINFO_GUID_F) == 0x0002C90300A1B2C3ull);
    CHECK(field64(b, IB_SMINFO_KEY_F) == 0x0123456789ABCDEFull);
    CHECK(field(b, IB_SMINFO_ACT_F) == 0xFEDCBA98);
    CHECK(field(b, IB_SMINFO_PRIO_F) == 0xD);
    CHECK(field(b, IB_SMINFO_STATE_F) == 3);
}

TEST_CASE("Notice fields agree with libibmad")
{
    Notice n;
    n.is_generic = true;
    n.type = notice_type::informational;
    n.producer_type_or_vendor_id = 0xABCDEF;
    n.trap_number_or_device_id = trap::local_changes;
    n.issuer_lid = Lid(0x0102);
    n.notice_toggle = true;
    n.notice_count = 0x1234;
    LocalChangesDetails c;
    c.lid = Lid(0x0304);
    c.capability_mask = 0x0050C04A;
    n.details = c;
    Block b{};
    encode(n, b);
    CHECK(field(b, IB_NOTICE_IS_GENERIC_F) == 1);
    CHECK(field(b, IB_NOTICE_TYPE_F) == 4);
    CHECK(field(b, IB_NOTICE_PRODUCER_F) == 0xABCDEF);
    CHECK(field(b, IB_NOTICE_TRAP_NUMBER_F) == 144);
    CHECK(field(b, IB_NOTICE_ISSUER_LID_F) == 0x0102);
    CHECK(field(b, IB_NOTICE_TOGGLE_F) == 1);
    CHECK(field(b, IB_NOTICE_COUNT_F) == 0x1234);
    CHECK(field(b, IB_NOTICE_DATA_144_LID_F) == 0x0304);
    CHECK(field(b, IB_NOTICE_DATA_144_CAPMASK_F) == 0x0050C04A);

    n.trap_number_or_device_id = trap::link_state_change;
    n.details = LinkStateChangeDetails{Lid(0x0506)};
    encode(n, b);
    CHECK(field(b, IB_NOTICE_DATA_LID_F) == 0x0506);
}
