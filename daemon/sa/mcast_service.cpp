#include "daemon/sa/mcast_service.h"

#include "daemon/sa/path_qos.h"
#include "daemon/sa/record_collector.h"
#include "mad/link_speed.h"
#include "mcast/link_rates.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace ibsm::daemon {

namespace sa = mad::sa;
using topology::PortRef;

namespace {

std::optional<PortRef> port_of_guid(const topology::Fabric& f, Guid g)
{
    if (auto p = f.find_port(g)) return p;
    if (auto n = f.find_node(g); n && f.node(*n).is_switch()) return PortRef{*n, PortNum(0)};
    return std::nullopt;
}

Guid guid_of(const topology::Fabric& f, PortRef p)
{
    const auto& node = f.node(p.node);
    return node.is_switch() ? node.guid : f.port(p).guid;
}

std::vector<std::uint8_t> record_bytes(const mad::McMemberRecord& r)
{
    std::vector<std::uint8_t> out(mad::mc_member_record_size);
    mad::encode(r, std::span<std::uint8_t, mad::mc_member_record_size>(out.data(), out.size()));
    return out;
}

} // namespace

McastService::McastService(EventQueue& events, mad::Transport& transport, McastSettings settings)
    : events_(events), transport_(transport), settings_(settings),
      groups_(mcast::GroupSettings{settings.subnet_prefix, 0xC3FF, settings.packet_life_time}), mfts_(settings.mft)
{
}

void McastService::sync_partition_groups(const partition::Partitions& partitions)
{
    // Created the default partition's first (its broadcast group takes
    // MLID 0xC000, as it always had), then by P_Key.
    std::vector<const partition::PartitionInfo*> order;
    for (const auto& p : partitions.partitions()) order.push_back(&p);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return (a->pkey == partition::default_partition) > (b->pkey == partition::default_partition);
    });
    std::vector<std::pair<partition::PartitionGroup, const partition::PartitionInfo*>> wanted_order;
    std::map<mad::Gid128, partition::PartitionGroup> wanted;
    for (const auto* p : order)
        for (const auto& g : p->groups)
            if (wanted.try_emplace(g.mgid, g).second) wanted_order.emplace_back(g, p);
    bool changed = false;
    // Gone: groups a partition made that it no longer makes (or makes
    // otherwise), and any group in a partition that no longer exists.
    std::vector<std::pair<mad::Gid128, std::string>> gone;
    for (const auto& [mgid, g] : partition_groups_) {
        auto w = wanted.find(mgid);
        if (w == wanted.end()) gone.emplace_back(mgid, "its partition no longer has it");
        else if (!(w->second == g)) gone.emplace_back(mgid, "its partition changed its parameters");
    }
    for (const auto& [mgid, g] : groups_.groups())
        if (!partitions.find(g.params.p_key) && !partition_groups_.count(mgid))
            gone.emplace_back(mgid, "partition " + hex16(static_cast<std::uint16_t>(g.params.p_key | 0x8000)) +
                                        " no longer exists");
    for (const auto& [mgid, why] : gone) {
        if (auto mlid = groups_.remove(mgid)) {
            spdlog::info("multicast: group {} on MLID {} deleted: {}", mgid.str(), hex16(mlid->value()), why);
            changed = true;
        }
        partition_groups_.erase(mgid);
    }
    for (const auto& [g, p] : wanted_order) {
        const auto mgid = g.mgid;
        if (partition_groups_.count(mgid)) continue;
        mad::McMemberRecord r = mcast::ipoib_broadcast_params(g.pkey, g.scope, settings_.packet_life_time);
        r.mgid = g.mgid;
        r.q_key = g.flags.qkey;
        r.mtu = g.flags.mtu;
        r.rate = g.flags.rate;
        r.sl = g.flags.sl;
        r.traffic_class = g.flags.tclass;
        r.flow_label = g.flags.flow_label;
        // A group of that MGID joined before its partition asked for it
        // gives way to the partition's.
        groups_.remove(mgid);
        auto o = groups_.create_permanent(r);
        if (o.status == mcast::SaStatus::ok) {
            partition_groups_.emplace(mgid, g);
            changed = true;
            spdlog::info("multicast: {}group {} of partition {} (P_Key {}) on MLID {}: MTU {}, rate {}, SL {}, Q_Key {:#x}",
                         g.broadcast ? "IPoIB broadcast " : "", o.record.mgid.str(), p->name, hex16(g.pkey),
                         hex16(o.record.mlid.value()), unsigned{r.mtu}, unsigned{r.rate}, unsigned{r.sl}, r.q_key);
        } else {
            spdlog::error("multicast: no group {} for partition {}: {}", mgid.str(), p->name, o.why);
        }
    }
    if (changed) request_push();
}

