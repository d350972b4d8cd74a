#include "daemon/sa/sa_records.h"

#include "daemon/sa/path_dlids.h"
#include "daemon/sa/record_collector.h"
#include "mad/sa/component_mask.h"
#include "mad/sa/records.h"

#include <algorithm>
#include <optional>

namespace ibsm::daemon {

namespace sa = mad::sa;
using topology::NodeId;
using topology::PortRef;

using namespace sa_detail;

namespace {

mad::NodeKind kind_of(topology::NodeType t)
{
    switch (t) {
    case topology::NodeType::switch_node: return mad::NodeKind::switch_node;
    case topology::NodeType::router: return mad::NodeKind::router;
    default: return mad::NodeKind::ca;
    }
}

} // namespace

SaAnswer sa_node_records(const SaRequest& req)
{
    Collector c(req, sa::node_record_components(), sa::node_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto& f = fabric_of(req);
    for_endports(req, sel, [&](PortRef p, Lid lid) {
        if (c.enough()) return;
        const auto& n = f.node(p.node);
        sa::NodeRecord r;
        r.lid = lid;
        r.node_info.node_type = kind_of(n.type);
        r.node_info.num_ports = n.num_ports();
        r.node_info.system_image_guid = n.system_guid;
        r.node_info.node_guid = n.guid;
        r.node_info.port_guid = n.is_switch() ? n.guid : n.port(p.port).guid;
        r.node_info.partition_cap = n.partition_cap;
        r.node_info.device_id = n.device_id;
        r.node_info.revision = n.revision;
        // A switch's is its management port 0, as a NodeInfo Get to its
        // LID reads it (and OpenSM's SA answers); a CA's the record's port.
        r.node_info.local_port_num = n.is_switch() ? PortNum(0) : p.port;
        r.node_info.vendor_id = n.vendor_id;
        r.description.text = n.description.substr(0, 64);
        c.offer(sa::encode(r));
    });
    return c.done();
}

SaAnswer sa_port_info_records(const SaRequest& req)
{
    Collector c(req, sa::port_info_record_components(), sa::port_info_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto& f = fabric_of(req);
    const auto& infos = req.snapshot.found.port_info;
    for_endports(req, sel, [&](PortRef endport, Lid lid) {
        const auto& n = f.node(endport.node);
        // A switch's record set is every port 0..N under its one LID.
        const unsigned first = n.is_switch() ? 0 : endport.port.value();
        const unsigned last = n.is_switch() ? n.num_ports() : endport.port.value();
        for (unsigned p = first; p <= last && !c.enough(); ++p) {
            if (c.selects(1) && c.query_u8(2) != p) continue;
            auto it = infos.find(PortRef{endport.node, PortNum(static_cast<std::uint8_t>(p))});
            if (it == infos.end()) continue;
            sa::PortInfoRecord r;
            r.lid = lid;
            r.port_num = static_cast<std::uint8_t>(p);
            r.port_info = it->second;
            // IBA 15.2.5.3: the M_Key only to a trusted requester; zeroed
            // before matching, so a query cannot probe for it either.
            if (!req.trusted) r.port_info.mkey = 0;
            c.offer(sa::encode(r));
        }
    });
    return c.done();
}

SaAnswer sa_link_records(const SaRequest& req)
{
    Collector c(req, sa::link_record_components(), sa::link_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto& s = req.snapshot;
    const auto& f = fabric_of(req);
    // FromLID and ToLID name ports (any LID of their range): normalise both.
    const auto from = c.lid_selection(0, 0);
    const auto to = c.lid_selection(3, 4);
    if ((from.asked && !from.found) || (to.asked && !to.found)) return c.done();
    auto emit = [&](PortRef a, PortRef b) {
        const auto la = base_lid(s, endport_of(s, a));
        const auto lb = base_lid(s, endport_of(s, b));
        if (!la || !lb) return;
        c.offer(sa::encode(sa::LinkRecord{*la, a.port.value(), b.port.value(), *lb}));
    };
    if (from.asked) {
        // Only the links of that node: one port for a CA, all for a switch.
        const auto& n = f.node(from.endport.node);
        for (unsigned p = 1; p <= n.num_ports(); ++p) {
            const PortRef a{from.endport.node, PortNum(static_cast<std::uint8_t>(p))};
            if (!n.is_switch() && a != from.endport) continue;
            if (auto b = f.remote(a)) emit(a, *b);
        }
        return c.done();
    }
    for (const auto& l : f.links()) {
        if (c.enough()) break;
        emit(l.a, l.b);
        emit(l.b, l.a);
    }
    return c.done();
}

SaAnswer sa_switch_info_records(const SaRequest& req)
{
    Collector c(req, sa::switch_info_record_components(), sa::switch_info_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto& s = req.snapshot;
    for (const auto& [node, info] : s.found.switch_info) {
        if (c.enough()) break;
        const PortRef endport{node, PortNum(0)};
        if (sel.asked && (!sel.found || sel.endport != endport)) continue;
        const auto lid = base_lid(s, endport);
        if (!lid) continue;
        sa::SwitchInfoRecord r{*lid, info};
        // What the programmer set: the top of the routed LIDs.
        if (s.tables) r.switch_info.linear_fdb_top = s.tables->linear_fdb_top.value();
        c.offer(sa::encode(r));
    }
    return c.done();
}

SaAnswer sa_lft_records(const SaRequest& req)
{
    Collector c(req, sa::lft_record_components(), sa::lft_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto& s = req.snapshot;
    if (!s.tables) return c.done();
    const auto sel = c.lid_selection(0, 0);
    const unsigned top = s.tables->linear_fdb_top.value();
    for (const auto& [node, lft] : s.tables->lfts) {
        const PortRef endport{node, PortNum(0)};
        if (sel.asked && (!sel.found || sel.endport != endport)) continue;
        const auto lid = base_lid(s, endport);
        if (!lid) continue;
        for (unsigned b = 0; b <= top / 64 && !c.enough(); ++b) {
            if (c.selects(1) && c.query_u16(2) != b) continue;
            sa::LftRecord r;
            r.lid = *lid;
            r.block = static_cast<std::uint16_t>(b);
            for (unsigned i = 0; i < 64; ++i) {
                const unsigned dlid = b * 64 + i;
                r.ports[i] = dlid <= top ? lft.at(Lid(static_cast<std::uint16_t>(dlid))) : routing::no_route;
            }
            c.offer(sa::encode(r));
        }
    }
    return c.done();
}

SaAnswer sa_guid_info_records(const SaRequest& req)
{
    Collector c(req, sa::guid_info_record_components(), sa::guid_info_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto& f = fabric_of(req);
    // One GUID per port (no alias GUIDs are assigned): block 0, entry 0.
    for_endports(req, sel, [&](PortRef p, Lid lid) {
        if (c.enough()) return;
        sa::GuidInfoRecord r;
        r.lid = lid;
        r.block = 0;
        r.guids[0] = f.port(p).guid.is_zero() ? f.node(p.node).guid : f.port(p).guid;
        c.offer(sa::encode(r));
    });
    return c.done();
}

SaAnswer sa_sm_info_records(const SaRequest& req, const mad::SmInfo& ours)
{
    Collector c(req, sa::sm_info_record_components(), sa::sm_info_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const Lid lid = req.snapshot.lids.sm_lid;
    if (sel.asked && (!sel.found || base_lid(req.snapshot, sel.endport) != lid)) return c.done();
    sa::SmInfoRecord r{lid, ours};
    if (!req.trusted) r.sm_info.sm_key = 0;
    c.offer(sa::encode(r));
    return c.done();
}

SaAnswer sa_class_port_info(const SaRequest&, bool ud_multicast)
{
    std::vector<std::uint8_t> r(class_port_info_size, 0);
    r[0] = 1;                     // BaseVersion
    r[1] = sa::class_version;     // ClassVersion
    const std::uint16_t cap = sa_cap::multipath | (ud_multicast ? sa_cap::ud_multicast : 0);
    r[2] = static_cast<std::uint8_t>(cap >> 8);
    r[3] = static_cast<std::uint8_t>(cap);
    // CapabilityMask2 (27 bits) and RespTimeValue (5 bits): 4.096 us * 2^16
    // = 268 ms, what OpenSM reports for its default 200 ms transaction
    // timeout; our answers leave at once, the clients' timeouts follow it.
    const std::uint32_t cap2_rtv = (sa_cap::full_port_info_records | sa_cap::extended_speeds) << 5 | 16;
    for (int i = 0; i < 4; ++i) r[4 + i] = static_cast<std::uint8_t>(cap2_rtv >> (24 - 8 * i));
    r[35] = 1;                                   // RedirectQP 1: no redirection
    r[36] = 0x80, r[37] = 0x01;                  // RedirectQ_Key 0x80010000
    r[68] = 0x80, r[69] = 0x01;                  // TrapQ_Key
    return SaAnswer{sa::status::ok, {std::move(r)}};
}

void register_fabric_records(SaAgent& agent, std::function<mad::SmInfo()> sm_info)
{
    using namespace sa::method;
    // Asked at answer time: the multicast service registers after these.
    agent.handle(sa::attr::class_port_info, class_port_info_size, {get}, [&agent](const SaRequest& r) {
        return sa_class_port_info(r, agent.serves(sa::attr::mcmember_record));
    });
    agent.handle(sa::attr::node_record, sa::node_record_size, {get, get_table}, sa_node_records);
    agent.handle(sa::attr::port_info_record, sa::port_info_record_size, {get, get_table}, sa_port_info_records);
    agent.handle(sa::attr::link_record, sa::link_record_size, {get, get_table}, sa_link_records);
    agent.handle(sa::attr::switch_info_record, sa::switch_info_record_size, {get, get_table}, sa_switch_info_records);
    agent.handle(sa::attr::lft_record, sa::lft_record_size, {get, get_table}, sa_lft_records);
    agent.handle(sa::attr::guid_info_record, sa::guid_info_record_size, {get, get_table}, sa_guid_info_records);
    agent.handle(sa::attr::sm_info_record, sa::sm_info_record_size, {get, get_table},
                 [sm_info = std::move(sm_info)](const SaRequest& r) { return sa_sm_info_records(r, sm_info()); });
}

} // namespace ibsm::daemon
