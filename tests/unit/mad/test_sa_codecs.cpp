// SA codecs: the header, every record round trip, and the records OpenSM's
// SA answered on ibsim (tests/data/sa, see capture_opensm.sh) decoded and
// re-encoded byte for byte, their fields checked against what smpquery,
// dump_fts and sminfo read from the same simulated fabric.
#include "mad/sa/component_mask.h"
#include "mad/sa/records.h"
#include "mad/sa/sa_mad.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#ifndef IBSM_SA_TEST_DATA_DIR
#error "IBSM_SA_TEST_DATA_DIR must name tests/data/sa"
#endif

using namespace ibsm;
using namespace ibsm::mad::sa;

namespace {

// The first MAD of a capture (224 bytes: what umad2sim delivers).
std::vector<std::uint8_t> captured_mad(const std::string& name)
{
    std::ifstream in(std::string(IBSM_SA_TEST_DATA_DIR) + "/" + name);
    REQUIRE(in);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with("mad ")) continue;
        std::vector<std::uint8_t> out;
        for (std::size_t i = 4; i + 1 < line.size(); i += 2) out.push_back(static_cast<std::uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
        return out;
    }
    FAIL(name << ": no MAD");
    return {};
}

// The first record of a captured answer (the data area from byte 56).
std::vector<std::uint8_t> captured_record(const std::string& name, std::size_t size)
{
    auto mad = captured_mad(name);
    REQUIRE(mad.size() >= header_size + size);
    return {mad.begin() + header_size, mad.begin() + static_cast<std::ptrdiff_t>(header_size + size)};
}

// "Key:......value" from an smpquery dump.
std::string smpquery_value(const std::string& file, const std::string& key)
{
    std::ifstream in(std::string(IBSM_SA_TEST_DATA_DIR) + "/" + file);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with(key + ":")) continue;
        auto v = line.substr(line.find_first_not_of('.', key.size() + 1));
        return v;
    }
    FAIL(file << ": no " << key);
    return {};
}
std::uint64_t smpquery_number(const std::string& file, const std::string& key)
{
    return std::stoull(smpquery_value(file, key), nullptr, 0);
}

std::vector<std::uint8_t> pad(std::vector<std::uint8_t> v, std::size_t n)
{
    v.resize(std::max(v.size(), n), 0);
    return v;
}

} // namespace

TEST_CASE("SA header: round trip and field positions", "[sa]")
{
    SaHeader h;
    h.method = method::get_table;
    h.status = status::no_records;
    h.tid = 0x0102030405060708ull;
    h.attr_id = attr::path_record;
    h.attr_mod = 0xa0b0c0d0;
    h.rmpp = RmppHeader{1, RmppType::data, 0x1f, rmpp_flag::active | rmpp_flag::first, 0, 7, 420};
    h.sm_key = 0x1122334455667788ull;
    h.attr_offset = 8;
    h.component_mask = 0x30;
    const auto m = make_mad(h);
    CHECK(decode_header(m) == h);
    CHECK(m[1] == 0x03);
    CHECK(m[2] == 2);
    CHECK(m[3] == 0x12);
    CHECK(m[4] == 0x03); // status 0x0300, big-endian
    CHECK(m[16] == 0x00);
    CHECK(m[17] == 0x35);
    CHECK(m[25] == 1);                      // RMPP type DATA
    CHECK(m[26] == ((0x1f << 3) | 0x3));    // RRespTime | Active | First
    CHECK(m[31] == 7);                      // segment number
    CHECK(m[36] == 0x11);                   // SM_Key
    CHECK(m[45] == 8);                      // AttributeOffset
    CHECK(m[55] == 0x30);                   // ComponentMask
    CHECK_FALSE(decode_header(std::span<const std::uint8_t>(m.data(), 55)));
    CHECK(response_method(method::set) == method::get_resp);
    CHECK(response_method(method::get_table) == method::get_table_resp);
    CHECK(response_method(method::delete_) == method::delete_resp);
    CHECK(attr_offset_for(108) == 14);
    CHECK(attr_offset_for(64) == 8);
    CHECK(attr_offset_for(25) == 4);
}

