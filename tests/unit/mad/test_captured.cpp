// Decoding MADs a real SMA produced: ibsim's answers on the example net file
// (/usr/share/doc/ibsim-utils/net-examples/net), captured with
// tests/tools/capture_smp into tests/data/mad (see the README there).
// Every expected value below is copied from what infiniband-diags printed
// for the same node on the same simulator run (smpquery / ibroute / sminfo,
// saved next to each capture as *.smpquery.txt etc.), never from our own
// decoder. Path "0" is Switch1 (the simulator attaches us to its port 0),
// "0,1" is Hca1 behind Switch1 port 1.
#include "captured_mad.h"

#include "mad/linear_forwarding_table.h"
#include "mad/node_description.h"
#include "mad/node_info.h"
#include "mad/notice.h"
#include "mad/port_info.h"
#include "mad/sl2vl_table.h"
#include "mad/sm_info.h"
#include "mad/switch_info.h"
#include "mad/vl_arbitration.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::mad;
using ibsm::mad::test::load_captured;

namespace {

// Every capture is the GetResp to our DR Get: check the header before the
// data, so a decode test cannot pass on the wrong packet.
Smp load_response(const std::string& name, std::uint16_t attr_id, std::uint32_t attr_mod, std::uint8_t hops)
{
    Smp smp = load_captured(name);
    INFO(name);
    CHECK(smp.base_version() == 1);
    CHECK(smp.mgmt_class() == mgmt_class_directed_route);
    CHECK(smp.method() == static_cast<std::uint8_t>(Method::get_resp));
    CHECK(smp.direction_inbound());
    CHECK(smp.status() == 0);
    CHECK(smp.hop_count() == hops);
    CHECK(smp.attr_id() == attr_id);
    CHECK(smp.attr_mod() == attr_mod);
    CHECK(smp.dr_slid() == Lid(Lid::permissive));
    CHECK(smp.dr_dlid() == Lid(Lid::permissive));
    // We sent TIDs 0x5a5a0000 | attribute; ibsim keeps the low 32 bits.
    CHECK((smp.tid() & 0xFFFFFFFFu) == (0x5a5a0000u | attr_id));
    return smp;
}

} // namespace

TEST_CASE("captured NodeInfo of Switch1 and Hca1")
{
    const auto sw = load_response("switch1_nodeinfo.hex", attr::node_info, 0, 0);
    auto ni = decode_node_info(sw.data());
    REQUIRE(ni);
    // smpquery -D nodeinfo 0
    CHECK(ni->base_version == 1);
    CHECK(ni->class_version == 1);
    CHECK(ni->node_type == NodeKind::switch_node);
    CHECK(ni->num_ports == 8);
    CHECK(ni->system_image_guid == Guid(0x0000000000200000));
    CHECK(ni->node_guid == Guid(0x0000000000200000));
    CHECK(ni->port_guid == Guid(0x0000000000200000));
    CHECK(ni->partition_cap == 8);
    CHECK(ni->device_id == 0x0000);
    CHECK(ni->revision == 0x000000a1);
    CHECK(ni->local_port_num == PortNum(0));
    CHECK(ni->vendor_id == 0x000000);

    const auto ca = load_response("hca1_nodeinfo.hex", attr::node_info, 0, 1);
    CHECK(ca.initial_path(1) == 1);
    CHECK(ca.return_path(1) == 1);
    ni = decode_node_info(ca.data());
    REQUIRE(ni);
    // smpquery -D nodeinfo 0,1
    CHECK(ni->base_version == 1);
    CHECK(ni->class_version == 1);
    CHECK(ni->node_type == NodeKind::ca);
    CHECK(ni->num_ports == 2);
    CHECK(ni->system_image_guid == Guid(0x0000000000100000));
    CHECK(ni->node_guid == Guid(0x0000000000100000));
    CHECK(ni->port_guid == Guid(0x0000000000100001));
    CHECK(ni->partition_cap == 64);
    CHECK(ni->device_id == 0x0000);
    CHECK(ni->revision == 0x000000a1);
    CHECK(ni->local_port_num == PortNum(1));
    CHECK(ni->vendor_id == 0x000000);
}

TEST_CASE("captured NodeDescription")
{
    // smpquery -D nodedesc 0 / 0,1
    auto nd = decode_node_description(load_response("switch1_nodedesc.hex", attr::node_description, 0, 0).data());
    REQUIRE(nd);
    CHECK(nd->text == "Switch1");
    nd = decode_node_description(load_response("hca1_nodedesc.hex", attr::node_description, 0, 1).data());
    REQUIRE(nd);
    CHECK(nd->text == "Hca1");
}

