#include "daemon/sweep/light_sweeper.h"

#include "daemon/core/node_names.h"
#include "daemon/core/smp_ops.h"
#include "daemon/core/work_pool.h"
#include "mad/port_info.h"
#include "mad/switch_info.h"

#include <boost/asio/use_awaitable.hpp>

#include <chrono>

namespace ibsm::daemon {

boost::asio::awaitable<LightSweepReport> light_sweep(mad::Transport& transport, const SubnetSnapshot& snap,
                                                     EventQueue& events, std::size_t width)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto before = transport.counters().requests;
    LightSweepReport report;
    const auto& found = snap.found;
    const auto& f = found.fabric;

    std::vector<topology::NodeId> switches;
    for (auto id : f.node_ids())
        if (f.node(id).is_switch()) switches.push_back(id);
    const bool lids_up = snap.health != SubnetHealth::down && snap.tables;

    co_await run_jobs(std::move(switches), width, [&](topology::NodeId id) -> boost::asio::awaitable<void> {
        std::optional<mad::SmpResponse> got;
        if (lids_up) {
            if (auto l = snap.lids.lids.lids_of(topology::PortRef{id, PortNum(0)})) {
                mad::SmpRequest req{mad::make_lid_request(mad::Method::get, l->base, mad::attr::switch_info, 0, 0),
                                    l->base};
                auto r = co_await transport.async_request(std::move(req), boost::asio::use_awaitable);
                if (r.ok())
                    got = std::move(r);
                else
                    ++report.lid_failures;
            }
        }
        if (!got) {
            auto r = co_await dr_get(transport, found.path_to(id), mad::attr::switch_info, 0);
            if (!r.ok()) {
                report.unreachable.push_back(node_name(f, id) + ": " + failure_text(r));
                co_return;
            }
            got = std::move(r);
        }
        auto si = mad::decode_switch_info(got->smp.data());
        if (si && si->port_state_change) {
            report.changed.push_back(f.node(id).guid);
            events.push(PortStateChangeEvent{f.node(id).guid});
        }
    });

    auto sm = co_await dr_get(transport, DrPath{}, mad::attr::port_info, port_info_attr_mod(found, found.sm_port));
    if (sm.ok()) {
        auto pi = mad::decode_port_info(sm.smp.data());
        report.sm_port_active = pi && pi->port_state == mad::PortState::active;
    } else {
        report.sm_port_active = false;
    }
    if (!report.sm_port_active)
        events.push(HeavySweepEvent{"light sweep: the SM's own port is not ACTIVE"});
    else if (!report.unreachable.empty())
        events.push(HeavySweepEvent{"light sweep: " + std::to_string(report.unreachable.size()) +
                                    " switch(es) did not answer, first " + report.unreachable.front()});
    report.smps = transport.counters().requests - before;
    report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    co_return report;
}

} // namespace ibsm::daemon