void McastService::report_group_notices(const SubnetSnapshot& snap)
{
    auto list = groups_.take_notices();
    if (!notices_) return;
    const auto& f = snap.found.fabric;
    Guid sm_guid;
    if (snap.found.sm_port.node.value < f.node_count()) sm_guid = guid_of(f, snap.found.sm_port);
    for (const auto& g : list) {
        mad::Notice n;
        n.is_generic = true;
        n.type = mad::notice_type::subnet_management;
        n.producer_type_or_vendor_id = 4; // the class manager (SM) produced it
        n.trap_number_or_device_id = g.created ? mad::trap::mc_group_created : mad::trap::mc_group_deleted;
        n.issuer_lid = snap.lids.sm_lid;
        n.details = mad::GidServiceDetails{sa::make_gid(g.mgid.prefix, Guid(g.mgid.interface_id))};
        // The SM issued it (IBA 13.4.8.2): its port GID.
        n.issuer_gid = sa::make_gid(settings_.subnet_prefix, sm_guid);
        spdlog::debug("multicast: trap {} (group {} {}) to subscribers", n.trap_number_or_device_id, g.mgid.str(),
                      g.created ? "created" : "deleted");
        notices_(n);
    }
}

void McastService::install(SaAgent& agent)
{
    agent.handle(sa::attr::mcmember_record, mad::mc_member_record_size,
                 {sa::method::get, sa::method::get_table, sa::method::set, sa::method::delete_},
                 [this](const SaRequest& r) { return on_request(r); });
    agent.handle(sa::attr::mft_record, sa::mft_record_size, {sa::method::get, sa::method::get_table},
                 [this](const SaRequest& r) { return mft_records(r); });
}

