#include "daemon/sa/sa_inform.h"

#include "daemon/sa/path_dlids.h"
#include "mad/sa/component_mask.h"
#include "mad/smp.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

namespace ibsm::daemon {

namespace sa = mad::sa;

namespace {
constexpr std::uint16_t all16 = 0xffff;

// Security traps (sa_trust.h) are forwarded to trusted subscribers only.
bool forwarded_trap(std::uint16_t number)
{
    return number == mad::trap::gid_in_service || number == mad::trap::gid_out_of_service ||
           number == mad::trap::mc_group_created || number == mad::trap::mc_group_deleted ||
           number == mad::trap::link_state_change || number == mad::trap::local_changes || security_trap(number);
}
} // namespace

bool inform_matches(const sa::InformInfo& info, const mad::Notice& n)
{
    if (info.is_generic != n.is_generic) return false;
    if (info.trap_number_or_device_id != all16 && info.trap_number_or_device_id != n.trap_number_or_device_id)
        return false;
    if (info.type != all16 && info.type != n.type) return false;
    if (info.producer_type_or_vendor_id != 0xffffff && info.producer_type_or_vendor_id != n.producer_type_or_vendor_id)
        return false;
    if (info.lid_range_begin.value() != all16) {
        const auto lo = info.lid_range_begin.value();
        const auto hi = std::max(lo, info.lid_range_end.value());
        if (n.issuer_lid.value() < lo || n.issuer_lid.value() > hi) return false;
    }
    return true;
}

SaAnswer InformRegistry::set_inform_info(const SaRequest& req)
{
    auto info = sa::decode_inform_info(req.record);
    if (!info) return SaAnswer::error(sa::status::req_invalid);
    // Only generic traps the SA forwards (or all of them).
    if (!info->is_generic ||
        (info->trap_number_or_device_id != all16 && !forwarded_trap(info->trap_number_or_device_id)))
        return SaAnswer::error(sa::status::req_invalid);
    const Lid lid = req.requester.lid;
    if (info->subscribe && security_trap(info->trap_number_or_device_id) && !req.trusted) {
        ++counters_.denied;
        std::uint64_t held = 0;
        if (denied_log_.admit(RefusalLog::Clock::now(), &held))
            spdlog::warn("SA: untrusted subscription of LID {} to security trap {} refused{}", lid.value(),
                         info->trap_number_or_device_id,
                         held ? fmt::format(" ({} more since the last line)", held) : std::string());
        return SaAnswer::error(sa::status::denied);
    }
    auto same = [&](const Subscription& s) {
        return s.lid == lid && s.info.trap_number_or_device_id == info->trap_number_or_device_id &&
               s.info.qpn == info->qpn && s.info.lid_range_begin == info->lid_range_begin &&
               s.info.lid_range_end == info->lid_range_end && s.info.type == info->type;
    };
    auto it = std::find_if(subs_.begin(), subs_.end(), same);
    if (!info->subscribe) {
        if (it == subs_.end()) return SaAnswer::error(sa::status::req_invalid);
        subs_.erase(it);
        ++counters_.unsubscribed;
        return SaAnswer{sa::status::ok, {sa::encode(*info)}};
    }
    // The subscriber's GID: the port owning its LID.
    mad::Gid gid{};
    if (auto p = req.snapshot.lids.lids.port_of(lid)) {
        const auto& n = req.snapshot.found.fabric.node(p->node);
        gid = sa::make_gid(sa::default_gid_prefix, n.is_switch() ? n.guid : n.port(p->port).guid);
    }
    if (it == subs_.end()) {
        subs_.push_back(Subscription{lid, gid, next_enum_++, *info, req.trusted});
        ++counters_.subscribed;
    } else {
        it->info = *info;
        it->trusted = req.trusted;
    }
    return SaAnswer{sa::status::ok, {sa::encode(*info)}};
}

SaAnswer InformRegistry::inform_info_records(const SaRequest& req)
{
    const auto table = sa::inform_info_record_components();
    if (!sa::mask_valid(table, req.header.component_mask)) return SaAnswer::error(sa::status::req_invalid);
    std::vector<std::uint8_t> query(req.record.begin(), req.record.begin() + sa::inform_info_record_size);
    SaAnswer out;
    for (const auto& s : subs_) {
        sa::InformInfoRecord r{s.gid, s.enumeration, s.info};
        // The subscriber's QPN only to a trusted requester (C15-0.2-1.16).
        if (!req.trusted) r.inform_info.qpn = 0;
        auto rec = sa::encode(r);
        if (sa::matches(table, req.header.component_mask, query, rec)) out.records.push_back(std::move(rec));
    }
    return out;
}

void InformRegistry::register_with(SaAgent& agent)
{
    agent.handle(sa::attr::inform_info, sa::inform_info_size, {sa::method::set},
                 [this](const SaRequest& r) { return set_inform_info(r); });
    agent.handle(sa::attr::inform_info_record, sa::inform_info_record_size,
                 {sa::method::get, sa::method::get_table},
                 [this](const SaRequest& r) { return inform_info_records(r); });
}

void InformRegistry::forward(const mad::Notice& n)
{
    ++counters_.notices;
    if (!n.is_generic || !forwarded_trap(n.trap_number_or_device_id)) return;
    std::array<std::uint8_t, mad::notice_size> bytes{};
    mad::encode_with_issuer_gid(n, std::span<std::uint8_t, mad::notice_size>(bytes));
    for (const auto& s : subs_) {
        if (!inform_matches(s.info, n)) continue;
        if (security_trap(n.trap_number_or_device_id) && !s.trusted) continue;
        agent_.send_report(mad::GsiAddress{s.lid, s.info.qpn ? s.info.qpn : 1u, sa::gsi_qkey, 0}, sa::attr::notice,
                           bytes);
        ++counters_.forwarded;
    }
}

void InformRegistry::on_trap_mad(const mad::RawReceive& r)
{
    if (subs_.empty()) return;
    auto n = mad::decode_notice(r.smp.data());
    if (n) forward(*n);
}

void InformRegistry::on_snapshot(const SnapshotPtr& before, const SnapshotPtr& after)
{
    if (!before || !after || subs_.empty()) return;
    auto guids = [](const SubnetSnapshot& s) {
        std::set<Guid> out;
        for (const auto& [port, range] : s.lids.lids.entries()) {
            const auto& n = s.found.fabric.node(port.node);
            out.insert(n.is_switch() ? n.guid : n.port(port.port).guid);
        }
        return out;
    };
    const auto old_guids = guids(*before), new_guids = guids(*after);
    auto notice = [&](std::uint16_t number, Guid g) {
        mad::Notice n;
        n.is_generic = true;
        n.type = mad::notice_type::subnet_management;
        n.producer_type_or_vendor_id = 4; // the class manager (SM) produced it
        n.trap_number_or_device_id = number;
        n.issuer_lid = after->lids.sm_lid;
        n.details = mad::GidServiceDetails{sa::make_gid(sa::default_gid_prefix, g)};
        forward(n);
    };
    for (auto g : new_guids)
        if (!old_guids.contains(g)) notice(mad::trap::gid_in_service, g);
    for (auto g : old_guids)
        if (!new_guids.contains(g)) notice(mad::trap::gid_out_of_service, g);
}

} // namespace ibsm::daemon
