#include "daemon/program/port_programmer.h"

#include "daemon/core/node_names.h"
#include "daemon/core/smp_ops.h"
#include "daemon/core/work_pool.h"
#include "daemon/program/port_vl_tables.h"
#include "topology/port_index.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace ibsm::daemon {

using topology::PortRef;

std::uint8_t operational_vls_code(unsigned vls)
{
    if (vls >= 15) return 5;
    if (vls >= 8) return 4;
    if (vls >= 4) return 3;
    if (vls >= 2) return 2;
    return 1;
}

mad::PortInfo desired_port_info(const DiscoveryResult& found, const lidassign::LidMap& lids, Lid sm_lid,
                                const PortSettings& settings, PortRef port, const mad::PortInfo& current,
                                const routing::SlTable* sls, const MkeySettings* mkeys)
{
    const mad::PortInfo* far = nullptr;
    if (auto r = found.fabric.remote(port))
        if (auto it = found.port_info.find(*r); it != found.port_info.end()) far = &it->second;
    return desired_port_info(found, lids, sm_lid, settings, port, current, far, sls, mkeys);
}

mad::PortInfo desired_port_info(const DiscoveryResult& found, const lidassign::LidMap& lids, Lid sm_lid,
                                const PortSettings& settings, PortRef port, const mad::PortInfo& current,
                                const mad::PortInfo* far, const routing::SlTable* sls, const MkeySettings* mkeys)
{
    const auto& f = found.fabric;
    mad::PortInfo d = mad::without_commands(current);
    const bool sw = f.node(port.node).is_switch();
    // LID, LMC and the subnet fields live on CA ports and switch port 0;
    // IBA leaves them unused on a switch's external ports.
    if (!sw || port.port.value() == 0) {
        if (auto l = lids.lids_of(port)) {
            d.lid = l->base;
            d.lmc = l->lmc;
        }
        d.master_sm_lid = sm_lid;
        if (sls && !sls->empty()) d.master_sm_sl = sls->at(port, sm_lid);
        d.gid_prefix = settings.subnet_prefix;
        d.subnet_timeout = settings.subnet_timeout;
        // With M_Key off the SM leaves the fields as the port has them (a
        // port that does not keep them, ibsim's, would otherwise be set again
        // every sweep); prepare() clears a key the SM set itself.
        if (mkeys && mkeys->enabled) {
            const auto& node = f.node(port.node);
            const Guid checking = sw ? node.guid : node.ports.at(port.port.value()).guid;
            d.mkey = mkeys->ring.key_of(checking);
            d.mkey_protect_bits = d.mkey != 0 ? mkeys->protect_bits : 0;
            d.mkey_lease_period = d.mkey != 0 ? mkeys->lease_period_s : 0;
        }
    }
    if (far) {
        d.neighbor_mtu = std::min(current.mtu_cap, far->mtu_cap);
        d.operational_vls = std::min({current.vl_cap, far->vl_cap, settings.max_operational_vls});
    }
    // As OpenSM's osm_pkey_mgr.c, on switches with an enforcement table.
    if (settings.enforce_partitions && sw && port.port.value() != 0) {
        const auto si = found.switch_info.find(port.node);
        const auto r = f.remote(port);
        const bool faces_ca = r && !f.node(r->node).is_switch();
        const bool table = si != found.switch_info.end() && si->second.partition_enforcement_cap > 0 &&
                           !settings.unenforced.count({f.node(port.node).guid, port.port.value()});
        d.partition_enforcement_inbound = faces_ca && table && si->second.inbound_enforcement_cap && settings.enforce_in;
        d.partition_enforcement_outbound =
            faces_ca && table && si->second.outbound_enforcement_cap && settings.enforce_out;
    }
    return d;
}

void PortProgrammer::learn_keys(const DiscoveryResult& found)
{
    clear_keys_.clear();
    if (!mkeys_) return;
    mkeys_->learn(found);
    mkey_settings_ = mkeys_->settings();
    if (mkey_settings_->enabled) return;
    for (const auto& node : found.fabric.nodes()) {
        if (node.is_switch()) {
            if (mkeys_->held(node.guid).value_or(0) != 0) clear_keys_.insert(node.guid);
            continue;
        }
        for (const auto& port : node.ports)
            if (port.guid != Guid() && mkeys_->held(port.guid).value_or(0) != 0) clear_keys_.insert(port.guid);
    }
}