SaAnswer McastService::mft_records(const SaRequest& req) const
{
    sa_detail::Collector c(req, sa::mft_record_components(), sa::mft_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto& f = req.snapshot.found.fabric;
    sa_detail::for_endports(req, sel, [&](PortRef endport, Lid lid) {
        const auto& n = f.node(endport.node);
        if (!n.is_switch()) return;
        const auto* held = mfts_.confirmed(n.guid);
        if (!held) return;
        // Blocks in use: up to the highest with a port in a mask; a switch
        // forwarding no MLID has none (as OpenSM's max block in use).
        std::optional<std::uint16_t> top;
        for (const auto& [key, table] : *held)
            if (table && std::any_of(table->masks.begin(), table->masks.end(), [](auto m) { return m != 0; }))
                top = std::max(top.value_or(0), key.block);
        if (!top) return;
        for (const auto& [key, table] : *held) {
            if (c.enough() || key.block > *top) return;
            if (!table) continue; // a Set not (yet) confirmed: the switch may hold anything
            c.offer(sa::encode(sa::MftRecord{lid, key.position, key.block, *table}));
        }
    });
    return c.done();
}

const mcast::PortFacts* McastService::facts(const SubnetSnapshot& snap, Guid guid)
{
    if (snap.generation != facts_generation_) {
        facts_.clear();
        facts_generation_ = snap.generation;
    }
    if (auto it = facts_.find(guid); it != facts_.end()) return &it->second;
    const auto& f = snap.found.fabric;
    auto ref = port_of_guid(f, guid);
    if (!ref) return nullptr;
    const auto& port = f.port(*ref);
    mcast::PortFacts pf;
    pf.guid = guid;
    // A snapshot without partitions: the default partition only, as OpenSM
    // without a partitions file.
    static const partition::Partitions no_file;
    pf.pkeys = (snap.partitions ? *snap.partitions : no_file).keys_of(guid);
    // The link the port's traffic takes: its own cable, or for a switch's
    // port 0 no cable at all (the switch's fastest MTU and rate apply).
    if (auto pi = snap.found.port_info.find(*ref); pi != snap.found.port_info.end() && pi->second.neighbor_mtu)
        pf.mtu = pi->second.neighbor_mtu;
    else if (auto far = f.remote(*ref))
        pf.mtu = std::min(port.mtu_cap, f.port(*far).mtu_cap);
    else
        pf.mtu = port.mtu_cap;
    pf.rate = mcast::link_rate_code(port).value_or(0);
    if (f.node(ref->node).is_switch() && ref->port.value() == 0) {
        pf.mtu = 5;  // port 0 is internal: it carries what the switch's links carry
        pf.rate = 0;
        for (std::uint8_t p = 1; p <= f.node(ref->node).num_ports(); ++p) {
            const auto& q = f.port(PortRef{ref->node, PortNum(p)});
            if (!q.remote) continue;
            auto code = mcast::link_rate_code(q);
            if (code && (pf.rate == 0 || mcast::compare_rates(*code, pf.rate) > 0)) pf.rate = *code;
        }
    }
    return &facts_.emplace(guid, std::move(pf)).first->second;
}

SaAnswer McastService::on_request(const SaRequest& req)
{
    const auto record = mad::decode_mc_member_record(req.record);
    if (!record) return SaAnswer::error(sa::status::req_invalid);
    // MCMemberRecord has 18 components: a mask selecting more is malformed.
    if (req.header.component_mask >> 18) return SaAnswer::error(sa::status::req_invalid);
    const SubnetSnapshot& snap = req.snapshot;
    Guid requester;
    if (auto p = snap.lids.lids.port_of(req.requester.lid)) requester = guid_of(snap.found.fabric, *p);
    const mcast::PortLookup lookup = [&](Guid g) { return facts(snap, g); };
    const auto mask = req.header.component_mask;

    if (req.header.method == sa::method::set || req.header.method == sa::method::delete_) {
        const bool join = req.header.method == sa::method::set;
        auto asked = *record;
        auto asked_mask = mask;
        if (join) with_qos_level(snap, asked, asked_mask);
        auto o = join ? groups_.join(asked, asked_mask, requester, lookup)
                      : groups_.leave(*record, mask, requester, lookup);
        if (o.status != mcast::SaStatus::ok) {
            ++stats_.refused;
            spdlog::debug("multicast: {} of {} to {} by {} refused: {} ({})", join ? "join" : "leave",
                          record->port_gid.str(), record->mgid.str(), requester.str(), mcast::to_string(o.status),
                          o.why);
            return SaAnswer::error(mcast::mad_status(o.status));
        }
        ++(join ? stats_.joins : stats_.leaves);
        if (o.created)
            spdlog::info("multicast: group {} created on MLID {} by {}", o.record.mgid.str(),
                         hex16(o.record.mlid.value()), requester.str());
        if (o.members_changed || o.created) request_push();
        report_group_notices(snap);
        return SaAnswer{sa::status::ok, {record_bytes(o.record)}};
    }
    ++stats_.queries;
    SaAnswer a;
    for (const auto& r : groups_.query(*record, mask, requester, req.trusted, lookup))
        a.records.push_back(record_bytes(r));
    return a;
}

void McastService::with_qos_level(const SubnetSnapshot& snap, mad::McMemberRecord& r, std::uint64_t& mask)
{
    namespace m = mad::mcr_mask;
    if (!qos_active(snap) || ((mask & m::mgid) && !r.mgid.is_zero() && groups_.find(r.mgid))) return;
    qos::Request request;
    request.source = r.port_gid.guid();
    if (mask & m::p_key) request.pkey = static_cast<std::uint16_t>(r.p_key & 0x7fff);
    const auto level = qos_level(snap, request);
    if (!level) return;
    const auto& l = snap.qos_policy->levels().at(*level);
    const mcast::PortFacts* port = facts(snap, request.source);
    const auto exactly = static_cast<std::uint8_t>(mad::Selector::exactly);
    // Multicast trees are not layered: the routing SL of a group is 0.
    if (!(mask & m::sl)) {
        r.sl = qos_host_sl(snap, level, 0);
        mask |= m::sl;
    }
    const auto given = [&](std::uint64_t value, std::uint64_t selector, std::uint8_t sel) {
        return (mask & value) && (mask & selector) && sel != static_cast<std::uint8_t>(mad::Selector::largest);
    };
    if (l.mtu && port && !given(m::mtu, m::mtu_selector, r.mtu_selector)) {
        r.mtu = std::min(*l.mtu, port->mtu);
        r.mtu_selector = exactly;
        mask |= m::mtu | m::mtu_selector;
    }
    if (l.rate && port && !given(m::rate, m::rate_selector, r.rate_selector)) {
        r.rate = mad::compare_rate_codes(port->rate, *l.rate) < 0 ? port->rate : *l.rate;
        r.rate_selector = exactly;
        mask |= m::rate | m::rate_selector;
    }
    if (l.packet_life && !(mask & m::packet_life_time)) {
        r.packet_life_time = *l.packet_life;
        r.packet_life_time_selector = exactly;
        mask |= m::packet_life_time | m::packet_life_time_selector;
    }
}

void McastService::on_snapshot(SnapshotPtr snap)
{
    if (!snap) return;
    snapshot_ = std::move(snap);
    if (snapshot_->partitions) sync_partition_groups(*snapshot_->partitions);
    const auto& f = snapshot_->found.fabric;
    // The smallest multicast table of the switches bounds the MLIDs.
    std::uint16_t cap = 0;
    for (const auto& [id, si] : snapshot_->found.switch_info)
        if (si.multicast_fdb_cap) cap = cap ? std::min(cap, si.multicast_fdb_cap) : si.multicast_fdb_cap;
    if (cap) groups_.set_mlid_top(static_cast<std::uint16_t>(std::min<std::uint32_t>(0xC000u + cap - 1, 0xFFFEu)));
    auto lost = groups_.drop_ports([&](Guid g) { return !port_of_guid(f, g); });
    if (!lost.empty()) spdlog::info("multicast: {} group(s) lost members that left the fabric", lost.size());
    report_group_notices(*snapshot_);
    request_push();
}

void McastService::request_push()
{
    dirty_ = true;
    if (requested_) return;
    requested_ = true;
    events_.push(McastTablesEvent{std::chrono::steady_clock::now() + settings_.batch});
}

boost::asio::awaitable<void> McastService::push()
{
    // Joins from here on ask again: this push may not see them.
    requested_ = false;
    if (!dirty_ || !snapshot_) co_return;
    dirty_ = false;
    in_push_ = true;
    try {
        co_await push_trees();
    } catch (const std::exception& e) {
        spdlog::error("multicast: pushing forwarding tables failed: {}", e.what());
    }
    in_push_ = false;
}

boost::asio::awaitable<void> McastService::push_trees()
{
    const SnapshotPtr snap = snapshot_;
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t unreachable = 0;
    const auto masks = multicast_masks(groups_, *snap, &unreachable);
    Lid top;
    for (const auto& [mgid, g] : groups_.groups()) top = std::max(top, g.params.mlid);
    auto report = co_await mfts_.program(transport_, snap->found, masks, top);
    ++stats_.pushes;
    stats_.blocks_sent += report.blocks_sent;
    stats_.blocks_dirty = report.blocks_dirty;
    stats_.unreachable = unreachable;
    std::size_t members = 0;
    for (const auto& [mgid, g] : groups_.groups()) members += g.members.size();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("multicast: {} group(s), {} membership(s) on generation {}: MFT blocks sent {} (dirty {}) on {} "
                 "switch(es) in {:.1f} ms{}",
                 groups_.groups().size(), members, snap->generation, report.blocks_sent, report.blocks_dirty,
                 report.switches, ms,
                 unreachable ? ", " + std::to_string(unreachable) + " member(s) unreachable" : std::string());
    for (const auto& f : report.failures) spdlog::warn("  {}", f);
    // Unconfirmed blocks are retried with the next push (the next join,
    // leave or sweep), like LFT blocks.
}

SwitchMasks multicast_masks(const mcast::GroupTable& groups, const SubnetSnapshot& snap, std::uint64_t* unreachable)
{
    SwitchMasks out;
    const auto& found = snap.found;
    const auto& f = found.fabric;
    mcast::TreeOptions options;
    options.capable = [&](topology::NodeId n) {
        auto si = found.switch_info.find(n);
        return si != found.switch_info.end() && si->second.multicast_fdb_cap > 0;
    };
    for (const auto& [mgid, g] : groups.groups()) {
        std::vector<mcast::TreeMember> members;
        for (const auto& [guid, m] : g.members) {
            auto ref = port_of_guid(f, guid);
            if (!ref) {
                if (unreachable) ++*unreachable;
                continue;
            }
            members.push_back(mcast::TreeMember{*ref, m.receives()});
        }
        if (members.empty()) continue;
        options.spread = g.params.mlid.value();
        const auto tree = mcast::spanning_tree(f, members, options);
        if (unreachable) *unreachable += tree.unreachable.size();
        for (const auto& [sw, mask] : tree.masks) out[sw][g.params.mlid.value()] = mask;
    }
    return out;
}

} // namespace ibsm::daemon