TEST_CASE("captured PortInfo of Switch1 port 0 (the switch's management port)")
{
    auto pi = decode_port_info(load_response("switch1_port0_portinfo.hex", attr::port_info, 0, 0).data());
    REQUIRE(pi);
    // smpquery -D portinfo 0 0
    CHECK(pi->gid_prefix == 0xfe80000000000000ull);
    CHECK(pi->lid == Lid(1));
    CHECK(pi->master_sm_lid == Lid(1));
    CHECK(pi->capability_mask == 0xc048);
    CHECK(pi->diag_code == 0x0000);
    CHECK(pi->mkey_lease_period == 4089);
    CHECK(pi->local_port_num == PortNum(0));
    CHECK(pi->link_width_enabled == 2);      // 4X
    CHECK(pi->link_width_supported == 0x1f); // 1X or 4X or 8X or 12X or 2X
    CHECK(pi->link_width_active == 2);       // 4X
    CHECK(pi->link_speed_supported == 7);    // 2.5 or 5.0 or 10.0 Gbps
    CHECK(pi->port_state == PortState::active);
    CHECK(pi->port_phys_state == 5);         // LinkUp
    CHECK(pi->link_down_default_state == 2); // Polling
    CHECK(pi->mkey_protect_bits == 0);
    CHECK(pi->lmc == 0);
    CHECK(pi->link_speed_active == 1);  // 2.5 Gbps
    CHECK(pi->link_speed_enabled == 1); // 2.5 Gbps
    CHECK(pi->neighbor_mtu == 1);       // 256
    CHECK(pi->master_sm_sl == 0);
    CHECK(pi->vl_cap == 4); // VL0-7
    CHECK(pi->init_type == 0);
    CHECK(pi->vl_high_limit == 0);
    CHECK(pi->vl_arb_high_cap == 8);
    CHECK(pi->vl_arb_low_cap == 8);
    CHECK(pi->init_type_reply == 0);
    CHECK(pi->mtu_cap == 3); // 1024
    CHECK(pi->vl_stall_count == 0);
    CHECK(pi->hoq_life == 0);
    CHECK(pi->operational_vls == 4); // VL0-7
    CHECK_FALSE(pi->partition_enforcement_inbound);
    CHECK_FALSE(pi->partition_enforcement_outbound);
    CHECK_FALSE(pi->filter_raw_inbound);
    CHECK_FALSE(pi->filter_raw_outbound);
    CHECK(pi->mkey_violations == 0);
    CHECK(pi->pkey_violations == 0);
    CHECK(pi->qkey_violations == 0);
    CHECK(pi->guid_cap == 1);
    CHECK_FALSE(pi->client_reregister);
    CHECK(pi->subnet_timeout == 31);
    CHECK(pi->resp_time_value == 8);
    CHECK(pi->local_phy_errors == 0);
    CHECK(pi->overrun_errors == 0);
    CHECK(pi->max_credit_hint == 0);
    CHECK(pi->link_round_trip_latency == 0);
    CHECK(pi->capability_mask2 == 0x30);
    CHECK(pi->link_speed_ext_active == 0);
    CHECK(pi->link_speed_ext_supported == 0);
    CHECK(pi->link_speed_ext_enabled == 0);
}

TEST_CASE("captured PortInfo of Switch1 port 3 (a switch-to-switch link)")
{
    const auto smp = load_response("switch1_port3_portinfo.hex", attr::port_info, 3, 0);
    auto pi = decode_port_info(smp.data());
    REQUIRE(pi);
    // smpquery -D portinfo 0 3: external switch ports carry no LID/SM data.
    CHECK(pi->gid_prefix == 0);
    CHECK(pi->lid == Lid(0));
    CHECK(pi->master_sm_lid == Lid(0));
    CHECK(pi->capability_mask == 0);
    CHECK(pi->mkey_lease_period == 0);
    CHECK(pi->local_port_num == PortNum(0));
    CHECK(pi->link_width_enabled == 2);
    CHECK(pi->link_width_supported == 0x1f);
    CHECK(pi->link_width_active == 2);
    CHECK(pi->link_speed_supported == 7);
    CHECK(pi->port_state == PortState::active);
    CHECK(pi->port_phys_state == 5);
    CHECK(pi->link_down_default_state == 2);
    CHECK(pi->link_speed_active == 1);
    CHECK(pi->link_speed_enabled == 1);
    CHECK(pi->neighbor_mtu == 4); // 2048
    CHECK(pi->vl_cap == 4);
    CHECK(pi->vl_arb_high_cap == 8);
    CHECK(pi->vl_arb_low_cap == 8);
    CHECK(pi->mtu_cap == 4); // 2048
    CHECK(pi->vl_stall_count == 7);
    CHECK(pi->hoq_life == 18);
    CHECK(pi->operational_vls == 4);
    CHECK(pi->guid_cap == 0);
    CHECK(pi->subnet_timeout == 0);
    CHECK(pi->resp_time_value == 0);
    CHECK(pi->capability_mask2 == 0);
}

