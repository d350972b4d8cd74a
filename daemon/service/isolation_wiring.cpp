#include "daemon/service/isolation_wiring.h"

#include "daemon/service/control_handlers.h"

namespace ibsm::daemon {

std::set<health::PortId> isolated_links(const HealthMonitor& health, const Drains& drains)
{
    auto all = health.isolated();
    all.merge(drains.links());
    return all;
}

std::vector<health::PortHealth> port_rows(const HealthMonitor& health, const Drains& drains)
{
    return drains.mark(health.rows());
}

void connect_isolations(Bringup& bringup, HealthMonitor& health, Drains& drains, EventQueue& events)
{
    bringup.set_isolated_links(isolated_links(health, drains));
    health.on_isolation_change([&](const std::set<health::PortId>&, const std::string& reason) {
        bringup.set_isolated_links(isolated_links(health, drains));
        events.push(IsolationEvent{reason});
    });
    drains.on_change([&](const std::string& reason) {
        bringup.set_isolated_links(isolated_links(health, drains));
        events.push(IsolationEvent{reason});
    });
    drains.set_isolated([&] { return health.isolated(); });
    drains.set_setup([&] { return drain_setup(bringup.settings_in_use()); });
    bringup.set_no_discover(health.no_discover());
    health.on_no_discover_change([&](const std::set<Guid>& nodes, const std::string&) { bringup.set_no_discover(nodes); });
}

} // namespace ibsm::daemon
