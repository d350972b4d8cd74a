#include "daemon/program/port_disabler.h"

#include "daemon/core/node_names.h"
#include "daemon/core/smp_ops.h"
#include "health/isolation.h"
#include "mad/smp.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace ibsm::daemon {

using topology::PortRef;

namespace {

bool is_switch_port(const topology::Fabric& f, PortRef p) { return f.node(p.node).is_switch() && p.port.value() != 0; }

// Does the SM's DR path to the switch of `p` arrive over the link at `p`?
bool reached_over(const DiscoveryResult& found, PortRef p, PortRef far)
{
    const auto& here = found.path_to(p.node);
    const auto& there = found.path_to(far.node);
    return !there.full() && here == there.extended(far.port);
}

std::optional<PhysStateChange> change(const DiscoveryResult& found, health::PortId isolation, PortRef port, bool disable)
{
    const auto pi = found.port_info.find(port);
    if (pi == found.port_info.end()) return std::nullopt;
    const bool is_disabled = pi->second.port_phys_state == phys_state_disabled;
    if (disable == is_disabled) return std::nullopt; // already as wanted
    const auto& f = found.fabric;
    PhysStateChange c;
    c.isolation = isolation;
    c.port = port;
    c.port_id = health::port_id(f, port);
    c.name = port_name(f, port);
    c.path = path_to_port(found, port);
    c.attr_mod = port_info_attr_mod(found, port);
    c.desired = pi->second;
    c.desired.port_state = mad::PortState::no_change;
    c.desired.link_down_default_state = 0;
    c.desired.client_reregister = false;
    c.desired.port_phys_state = disable ? phys_state_disabled : phys_state_polling;
    c.disable = disable;
    return c;
}

} // namespace

std::vector<PhysStateChange> plan_phys_states(const DiscoveryResult& found, const std::set<health::PortId>& disable,
                                              const std::set<health::PortId>& release,
                                              const std::map<health::PortId, health::PortId>& disabled_for)
{
    const auto& f = found.fabric;
    std::vector<PhysStateChange> plan;
    for (const auto& id : disable) {
        const auto p = health::find_port(f, id);
        if (!p) continue;
        const auto far = f.remote(*p);
        if (!far) continue; // down already: nothing to disable (or it is, since an earlier call)
        std::optional<PortRef> target;
        if (is_switch_port(f, *p) && !reached_over(found, *p, *far))
            target = *p;
        else if (is_switch_port(f, *far) && !reached_over(found, *far, *p))
            target = *far;
        if (!target) continue; // a CA-to-CA link, or no end the SM can reach off the link
        if (auto c = change(found, id, *target, true)) plan.push_back(std::move(*c));
    }
    for (const auto& id : release) {
        std::set<health::PortId> ports{id};
        if (auto it = disabled_for.find(id); it != disabled_for.end()) ports.insert(it->second);
        for (const auto& port : ports) {
            const auto p = health::find_port(f, port);
            if (!p || !is_switch_port(f, *p)) continue;
            if (auto c = change(found, id, *p, false)) plan.push_back(std::move(*c));
        }
    }
    return plan;
}

boost::asio::awaitable<PhysStateReport> PortDisabler::apply(mad::Transport& transport, const DiscoveryResult& found,
                                                            const std::set<health::PortId>& disable,
                                                            const std::set<health::PortId>& release)
{
    PhysStateReport report;
    const auto plan = plan_phys_states(found, disable, release, disabled_);
    for (const auto& id : release) disabled_.erase(id);
    for (const auto& c : plan) {
        SmpData data{};
        mad::encode(c.desired, std::span<std::uint8_t, 64>(data));
        auto r = co_await dr_set(transport, c.path, mad::attr::port_info, c.attr_mod, data);
        auto got = r.ok() ? mad::decode_port_info(r.smp.data()) : std::nullopt;
        if (!got) {
            // The answer may be lost with the Set applied: read the port.
            auto g = co_await dr_get(transport, c.path, mad::attr::port_info, c.attr_mod);
            if (g.ok()) got = mad::decode_port_info(g.smp.data());
        }
        // Polling is shown by any state but Disabled: the link may have
        // trained already.
        const bool held = got && (c.disable ? got->port_phys_state == phys_state_disabled
                                            : got->port_phys_state != phys_state_disabled);
        if (!held) {
            ++report.failed;
            keep_failure(report.failures, c.name + ": PortPhysicalState " +
                                              std::to_string(c.desired.port_phys_state) + " not taken (" +
                                              (r.ok() ? (got ? "port reads " + std::to_string(got->port_phys_state)
                                                             : std::string("malformed PortInfo"))
                                                      : failure_text(r)) +
                                              ")");
            continue;
        }
        if (c.disable) {
            ++report.disabled;
            disabled_[c.isolation] = c.port_id;
            spdlog::warn("health: port {} DISABLED (isolated link, health.disable_port)", c.name);
        } else {
            ++report.enabled;
            spdlog::info("health: port {} set to Polling (isolation lifted): the link trains again", c.name);
        }
        if (std::find(report.switches.begin(), report.switches.end(), c.port.node) == report.switches.end())
            report.switches.push_back(c.port.node);
    }
    for (const auto& f : report.failures) spdlog::warn("health: {}", f);
    co_return report;
}

} // namespace ibsm::daemon