TEST_CASE("captured PortInfo of Hca1 port 1")
{
    auto pi = decode_port_info(load_response("hca1_portinfo.hex", attr::port_info, 1, 1).data());
    REQUIRE(pi);
    // smpquery -D portinfo 0,1 1
    CHECK(pi->gid_prefix == 0xfe80000000000000ull);
    CHECK(pi->lid == Lid(8));
    CHECK(pi->master_sm_lid == Lid(1));
    CHECK(pi->capability_mask == 0x50c048);
    CHECK(pi->mkey_lease_period == 4089);
    CHECK(pi->local_port_num == PortNum(1));
    CHECK(pi->link_width_active == 2);
    CHECK(pi->port_state == PortState::active);
    CHECK(pi->port_phys_state == 5);
    CHECK(pi->neighbor_mtu == 4);
    CHECK(pi->mtu_cap == 4);
    CHECK(pi->vl_stall_count == 7);
    CHECK(pi->hoq_life == 0);
    CHECK(pi->operational_vls == 4);
    CHECK(pi->guid_cap == 32);
    CHECK(pi->subnet_timeout == 31);
    CHECK(pi->resp_time_value == 0);
    CHECK(pi->capability_mask2 == 0x30);
}

TEST_CASE("captured SwitchInfo of Switch1")
{
    auto si = decode_switch_info(load_response("switch1_switchinfo.hex", attr::switch_info, 0, 0).data());
    REQUIRE(si);
    // smpquery -D switchinfo 0
    CHECK(si->linear_fdb_cap == 30720);
    CHECK(si->random_fdb_cap == 0);
    CHECK(si->multicast_fdb_cap == 1024);
    CHECK(si->linear_fdb_top == 8);
    CHECK(si->default_port == 0);
    CHECK(si->default_mcast_primary_port == 0);
    CHECK(si->default_mcast_not_primary_port == 0);
    CHECK(si->life_time_value == 18);
    CHECK_FALSE(si->port_state_change);
    CHECK(si->optimized_sl2vl_mapping == 0);
    CHECK(si->lids_per_port == 0);
    CHECK(si->partition_enforcement_cap == 64);
    CHECK_FALSE(si->inbound_enforcement_cap);
    CHECK_FALSE(si->outbound_enforcement_cap);
    CHECK(si->filter_raw_inbound_cap);
    CHECK(si->filter_raw_outbound_cap);
    CHECK_FALSE(si->enhanced_port0);
    CHECK(si->multicast_fdb_top == 0x0000);
}

TEST_CASE("captured LinearForwardingTable block 0 of Switch1")
{
    auto lft = decode_linear_forwarding_table(load_response("switch1_lft_block0.hex", attr::linear_forwarding_table, 0, 0).data());
    REQUIRE(lft);
    // ibroute -D 0: LID 1 -> port 0, 2 -> 2, 3 -> 3, 8 -> 1; no other valid LID.
    CHECK(lft->ports[1] == 0);
    CHECK(lft->ports[2] == 2);
    CHECK(lft->ports[3] == 3);
    CHECK(lft->ports[8] == 1);
    for (std::size_t lid : {0u, 4u, 5u, 6u, 7u, 9u, 63u}) {
        INFO("LID " << lid);
        CHECK(lft->ports[lid] == lft_no_route);
    }
}

TEST_CASE("captured SL2VL tables")
{
    // smpquery -D sl2vl 0 3 ("in 1, out 3" row) and smpquery -D sl2vl 0,1:
    // SL i -> VL i for SL 0..14, SL15 -> VL7.
    Sl2VlTable expected;
    for (std::uint8_t sl = 0; sl < 15; ++sl) expected.vl[sl] = sl;
    expected.vl[15] = 7;
    auto t = decode_sl2vl_table(
        load_response("switch1_sl2vl_in1_out3.hex", attr::sl2vl_table, sl2vl_attr_mod(PortNum(1), PortNum(3)), 0).data());
    REQUIRE(t);
    CHECK(*t == expected);
    t = decode_sl2vl_table(load_response("hca1_sl2vl.hex", attr::sl2vl_table, 0, 1).data());
    REQUIRE(t);
    CHECK(*t == expected);
}