TEST_CASE("every record round-trips through its codec", "[sa]")
{
    NodeRecord nr;
    nr.lid = Lid(9);
    nr.node_info.node_type = mad::NodeKind::switch_node;
    nr.node_info.num_ports = 36;
    nr.node_info.node_guid = Guid(0x1234);
    nr.node_info.port_guid = Guid(0x1234);
    nr.node_info.system_image_guid = Guid(0x99);
    nr.node_info.partition_cap = 8;
    nr.node_info.local_port_num = PortNum(3);
    nr.node_info.vendor_id = 0x2c9;
    nr.description.text = "switch one";
    CHECK(decode_node_record(encode(nr)) == nr);
    CHECK(encode(nr).size() == node_record_size);

    PortInfoRecord pir;
    pir.lid = Lid(4);
    pir.port_num = 7;
    pir.port_info.lid = Lid(4);
    pir.port_info.lmc = 2;
    pir.port_info.port_state = mad::PortState::active;
    pir.port_info.link_speed_ext_enabled = 0x1e;
    CHECK(decode_port_info_record(encode(pir)) == pir);

    SwitchInfoRecord swir{Lid(3), {}};
    swir.switch_info.linear_fdb_cap = 49152;
    swir.switch_info.linear_fdb_top = 300;
    swir.switch_info.life_time_value = 18;
    swir.switch_info.multicast_fdb_top = 0xc010;
    CHECK(decode_switch_info_record(encode(swir)) == swir);

    LftRecord lft;
    lft.lid = Lid(3);
    lft.block = 2;
    for (unsigned i = 0; i < 64; ++i) lft.ports[i] = static_cast<std::uint8_t>(i % 37);
    CHECK(decode_lft_record(encode(lft)) == lft);

    SmInfoRecord smir{Lid(1), {Guid(0x55), 0x77, 1000, 14, mad::SmState::master}};
    CHECK(decode_sm_info_record(encode(smir)) == smir);

    LinkRecord lr{Lid(1), 1, 5, Lid(2)};
    CHECK(decode_link_record(encode(lr)) == lr);

    GuidInfoRecord gir;
    gir.lid = Lid(5);
    gir.block = 1;
    gir.guids[0] = Guid(0xabc);
    gir.guids[7] = Guid(0xdef);
    CHECK(decode_guid_info_record(encode(gir)) == gir);

    ServiceRecord sr;
    sr.service_id = 0x1000000000000001ull;
    sr.service_gid = make_gid(default_gid_prefix, Guid(0x100007));
    sr.service_pkey = 0xffff;
    sr.service_lease = 60;
    sr.service_key[15] = 1;
    sr.service_name[0] = 'x';
    sr.data8[15] = 8;
    sr.data16[7] = 16;
    sr.data32[3] = 32;
    sr.data64[1] = 64;
    CHECK(decode_service_record(encode(sr)) == sr);
    CHECK(encode(sr).size() == service_record_size);

    PathRecord pr;
    pr.service_id = 7;
    pr.sgid = make_gid(default_gid_prefix, Guid(1));
    pr.dgid = make_gid(default_gid_prefix, Guid(2));
    pr.slid = Lid(1);
    pr.dlid = Lid(2);
    pr.raw_traffic = true;
    pr.flow_label = 0xfffff;
    pr.hop_limit = 3;
    pr.tclass = 4;
    pr.reversible = true;
    pr.numb_path = 127;
    pr.pkey = 0x8001;
    pr.qos_class = 0xabc;
    pr.sl = 9;
    pr.mtu_selector = 2;
    pr.mtu = 4;
    pr.rate_selector = 1;
    pr.rate = 16;
    pr.packet_life_selector = 3;
    pr.packet_life = 63;
    pr.preference = 2;
    CHECK(decode_path_record(encode(pr)) == pr);

    MultiPathRecord mpr;
    mpr.numb_path = 4;
    mpr.sl = 2;
    mpr.service_id = 0xaa00000000000bbull;
    mpr.independence = 1;
    mpr.sgids = {make_gid(default_gid_prefix, Guid(1))};
    mpr.dgids = {make_gid(default_gid_prefix, Guid(2)), make_gid(default_gid_prefix, Guid(3))};
    CHECK(decode_multipath_record(encode(mpr)) == mpr);
    auto short_mpr = encode(mpr);
    short_mpr.resize(short_mpr.size() - 1);
    CHECK_FALSE(decode_multipath_record(short_mpr));

    InformInfoRecord iir;
    iir.subscriber_gid = make_gid(default_gid_prefix, Guid(5));
    iir.subscriber_enum = 3;
    iir.inform_info.lid_range_begin = Lid(0xffff);
    iir.inform_info.is_generic = true;
    iir.inform_info.subscribe = true;
    iir.inform_info.type = 0xffff;
    iir.inform_info.trap_number_or_device_id = 128;
    iir.inform_info.qpn = 0xabcdef;
    iir.inform_info.resp_time_value = 19;
    iir.inform_info.producer_type_or_vendor_id = 0xffffff;
    CHECK(decode_inform_info_record(encode(iir)) == iir);
    CHECK(decode_inform_info(encode(iir.inform_info)) == iir.inform_info);

    // Too short for the record: no value.
    CHECK_FALSE(decode_node_record(std::vector<std::uint8_t>(node_record_size - 1)));
    CHECK_FALSE(decode_path_record(std::vector<std::uint8_t>(63)));
}