void PortProgrammer::prepare(const DiscoveryResult& found, const lidassign::LidMap& lids, Lid sm_lid,
                             const routing::SlTable* sls, const qos::SlVlPlan* sl_vl, const qos::QosPolicy* policy)
{
    plan_.clear();
    found_ = &found;
    const auto& f = found.fabric;
    const topology::PortIndex<mad::PortInfo> index(f, found.port_info);
    // Port-major order (port 1 of every node, then port 2, ...): consecutive
    // Sets go to different switches, so no switch's SMA queue grows. The
    // order is settled on the small (port, entry) pairs before the entries
    // are built, so no entry is ever moved.
    std::vector<std::pair<PortRef, const mad::PortInfo*>> order;
    order.reserve(found.port_info.size());
    for (const auto& [ref, pi] : found.port_info) {
        const bool port0 = f.node(ref.node).is_switch() && ref.port.value() == 0;
        const auto remote = f.remote(ref);
        if (port0 || (remote && index.find(*remote))) order.emplace_back(ref, &pi);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return std::pair(a.first.port, a.first.node) < std::pair(b.first.port, b.first.node);
    });
    plan_.reserve(order.size());
    for (const auto& [ref, pip] : order) {
        const auto& pi = *pip;
        const auto& node = f.node(ref.node);
        const bool port0 = node.is_switch() && ref.port.value() == 0;
        const auto remote = f.remote(ref);
        PortPlanEntry e;
        e.port = ref;
        e.node_guid = node.guid;
        // Bit 31 on the Set as on the Get: without it the port would ignore
        // the LinkSpeedExt fields written back and answer them as zero, so
        // no answer would ever match the desired PortInfo.
        e.attr_mod = port_info_attr_mod(found, ref);
        e.current = pi;
        e.desired = desired_port_info(found, lids, sm_lid, settings_, ref, pi, remote ? index.find(*remote) : nullptr,
                                      sls, mkey_settings_ ? &*mkey_settings_ : nullptr);
        if (!clear_keys_.empty() && clear_keys_.count(node.is_switch() ? node.guid : f.port(ref).guid)) {
            e.desired.mkey = 0;
            e.desired.mkey_protect_bits = 0;
            e.desired.mkey_lease_period = 0;
        }
        if (sl_vl && sl_vl->from_policy && !port0)
            e.desired.vl_high_limit =
                port_vl_tables(*sl_vl, policy, node.is_switch(), ref.port, f.port(ref).guid).high_limit;
        // A port known not to hold a field is asked for what it keeps.
        kept_.apply(node.guid, ref.port.value(), pi, e.desired);
        e.config_differs = mad::without_commands(pi) != e.desired;
        e.activate = !port0 && (pi.port_state == mad::PortState::init || pi.port_state == mad::PortState::armed);
        e.reregister =
            settings_.client_reregister && !node.is_switch() && contacted_.count({node.guid, ref.port.value()}) == 0;
        e.carries_lid = !node.is_switch() || port0;
        plan_.push_back(std::move(e));
    }
}

void PortProgrammer::release_plan()
{
    // Move-assigned, not `plan_ = {}`: that assigns an empty list and keeps
    // the capacity (51 MB at 27 648 hosts).
    plan_ = std::vector<PortPlanEntry>();
    found_ = nullptr;
}

bool shows_effect(const mad::PortInfo& got, const mad::PortInfo& desired, mad::PortState asked, bool lid_port)
{
    switch (asked) {
    case mad::PortState::no_change: break;
    case mad::PortState::armed:
        if (got.port_state != mad::PortState::armed && got.port_state != mad::PortState::active) return false;
        break;
    default:
        if (got.port_state != asked) return false;
    }
    if (lid_port && (got.lid != desired.lid || got.lmc != desired.lmc || got.master_sm_lid != desired.master_sm_lid))
        return false;
    if (desired.operational_vls != 0 && got.operational_vls != desired.operational_vls) return false;
    return true;
}