TEST_CASE("captured VLArbitration tables")
{
    // smpquery -D vlarb 0 1, low priority table (cap 8 entries):
    // VL 0..7, weights 0,4,4,4,4,4,4,4; entries past the cap read as zero.
    auto t = decode_vl_arbitration(load_response("switch1_port1_vlarb_low.hex", attr::vl_arbitration,
                                                 vl_arb_attr_mod(VlArbBlock::low_0_31, PortNum(1)), 0)
                                       .data());
    REQUIRE(t);
    for (std::uint8_t i = 0; i < 8; ++i) {
        INFO("entry " << int(i));
        CHECK(t->entries[i].vl == i);
        CHECK(t->entries[i].weight == (i == 0 ? 0 : 4));
    }
    for (std::size_t i = 8; i < 32; ++i) CHECK(t->entries[i] == VlArbEntry{});

    // smpquery -D vlarb 0,1, high priority table: VL 0..7, weights 4,0,...,0.
    t = decode_vl_arbitration(load_response("hca1_vlarb_high.hex", attr::vl_arbitration,
                                            vl_arb_attr_mod(VlArbBlock::high_0_31, PortNum(0)), 1)
                                  .data());
    REQUIRE(t);
    for (std::uint8_t i = 0; i < 8; ++i) {
        INFO("entry " << int(i));
        CHECK(t->entries[i].vl == i);
        CHECK(t->entries[i].weight == (i == 0 ? 4 : 0));
    }
}

TEST_CASE("captured SMInfo of an OpenSM on Hca1")
{
    auto sm = decode_sm_info(load_response("hca1_sminfo.hex", attr::sm_info, 0, 1).data());
    REQUIRE(sm);
    // sminfo -D 0,1: "sm guid 0x100001, activity count 67 priority 7 state 3
    // SMINFO_MASTER". The activity count ticks: sminfo asked a moment after
    // the capture, which holds 66. SM_Key 1 is OpenSM's default (sminfo does
    // not print it).
    CHECK(sm->guid == Guid(0x100001));
    CHECK(sm->act_count == 66);
    CHECK(sm->priority == 7);
    CHECK(sm->sm_state == SmState::master);
    CHECK(sm->sm_key == 1);
}

TEST_CASE("captured trap 144 from Hca1 (capability mask changed)")
{
    const Smp smp = load_captured("hca1_trap144.hex");
    CHECK(smp.mgmt_class() == mgmt_class_lid_routed);
    CHECK(smp.method() == static_cast<std::uint8_t>(Method::trap));
    CHECK(smp.attr_id() == attr::notice);
    auto n = decode_notice(smp.data());
    REQUIRE(n);
    // ibsim's encode_trap144: generic, Informational, producer = node type
    // (CA), issuer = the port's LID (8, smpquery -D portinfo 0,1 1); the
    // new CapabilityMask is the one smpquery printed (0x50c048) plus IsSM
    // (0x2), which the capture tool set by claiming the port's issm device.
    CHECK(n->is_generic);
    CHECK(n->type == notice_type::informational);
    CHECK(n->producer_type_or_vendor_id == 1);
    CHECK(n->trap_number_or_device_id == trap::local_changes);
    CHECK(n->issuer_lid == Lid(8));
    CHECK_FALSE(n->notice_toggle);
    CHECK(n->notice_count == 0);
    const auto* c = std::get_if<LocalChangesDetails>(&n->details);
    REQUIRE(c);
    CHECK(c->lid == Lid(8));
    CHECK(c->capability_mask == (0x50c048u | 0x2u));
    CHECK_FALSE(c->other_local_changes);
    CHECK(c->change_flags == 0);
    CHECK(c->capability_mask2 == 0);
}

TEST_CASE("captured trap 128 from Switch1 (link state change)")
{
    const Smp smp = load_captured("switch1_trap128.hex");
    CHECK(smp.mgmt_class() == mgmt_class_lid_routed);
    CHECK(smp.method() == static_cast<std::uint8_t>(Method::trap));
    CHECK(smp.attr_id() == attr::notice);
    auto n = decode_notice(smp.data());
    REQUIRE(n);
    // Sent when 'Unlink "Switch1"[4]' was typed on the ibsim console; ibsim's
    // encode_trap128: generic, Urgent, producer Switch, issuer and LIDADDR
    // = Switch1's LID (1, smpquery -D portinfo 0 0).
    CHECK(n->is_generic);
    CHECK(n->type == notice_type::urgent);
    CHECK(n->producer_type_or_vendor_id == 2);
    CHECK(n->trap_number_or_device_id == trap::link_state_change);
    CHECK(n->issuer_lid == Lid(1));
    const auto* l = std::get_if<LinkStateChangeDetails>(&n->details);
    REQUIRE(l);
    CHECK(l->lid == Lid(1));
}