TEST_CASE("MultiPathRecord: the GIDs start at byte 24, as OpenSM's ib_multipath_rec_t lays them", "[sa]")
{
    // Built byte by byte as a kernel-RMPP client (OpenSM's osmtest,
    // libibumad users) fills ib_multipath_rec_t: hop_flow_raw (4 bytes),
    // TClass, reversible|NumbPath, P_Key, QoSClass|SL, MTU, rate, packet
    // life, ServiceID's 8 MSBs, IndependenceSelector, SGIDCount,
    // DGIDCount, ServiceID's 56 LSBs, then the GIDs.
    std::vector<std::uint8_t> d(24 + 3 * 16, 0);
    d[3] = 0x40;        // HopLimit
    d[4] = 0x12;        // TClass
    d[5] = 0x80 | 5;    // reversible, NumbPath 5
    d[6] = 0xff;        // P_Key 0xffff
    d[7] = 0xff;
    d[8] = 0x00;        // QoSClass 0x003, SL 7
    d[9] = 0x37;
    d[10] = 0x80 | 4;   // MTU selector 2, 2048
    d[11] = 0x80 | 3;   // rate selector 2, 10 Gb/s
    d[12] = 0x80 | 18;  // packet life selector 2, 18
    d[13] = 0xaa;       // ServiceID's 8 MSBs
    d[14] = 0x40;       // IndependenceSelector 1
    d[15] = 1;          // SGIDCount
    d[16] = 2;          // DGIDCount
    d[23] = 0xbb;       // ServiceID's 56 LSBs
    auto gid_at = [&](std::size_t at, std::uint64_t guid) {
        const std::uint64_t prefix = default_gid_prefix;
        for (int i = 0; i < 8; ++i) {
            d[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(prefix >> (56 - 8 * i));
            d[at + 8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(guid >> (56 - 8 * i));
        }
    };
    gid_at(24, 0x0002c90000000011ull);
    gid_at(40, 0x0002c90000000022ull);
    gid_at(56, 0x0002c90000000033ull);
    const auto m = decode_multipath_record(d);
    REQUIRE(m);
    CHECK(m->hop_limit == 0x40);
    CHECK(m->tclass == 0x12);
    CHECK(m->reversible);
    CHECK(m->numb_path == 5);
    CHECK(m->pkey == 0xffff);
    CHECK(m->qos_class == 3);
    CHECK(m->sl == 7);
    CHECK(m->mtu_selector == 2);
    CHECK(m->mtu == 4);
    CHECK(m->rate == 3);
    CHECK(m->packet_life == 18);
    CHECK(m->service_id == 0xaa000000000000bbull);
    CHECK(m->independence == 1);
    REQUIRE(m->sgids.size() == 1);
    REQUIRE(m->dgids.size() == 2);
    CHECK(m->sgids[0] == make_gid(default_gid_prefix, Guid(0x0002c90000000011ull)));
    CHECK(m->dgids[0] == make_gid(default_gid_prefix, Guid(0x0002c90000000022ull)));
    CHECK(m->dgids[1] == make_gid(default_gid_prefix, Guid(0x0002c90000000033ull)));
    // And our encoder writes the same bytes back.
    CHECK(encode(*m) == d);
    // One GID short of what the counts say: no record.
    d.resize(d.size() - 16);
    CHECK_FALSE(decode_multipath_record(d));
}

TEST_CASE("component tables cover each record exactly, in field order", "[sa]")
{
    // Every component starts where the previous ended, and the last ends
    // at the record's size (the tables are the layout).
    auto contiguous = [](ComponentTable t) {
        std::size_t at = 0;
        for (const auto& c : t) {
            if (c.offset != at) return false;
            at += c.bits;
        }
        return true;
    };
    CHECK(contiguous(node_record_components()));
    CHECK(table_bytes(node_record_components()) == node_record_size);
    CHECK(contiguous(port_info_record_components()));
    CHECK(table_bytes(port_info_record_components()) == port_info_record_size);
    CHECK(port_info_record_components().size() == 58); // OpenSM's IB_PIR_COMPMASK_* count
    CHECK(contiguous(switch_info_record_components()));
    CHECK(contiguous(lft_record_components()));
    CHECK(table_bytes(lft_record_components()) == lft_record_size);
    CHECK(contiguous(sm_info_record_components()));
    CHECK(contiguous(link_record_components()));
    CHECK(table_bytes(link_record_components()) == link_record_size);
    CHECK(contiguous(guid_info_record_components()));
    CHECK(table_bytes(guid_info_record_components()) == guid_info_record_size);
    CHECK(contiguous(service_record_components()));
    CHECK(table_bytes(service_record_components()) == service_record_size);
    CHECK(service_record_components().size() == 37);
    CHECK(contiguous(path_record_components()));
    CHECK(table_bytes(path_record_components()) == path_record_size);
    CHECK(contiguous(multipath_record_components()));
    // The components end where the GIDs begin (OpenSM counts 22).
    CHECK(multipath_record_components().size() == 22);
    CHECK(table_bytes(multipath_record_components()) == multipath_record_fixed_size);
    CHECK(contiguous(inform_info_components()));
    CHECK(table_bytes(inform_info_components()) == inform_info_size);
    CHECK(contiguous(inform_info_record_components()));
    CHECK(table_bytes(inform_info_record_components()) == inform_info_record_size);
}

TEST_CASE("component-mask matching compares only the selected components", "[sa]")
{
    PortInfoRecord a;
    a.lid = Lid(4);
    a.port_num = 1;
    a.port_info.lmc = 2;               // 3 bits inside a byte (component 20)
    a.port_info.port_state = mad::PortState::active; // 4 bits (component 15)
    PortInfoRecord b = a;
    b.port_num = 2;
    b.port_info.lmc = 1;
    const auto ea = encode(a), eb = encode(b);
    const auto t = port_info_record_components();
    CHECK(matches(t, 0, ea, eb));
    CHECK(matches(t, 1u << 0, ea, eb));                 // LID equal
    CHECK_FALSE(matches(t, 1u << 1, ea, eb));           // PortNum differs
    CHECK(matches(t, 1u << 15, ea, eb));                // PortState equal
    CHECK_FALSE(matches(t, 1u << 20, ea, eb));          // LMC differs
    CHECK(matches(t, (1u << 0) | (1u << 15), ea, eb));
    CHECK_FALSE(matches(t, (1u << 0) | (1u << 20), ea, eb));
    // Neighbouring bits of a shared byte do not leak into a field: LMC
    // (bits 277..279) equal while the reserved bits before it differ.
    auto ec = ea;
    ec[4 + 34] |= 0x08; // a reserved bit just before LMC
    CHECK(matches(t, 1ull << 20, ea, ec));
    CHECK_FALSE(matches(t, 1ull << 19, ea, ec));

    CHECK(mask_valid(t, (1ull << 58) - 1));
    CHECK_FALSE(mask_valid(t, 1ull << 58));
    CHECK(mask_valid(link_record_components(), 0x1f));
    CHECK_FALSE(mask_valid(link_record_components(), 0x20));
    CHECK_FALSE(mask_valid(node_record_components(), 1ull << 63));
}

TEST_CASE("OpenSM's NodeRecords decode to what smpquery reads and re-encode byte for byte", "[sa][captured]")
{
    const auto bytes = captured_record("nr_lid5.txt", node_record_size);
    const auto r = decode_node_record(bytes);
    REQUIRE(r);
    const std::string f = "smpquery_nodeinfo_5.txt";
    CHECK(r->lid == Lid(5));
    CHECK(r->node_info.node_type == mad::NodeKind::ca);
    CHECK(r->node_info.num_ports == smpquery_number(f, "NumPorts"));
    CHECK(r->node_info.system_image_guid.value() == smpquery_number(f, "SystemGuid"));
    CHECK(r->node_info.node_guid.value() == smpquery_number(f, "Guid"));
    CHECK(r->node_info.port_guid.value() == smpquery_number(f, "PortGuid"));
    CHECK(r->node_info.partition_cap == smpquery_number(f, "PartCap"));
    CHECK(r->node_info.revision == smpquery_number(f, "Revision"));
    CHECK(r->node_info.local_port_num.value() == smpquery_number(f, "LocalPort"));
    CHECK(r->description.text == "Hca3");
    CHECK(encode(*r) == bytes);

    const auto sw = decode_node_record(captured_record("nr_lid3.txt", node_record_size));
    REQUIRE(sw);
    CHECK(sw->node_info.node_type == mad::NodeKind::switch_node);
    CHECK(sw->node_info.node_guid.value() == smpquery_number("smpquery_nodeinfo_3.txt", "Guid"));
    CHECK(sw->node_info.num_ports == 8);
    CHECK(encode(*sw) == captured_record("nr_lid3.txt", node_record_size));
}

TEST_CASE("OpenSM's PortInfoRecords match smpquery portinfo", "[sa][captured]")
{
    const auto bytes = captured_record("pir_lid5_port1.txt", port_info_record_size);
    const auto r = decode_port_info_record(bytes);
    REQUIRE(r);
    const std::string f = "smpquery_portinfo_5_1.txt";
    CHECK(r->lid == Lid(5));
    CHECK(r->port_num == 1);
    CHECK(r->port_info.lid.value() == smpquery_number(f, "Lid"));
    CHECK(r->port_info.master_sm_lid.value() == smpquery_number(f, "SMLid"));
    CHECK(r->port_info.capability_mask == smpquery_number(f, "CapMask"));
    CHECK(r->port_info.gid_prefix == smpquery_number(f, "GidPrefix"));
    CHECK(r->port_info.lmc == smpquery_number(f, "LMC"));
    CHECK(r->port_info.port_state == mad::PortState::active);
    CHECK(r->port_info.subnet_timeout == smpquery_number(f, "SubnetTimeout"));
    CHECK(encode(*r) == bytes);

    const auto swp = captured_record("pir_lid3_port5.txt", port_info_record_size);
    const auto s = decode_port_info_record(swp);
    REQUIRE(s);
    CHECK(s->lid == Lid(3));
    CHECK(s->port_num == 5);
    CHECK(s->port_info.port_state == mad::PortState::active);
    CHECK(s->port_info.link_width_active == 2); // 4X, as smpquery_portinfo_3_5.txt says
    CHECK(smpquery_value("smpquery_portinfo_3_5.txt", "LinkWidthActive") == "4X");
    CHECK(encode(*s) == swp);
}

TEST_CASE("OpenSM's SwitchInfo, LFT, Link, GUIDInfo and SMInfo records match the direct reads", "[sa][captured]")
{
    const auto swb = captured_record("swir_lid3.txt", switch_info_record_size);
    const auto sw = decode_switch_info_record(swb);
    REQUIRE(sw);
    const std::string f = "smpquery_switchinfo_3.txt";
    CHECK(sw->lid == Lid(3));
    CHECK(sw->switch_info.linear_fdb_cap == smpquery_number(f, "LinearFdbCap"));
    CHECK(sw->switch_info.multicast_fdb_cap == smpquery_number(f, "McastFdbCap"));
    CHECK(sw->switch_info.linear_fdb_top == smpquery_number(f, "LinearFdbTop"));
    CHECK(sw->switch_info.life_time_value == smpquery_number(f, "LifeTime"));
    CHECK(sw->switch_info.partition_enforcement_cap == smpquery_number(f, "PartEnforceCap"));
    CHECK(sw->switch_info.filter_raw_inbound_cap);
    CHECK(encode(*sw) == swb);

    // dump_fts_3.txt, Switch2 (LID 3): 3 -> 0, 4 -> 1, 5 -> 5, 6 -> 2.
    const auto lb = captured_record("lftr_lid3_block0.txt", lft_record_size);
    const auto lft = decode_lft_record(lb);
    REQUIRE(lft);
    CHECK(lft->lid == Lid(3));
    CHECK(lft->block == 0);
    CHECK(lft->ports[3] == 0);
    CHECK(lft->ports[4] == 1);
    CHECK(lft->ports[5] == 5);
    CHECK(lft->ports[6] == 2);
    CHECK(lft->ports[7] == 0xff);
    CHECK(encode(*lft) == lb);

    // ibnetdiscover -p: Hca3 (LID 5) port 1 - Switch1 (LID 2) port 2.
    const auto lrb = captured_record("lr_from5.txt", link_record_size);
    CHECK(decode_link_record(lrb) == LinkRecord{Lid(5), 1, 2, Lid(2)});
    CHECK(encode(*decode_link_record(lrb)) == lrb);

    const auto gb = captured_record("gir_lid5.txt", guid_info_record_size);
    const auto g = decode_guid_info_record(gb);
    REQUIRE(g);
    CHECK(g->lid == Lid(5));
    CHECK(g->guids[0] == Guid(0x100007));
    CHECK(encode(*g) == gb);

    // sminfo: sm lid 1 sm guid 0x100001, priority 0, state 3.
    const auto smb = captured_record("smir.txt", sm_info_record_size);
    const auto sm = decode_sm_info_record(smb);
    REQUIRE(sm);
    CHECK(sm->lid == Lid(1));
    CHECK(sm->sm_info.guid == Guid(0x100001));
    CHECK(sm->sm_info.priority == 0);
    CHECK(sm->sm_info.sm_state == mad::SmState::master);
    CHECK(encode(*sm) == smb);
}

TEST_CASE("OpenSM's PathRecord, ServiceRecord and InformInfo answers decode and re-encode", "[sa][captured]")
{
    const auto pb = captured_record("pr_5_to_4.txt", path_record_size);
    const auto pr = decode_path_record(pb);
    REQUIRE(pr);
    CHECK(pr->slid == Lid(5));
    CHECK(pr->dlid == Lid(4));
    CHECK(pr->sgid == make_gid(default_gid_prefix, Guid(0x100007)));
    CHECK(pr->dgid == make_gid(default_gid_prefix, Guid(0x100004)));
    CHECK(pr->reversible);
    CHECK(pr->numb_path == 0);
    CHECK(pr->pkey == 0xffff);
    CHECK(pr->mtu_selector == 2);
    CHECK(pr->rate_selector == 2);
    CHECK(pr->rate == 3); // 4x SDR: 10 Gb/s
    CHECK(pr->packet_life_selector == 2);
    CHECK(pr->packet_life == 18);
    CHECK(encode(*pr) == pb);

    // 168 of the record's 176 bytes reach a client under umad2sim.
    auto sb = captured_record("sr_get.txt", 168);
    const auto sr = decode_service_record(pad(sb, service_record_size));
    REQUIRE(sr);
    CHECK(sr->service_id == 0x1234);
    CHECK(sr->service_gid == make_gid(default_gid_prefix, Guid(0x100007)));
    CHECK(sr->service_pkey == 0xffff);
    CHECK(sr->service_lease == 0xffffffff);
    CHECK(std::string(reinterpret_cast<const char*>(sr->service_name.data())) == "ibsmd-test");
    auto re = encode(*sr);
    re.resize(168);
    CHECK(re == sb);

    const auto ib = captured_record("ii_set.txt", inform_info_size);
    const auto ii = decode_inform_info(ib);
    REQUIRE(ii);
    CHECK(ii->is_generic);
    CHECK(ii->subscribe);
    CHECK(ii->trap_number_or_device_id == 128);
    CHECK(ii->lid_range_begin == Lid(0xffff));
    CHECK(ii->producer_type_or_vendor_id == 0xffffff);
    CHECK(encode(*ii) == ib);

    const auto rb = captured_record("iir_all.txt", inform_info_record_size);
    const auto iir = decode_inform_info_record(rb);
    REQUIRE(iir);
    CHECK(iir->subscriber_gid == make_gid(default_gid_prefix, Guid(0x100007)));
    CHECK(iir->inform_info.trap_number_or_device_id == 128);
    CHECK(encode(*iir) == rb);
}

TEST_CASE("OpenSM's answers carry the header an SA answer must (C15-0.1.5)", "[sa][captured]")
{
    for (const char* name : {"nr_lid5.txt", "pir_lid5_port1.txt", "smir.txt", "pr_5_to_4.txt"}) {
        const auto h = decode_header(captured_mad(name));
        REQUIRE(h);
        INFO(name);
        CHECK(h->mgmt_class == mgmt_class);
        CHECK(h->class_version == class_version);
        CHECK(h->method == method::get_table_resp);
        CHECK(h->status == status::ok);
        CHECK(h->sm_key == 0);
    }
    CHECK(decode_header(captured_mad("nr_lid5.txt"))->attr_offset == attr_offset_for(node_record_size));
    CHECK(decode_header(captured_mad("pir_lid5_port1.txt"))->attr_offset == attr_offset_for(port_info_record_size));
    CHECK(decode_header(captured_mad("smir.txt"))->attr_offset == attr_offset_for(sm_info_record_size));
    CHECK(decode_header(captured_mad("sr_set.txt"))->method == method::get_resp);
}

TEST_CASE("the tables records: round trip, field positions, component tables", "[sa]")
{
    Sl2VlRecord sl{Lid(0x1234), 3, 7, {}};
    for (unsigned s = 0; s < 16; ++s) sl.table.vl[s] = static_cast<std::uint8_t>(s % 15);
    const auto esl = encode(sl);
    REQUIRE(esl.size() == sl2vl_record_size);
    CHECK(decode_sl2vl_record(esl) == sl);
    CHECK(esl[0] == 0x12);
    CHECK(esl[1] == 0x34);
    CHECK(esl[2] == 3); // InputPortNum
    CHECK(esl[3] == 7); // OutputPortNum
    CHECK(esl[8] == 0x01); // SL 0 -> VL 0, SL 1 -> VL 1: one nibble each
    CHECK(esl[15] == 0xe0); // SL 14 -> VL 14, SL 15 -> VL 0

    MftRecord mft{Lid(9), 3, 0x105, {}};
    mft.table.masks[0] = 0x8001;
    mft.table.masks[31] = 0x0006;
    const auto emft = encode(mft);
    REQUIRE(emft.size() == mft_record_size);
    CHECK(decode_mft_record(emft) == mft);
    // Position in the top 4 bits, BlockNum in the low 9 (OpenSM's
    // position_block_num), the masks from byte 8.
    CHECK(emft[2] == 0x31);
    CHECK(emft[3] == 0x05);
    CHECK(emft[8] == 0x80);
    CHECK(emft[9] == 0x01);
    CHECK(emft[71] == 0x06);

    PKeyTableRecord pk{Lid(5), 2, 4, {}};
    pk.table.keys[0] = 0xffff;
    pk.table.keys[31] = 0x8001;
    const auto epk = encode(pk);
    REQUIRE(epk.size() == pkey_table_record_size);
    CHECK(decode_pkey_table_record(epk) == pk);
    CHECK(epk[3] == 2); // BlockNum (16 bits)
    CHECK(epk[4] == 4); // PortNum
    CHECK(epk[8] == 0xff);
    CHECK(epk[70] == 0x80);

    VlArbRecord va{Lid(6), 2, 3, {}};
    va.table.entries[0] = {1, 64};
    va.table.entries[31] = {7, 255};
    const auto eva = encode(va);
    REQUIRE(eva.size() == vlarb_record_size);
    CHECK(decode_vlarb_record(eva) == va);
    CHECK(eva[2] == 2); // OutputPortNum
    CHECK(eva[3] == 3); // BlockNum
    CHECK(eva[8] == 1);
    CHECK(eva[9] == 64);
    CHECK(eva[70] == 7);
    CHECK(eva[71] == 255);

    CHECK_FALSE(decode_sl2vl_record(std::vector<std::uint8_t>(sl2vl_record_size - 1)));
    CHECK_FALSE(decode_mft_record(std::vector<std::uint8_t>(mft_record_size - 1)));
    CHECK_FALSE(decode_pkey_table_record(std::vector<std::uint8_t>(pkey_table_record_size - 1)));
    CHECK_FALSE(decode_vlarb_record(std::vector<std::uint8_t>(vlarb_record_size - 1)));

    // The tables are the layouts, with OpenSM's component numbering
    // (IB_SLVL_COMPMASK_*, IB_MFTR_COMPMASK_*, IB_PKEY_COMPMASK_*,
    // IB_VLA_COMPMASK_*): the table itself is the last component.
    auto contiguous = [](ComponentTable t) {
        std::size_t at = 0;
        for (const auto& c : t) {
            if (c.offset != at) return false;
            at += c.bits;
        }
        return true;
    };
    for (auto [t, size] : {std::pair{sl2vl_record_components(), sl2vl_record_size},
                           std::pair{mft_record_components(), mft_record_size},
                           std::pair{pkey_table_record_components(), pkey_table_record_size},
                           std::pair{vlarb_record_components(), vlarb_record_size}}) {
        CHECK(contiguous(t));
        CHECK(table_bytes(t) == size);
    }
    CHECK(mft_record_components()[3].offset == 23); // BlockNum is component 3
    CHECK(pkey_table_record_components()[2].offset == 32); // PortNum is component 2
    // Masks select what they name: SL2VL's OutputPortNum (bit 2) only.
    auto other = sl;
    other.in_port = 4;
    CHECK(matches(sl2vl_record_components(), 1u << 2, esl, encode(other)));
    CHECK_FALSE(matches(sl2vl_record_components(), 1u << 1, esl, encode(other)));
    CHECK(mask_valid(vlarb_record_components(), 0x1f));
    CHECK_FALSE(mask_valid(vlarb_record_components(), 0x20));
}
