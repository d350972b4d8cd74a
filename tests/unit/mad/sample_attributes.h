// A PortInfo and a SwitchInfo with a distinct value in every field,
// bit-packed neighbours included (and alternating flags), so a shifted or
// mis-sized field shows up. Shared by the codec round-trip tests and the
// libibmad field-table cross-check.
#pragma once

#include "mad/port_info.h"
#include "mad/switch_info.h"

namespace ibsm::mad::test {

inline PortInfo sample_port_info()
{
    PortInfo v;
    v.mkey = 0x0102030405060708ull;
    v.gid_prefix = 0xFE80000000000001ull;
    v.lid = Lid(0x1234);
    v.master_sm_lid = Lid(0x5678);
    v.capability_mask = 0x9ABCDEF0;
    v.diag_code = 0x1357;
    v.mkey_lease_period = 0x2468;
    v.local_port_num = PortNum(0x11);
    v.link_width_enabled = 0x22;
    v.link_width_supported = 0x33;
    v.link_width_active = 0x44;
    v.link_speed_supported = 0xA;          // 4 bits | neighbours 4 bits
    v.port_state = PortState::armed;       //
    v.port_phys_state = 0x5;
    v.link_down_default_state = 0xC;
    v.mkey_protect_bits = 0x2;
    v.lmc = 0x5;
    v.link_speed_active = 0x9;
    v.link_speed_enabled = 0x6;
    v.neighbor_mtu = 0xB;
    v.master_sm_sl = 0x4;
    v.vl_cap = 0xD;
    v.init_type = 0x2;
    v.vl_high_limit = 0x77;
    v.vl_arb_high_cap = 0x88;
    v.vl_arb_low_cap = 0x99;
    v.init_type_reply = 0xE;
    v.mtu_cap = 0x1;
    v.vl_stall_count = 0x5;
    v.hoq_life = 0x13;
    v.operational_vls = 0x3;
    v.partition_enforcement_inbound = true;
    v.partition_enforcement_outbound = false;
    v.filter_raw_inbound = false;
    v.filter_raw_outbound = true;
    v.mkey_violations = 0xAAAA;
    v.pkey_violations = 0xBBBB;
    v.qkey_violations = 0xCCCC;
    v.guid_cap = 0xDD;
    v.client_reregister = true;
    v.subnet_timeout = 0x15;
    v.resp_time_value = 0x0B;
    v.local_phy_errors = 0x7;
    v.overrun_errors = 0x8;
    v.max_credit_hint = 0xEEEE;
    v.link_round_trip_latency = 0xABCDEF;
    v.capability_mask2 = 0x1234;
    v.link_speed_ext_active = 0x6;
    v.link_speed_ext_supported = 0x9;
    v.link_speed_ext_enabled = 0x1E;
    return v;
}

inline SwitchInfo sample_switch_info()
{
    SwitchInfo v;
    v.linear_fdb_cap = 0xC000;
    v.random_fdb_cap = 0x1234;
    v.multicast_fdb_cap = 0x0400;
    v.linear_fdb_top = 0xBFFF;
    v.default_port = 0x11;
    v.default_mcast_primary_port = 0x22;
    v.default_mcast_not_primary_port = 0x33;
    v.life_time_value = 0x15;
    v.port_state_change = true;
    v.optimized_sl2vl_mapping = 0x2;
    v.lids_per_port = 0x4455;
    v.partition_enforcement_cap = 0x6677;
    v.inbound_enforcement_cap = true;
    v.outbound_enforcement_cap = false;
    v.filter_raw_inbound_cap = true;
    v.filter_raw_outbound_cap = false;
    v.enhanced_port0 = true;
    v.multicast_fdb_top = 0xC123;
    return v;
}

} // namespace ibsm::mad::test