boost::asio::awaitable<bool> PortProgrammer::set_state(mad::Transport& transport, PortPlanEntry& e,
                                                       mad::PortState state, bool reregister, PortReport& report)
{
    mad::PortInfo pi = e.desired;
    pi.port_state = state;
    pi.client_reregister = reregister;
    SmpData data{};
    mad::encode(pi, std::span<std::uint8_t, 64>(data));
    auto done = [&](const mad::PortInfo& got) {
        e.current = got;
        e.answered = true;
        for (auto& m : kept_.note(e.node_guid, e.port.port.value(), got, e.desired)) {
            auto& n = kept_notes_[std::move(m.text)];
            n.warn = m.warn;
            if (++n.ports <= 3) n.names.push_back(port_name(found_->fabric, e.port));
        }
        e.config_differs = mad::without_commands(got) != e.desired;
        if (reregister) {
            e.reregister = false;
            contacted_.insert({e.node_guid, e.port.port.value()});
        }
    };
    const auto state_text = [](mad::PortState s) { return std::to_string(static_cast<int>(s)); };
    const DrPath path = path_to_port(*found_, e.port);
    std::string why;
    for (unsigned round = 0; round < std::max(1u, settings_.set_rounds); ++round) {
        auto r = co_await dr_set(transport, path, mad::attr::port_info, e.attr_mod, data);
        ++report.sets;
        if (r.ok()) {
            auto got = mad::decode_port_info(r.smp.data());
            if (got && (state == mad::PortState::no_change || got->port_state == state)) {
                done(*got);
                co_return true;
            }
            why = got ? "asked for state " + state_text(state) + ", port is in " + state_text(got->port_state)
                      : "PortInfo Set answered with a malformed PortInfo";
        } else {
            why = "PortInfo Set " + failure_text(r);
        }
        // The Set may have been applied with its answer lost: read the port.
        auto g = co_await dr_get(transport, path, mad::attr::port_info, e.attr_mod);
        ++report.reads;
        auto got = g.ok() ? mad::decode_port_info(g.smp.data()) : std::nullopt;
        if (!got) {
            why += "; reading the port back: " + (g.ok() ? std::string("malformed PortInfo") : failure_text(g));
            break;
        }
        if (shows_effect(*got, e.desired, state, e.carries_lid)) {
            ++report.confirmed_by_read;
            done(*got);
            co_return true;
        }
        // Unanswered and not applied: the Set never arrived, send it again.
        // Refused (or applied differently): sending it again changes nothing.
        const bool unchanged = got->port_state == e.current.port_state;
        if (r.failure != mad::SmpFailure::timeout || !unchanged) {
            why += "; port is in state " + state_text(got->port_state);
            break;
        }
    }
    note_failure(report, port_name(found_->fabric, e.port) + ": " + why);
    co_return false;
}

void PortReport::add(const PortReport& o)
{
    sets += o.sets;
    failed += o.failed;
    configured += o.configured;
    armed += o.armed;
    activated += o.activated;
    reads += o.reads;
    confirmed_by_read += o.confirmed_by_read;
    for (const auto& f : o.failures) keep_failure(failures, f);
}

boost::asio::awaitable<PortReport> PortProgrammer::configure(mad::Transport& transport, PortSide side)
{
    PortReport report;
    std::vector<PortPlanEntry*> ports;
    for (auto& e : plan_) {
        // CA ports carry their LID; a switch keeps its own on port 0.
        const bool end_port = e.carries_lid && e.port.port.value() != 0;
        if (side != PortSide::all && end_port != (side == PortSide::end_ports)) continue;
        if (!e.activate && (e.config_differs || e.reregister)) ports.push_back(&e);
    }
    co_await run_jobs(std::move(ports), settings_.width, [&](PortPlanEntry* e) -> boost::asio::awaitable<void> {
        if (co_await set_state(transport, *e, mad::PortState::no_change, e->reregister, report)) ++report.configured;
    });
    log_kept_notes();
    co_return report;
}

void PortProgrammer::log_kept_notes()
{
    for (const auto& [text, n] : kept_notes_) {
        const auto level = n.warn ? spdlog::level::warn : spdlog::level::info;
        if (n.ports <= n.names.size()) {
            for (const auto& name : n.names) spdlog::log(level, "port {} {}", name, text);
            continue;
        }
        std::string some;
        for (const auto& name : n.names) some += (some.empty() ? "" : ", ") + name;
        spdlog::log(level, "{} ports: {} (e.g. {}; each port noted once)", n.ports, text, some);
    }
    kept_notes_.clear();
}

boost::asio::awaitable<PortReport> PortProgrammer::activate(mad::Transport& transport)
{
    PortReport report;
    // Phase 1: every INIT port gets its settings and ARMED in one Set.
    std::vector<PortPlanEntry*> arm;
    for (auto& e : plan_)
        if (e.activate && e.current.port_state == mad::PortState::init) arm.push_back(&e);
    co_await run_jobs(std::move(arm), settings_.width, [&](PortPlanEntry* e) -> boost::asio::awaitable<void> {
        if (co_await set_state(transport, *e, mad::PortState::armed, false, report)) ++report.armed;
    });

    // Phase 2: both ends of every link are ARMED now; ACTIVE.
    std::vector<PortPlanEntry*> act;
    for (auto& e : plan_)
        if (e.activate && e.current.port_state == mad::PortState::armed) act.push_back(&e);
    co_await run_jobs(std::move(act), settings_.width, [&](PortPlanEntry* e) -> boost::asio::awaitable<void> {
        if (co_await set_state(transport, *e, mad::PortState::active, e->reregister, report)) ++report.activated;
    });
    log_kept_notes();
    if (mkeys_ && mkeys_->rotating()) {
        // Unfinished: the sweep is not confirmed, so the retry timer sweeps
        // again and the old keys are still tried until then.
        if (const auto stale = mkeys_->settle())
            note_failure(report, "M_Key rotation: " + std::to_string(stale) + " port(s) still hold an old key");
        else
            spdlog::info("M_Key rotation complete: every port holds its new key (secret fingerprint {})",
                         mkeys_->settings().ring.fingerprint());
    }
    co_return report;
}

} // namespace ibsm::daemon
